import Foundation
import Logging
import PostgresKit
import PostgresNIO
import SQLKit

/// PostgreSQL (`--database postgres://USER:PASSWORD@HOST:PORT/NAME`), shared by every
/// node: a `PostgresClient` pool, run by `run()` for as long as the service lives, each
/// statement on one of its connections through sql-kit (postgres-kit has no `SQLDatabase`
/// over the pool itself, and a transaction must hold one connection anyway).
public final class PostgresServiceDatabase: ServiceDatabase {
    public var dialect: SQLDialect { .postgres }
    private let client: PostgresClient
    private let running: Task<Void, Never>

    /// Connects to the database `url` names (`postgres://` or `postgresql://`, no TLS: a
    /// database on the nodes' private network or loopback).
    /// - Throws: `ServiceDatabaseError` for a URL that is not one, or a database that does
    ///   not answer `SELECT 1`.
    public init(url: String) async throws {
        guard let configuration = Self.configuration(url) else {
            throw ServiceDatabaseError(
                reason:
                    "--database must be postgres://USER[:PASSWORD]@HOST[:PORT]/NAME; received \(Self.redacted(url))",
                code: nil)
        }
        let client = PostgresClient(configuration: configuration)
        self.client = client
        running = Task { await client.run() }
        do {
            _ = try await execute("SELECT 1", [])
        } catch {
            running.cancel()
            throw ServiceDatabaseError(reason: "\(Self.redacted(url)) does not answer (\(error))", code: nil)
        }
    }

    public func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [ResultRow] {
        do {
            return try await client.withConnection { connection in
                try await connection.sql(queryLogLevel: nil).rows(sql, binds)
            }
        } catch let error as PSQLError {
            throw Self.translate(error)
        }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { connection in
                let database = connection.sql(queryLogLevel: nil)
                try await database.raw("BEGIN").run()
                do {
                    let result = try await body(OnConnection(database: database))
                    try await database.raw("COMMIT").run()
                    return result
                } catch {
                    try? await database.raw("ROLLBACK").run()
                    throw error
                }
            }
        } catch let error as PSQLError {
            throw Self.translate(error)
        }
    }

    public func close() async {
        running.cancel()
    }

    /// Statements on the connection that holds a transaction.
    private struct OnConnection: SQLExecutor {
        let database: any SQLDatabase
        func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [ResultRow] {
            do {
                return try await database.rows(sql, binds)
            } catch let error as PSQLError {
                throw PostgresServiceDatabase.translate(error)
            }
        }
    }

    fileprivate static func translate(_ error: PSQLError) -> ServiceDatabaseError {
        ServiceDatabaseError(
            reason: error.serverInfo?[.message] ?? String(reflecting: error), code: error.serverInfo?[.sqlState])
    }

    /// The client's settings from a `postgres://USER:PASSWORD@HOST:PORT/NAME` URL.
    static func configuration(_ url: String) -> PostgresClient.Configuration? {
        var rest = Substring(url)
        for scheme in ["postgres://", "postgresql://"] where rest.hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
        }
        guard rest.count < url.count, let at = rest.lastIndex(of: "@") else { return nil }
        let credentials = rest[..<at]
        let location = rest[rest.index(after: at)...]
        let user = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let slash = location.firstIndex(of: "/") else { return nil }
        let hostPort = location[..<slash]
        let name = location[location.index(after: slash)...].split(separator: "?").first.map(String.init) ?? ""
        let hostParts = hostPort.split(separator: ":", maxSplits: 1)
        guard let host = hostParts.first, !user[0].isEmpty, !name.isEmpty,
            let port = hostParts.count > 1 ? Int(hostParts[1]) : 5432, (1...65535).contains(port)
        else { return nil }
        return PostgresClient.Configuration(
            host: String(host), port: port, username: percentDecoded(user[0]),
            password: user.count > 1 ? percentDecoded(user[1]) : nil, database: name, tls: .disable)
    }

    /// The URL with its password hidden, for messages.
    public static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let schemeEnd = url.range(of: "://")?.upperBound,
            let colon = url[schemeEnd..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
