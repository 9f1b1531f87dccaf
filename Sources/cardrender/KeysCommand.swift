import ArgumentParser
import CardService

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `cardrender keys create | list | revoke | rotate`: the postcard service's API keys.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the postcard service's API keys.",
        discussion: """
            Only a key's hash is kept: a secret is printed once, by create and rotate. A revoked \
            or rotated secret is refused by every node from its next request on.
            """,
        subcommands: [Create.self, List.self, Revoke.self, Rotate.self]
    )

    /// Runs `body` with the book of `options`' database, closed afterwards; exits 64 when
    /// the database cannot be opened.
    static func withBook<T>(_ options: ServiceOptions, _ body: (OrderBook) async throws -> T) async throws -> T {
        let database: any ServiceDatabase
        do {
            database = try await options.openDatabase()
        } catch {
            Console.error("cardrender: the postcard service's database cannot be used: \(error)")
            throw ExitCode(64)
        }
        do {
            let result = try await body(OrderBook(database: database))
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    /// The one key `name` names (an id, or a name only one key has), or exits 1 saying why.
    static func one(_ name: String, in book: OrderBook) async throws -> OrderBook.KeyInfo {
        let found = try await book.keys(named: name)
        guard found.count == 1, let key = found.first else {
            if found.isEmpty {
                Console.error("cardrender: no key is named or has the id '\(name)' (cardrender keys list shows them).")
            } else {
                Console.error(
                    "cardrender: \(found.count) keys are named '\(name)': give one's id ("
                        + found.map(\.id).joined(separator: ", ") + ").")
            }
            throw ExitCode(1)
        }
        return key
    }

    static func validate(_ postcards: ServiceOptions) throws {
        guard postcards.isOn else { throw ValidationError("Give --data DIR or --database URL: where the keys are.") }
    }

    /// `keys create NAME`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an API key: the key alone is printed on standard output, once; only its hash is kept.",
            discussion: "Send it as 'Authorization: Bearer KEY'. A key sees only its own photos, cards and runs.")

        @Argument(help: "A name for the key (who it is for), kept beside its hash.")
        var name: String

        @OptionGroup var postcards: ServiceOptions

        func validate() throws {
            try KeysCommand.validate(postcards)
            guard !name.isEmpty, name.utf8.count <= 200 else {
                throw ValidationError("The name must have 1 to 200 bytes; received \(name.utf8.count).")
            }
            // One line of `keys list` each: no tab, line break or other control character.
            guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ValidationError("The name may not hold tabs, line breaks or other control characters.")
            }
        }

        func run() async throws {
            let key = try await KeysCommand.withBook(postcards) { try await $0.createKey(name: name) }
            print(key.secret)
            Console.error("cardrender: created the key \(key.id) (\(name)); it is printed above, once.")
        }
    }

    /// `keys list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the keys: id, name, created, and revoked or rotated (never a secret: none is kept).")

        @OptionGroup var postcards: ServiceOptions

        func validate() throws { try KeysCommand.validate(postcards) }

        func run() async throws {
            let keys = try await KeysCommand.withBook(postcards) { try await $0.keys() }
            print("ID\tNAME\tCREATED\tSTATUS")
            for key in keys {
                var status = key.revoked.map { "revoked \(Self.time($0))" } ?? "in use"
                if key.revoked == nil, let rotated = key.rotated { status += ", rotated \(Self.time(rotated))" }
                print("\(key.id)\t\(key.name)\t\(Self.time(key.created))\t\(status)")
            }
        }

        /// Milliseconds since 1970 as an ISO 8601 UTC time.
        static func time(_ milliseconds: Int) -> String {
            Date(timeIntervalSince1970: Double(milliseconds) / 1000).ISO8601Format()
        }
    }

    /// `keys revoke NAME`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key: its secret is refused from now on; its photos, cards and runs stay.")

        @Argument(help: "The key's id, or its name when only one key has it.")
        var name: String

        @OptionGroup var postcards: ServiceOptions

        func validate() throws { try KeysCommand.validate(postcards) }

        func run() async throws {
            let (key, revoked) = try await KeysCommand.withBook(postcards) { book in
                let key = try await KeysCommand.one(name, in: book)
                return (key, try await book.revokeKey(id: key.id))
            }
            guard revoked else {
                Console.error("cardrender: the key \(key.id) (\(key.name)) was revoked already.")
                throw ExitCode(1)
            }
            Console.error("cardrender: revoked the key \(key.id) (\(key.name)).")
        }
    }

    /// `keys rotate NAME`.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a key a new secret, printed once on standard output; the old one is refused from now on.",
            discussion: "The key keeps its id: its photos, cards and runs stay its own.")

        @Argument(help: "The key's id, or its name when only one key has it.")
        var name: String

        @OptionGroup var postcards: ServiceOptions

        func validate() throws { try KeysCommand.validate(postcards) }

        func run() async throws {
            let (key, rotated) = try await KeysCommand.withBook(postcards) { book in
                let key = try await KeysCommand.one(name, in: book)
                return (key, try await book.rotateKey(id: key.id))
            }
            guard let secret = rotated else {
                Console.error("cardrender: the key \(key.id) (\(key.name)) is revoked; create a new one instead.")
                throw ExitCode(1)
            }
            print(secret)
            Console.error("cardrender: the key \(key.id) (\(key.name)) has a new secret, printed above, once.")
        }
    }
}
