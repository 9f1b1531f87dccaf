import Foundation
import NIOCore
import RenderCache
import TestSupport
import Testing

@testable import ObjectStore

/// The S3 client against a real S3 server (SeaweedFS on 127.0.0.1, which checks every
/// signature): objects round-trip, `If-None-Match: *` lets exactly one of many writers
/// store a key, a wrong secret is refused with a clear error that never shows it, and a
/// store that does not answer is a transient error.
@Suite(.serialized, .enabled(if: SeaweedServer.binary != nil, SeaweedServer.missing))
struct S3ClientTests {
    @Test func objectsRoundTripAndOneWriterWins() async throws {
        let server = try SeaweedServer()
        defer { server.stop() }
        let client = server.client()
        try await server.createBucket("cards", with: client)
        let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try await client.putIfAbsent(bucket: "cards", key: "v1/ab/abcdef", body: body))
        #expect(try await client.putIfAbsent(bucket: "cards", key: "v1/ab/abcdef", body: [1, 2, 3]) == false)
        #expect(try await client.get(bucket: "cards", key: "v1/ab/abcdef") == body, "the first writer's bytes")
        let info = try #require(try await client.head(bucket: "cards", key: "v1/ab/abcdef"))
        #expect(info.size == body.count)
        #expect(info.sha256 == ContentDigest.of(body), "the SHA-256 it was stored with")
        #expect(!info.etag.isEmpty && info.modified > 1_700_000_000)
        #expect(try await client.putIfAbsent(bucket: "cards", key: "other/plain", body: [7, 8, 9], checksum: false))
        #expect(try await client.head(bucket: "cards", key: "other/plain")?.sha256 == nil, "stored without one")
        #expect(try await client.get(bucket: "cards", key: "v1/ab/none") == nil)
        #expect(try await client.head(bucket: "cards", key: "v1/ab/none") == nil)

        // Eight writers of one new key at once: exactly one stores it.
        let stored = try await withThrowingTaskGroup(of: Bool.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    try await client.putIfAbsent(bucket: "cards", key: "v1/cd/race", body: [UInt8(writer)])
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(stored == 1)

        let listed = try await client.list(bucket: "cards", prefix: "v1/")
        #expect(Set(listed.map(\.key)) == ["v1/ab/abcdef", "v1/cd/race"])
        #expect(listed.first { $0.key == "v1/ab/abcdef" }?.size == body.count)
        try await client.delete(bucket: "cards", key: "v1/ab/abcdef")
        try await client.delete(bucket: "cards", key: "v1/ab/abcdef")  // a missing object: no error
        #expect(try await client.get(bucket: "cards", key: "v1/ab/abcdef") == nil)
    }

    @Test func aWrongSecretIsRefusedAndNeverShown() async throws {
        let server = try SeaweedServer()
        defer { server.stop() }
        try await server.createBucket("cards")
        let wrong = server.client(secret: "not-the-secret-987")
        let error = await #expect(throws: S3Error.self) {
            _ = try await wrong.putIfAbsent(bucket: "cards", key: "v1/ab/x", body: [1])
        }
        #expect(error?.isCredentialError == true, "\(String(describing: error))")
        #expect(error?.isTransient == false)
        let text = error.map { "\($0)" } ?? ""
        #expect(!text.contains("not-the-secret") && text.contains("AWS_SECRET_ACCESS_KEY"), "\(text)")
        #expect(try await server.client().get(bucket: "cards", key: "v1/ab/x") == nil, "nothing was stored")
    }

    @Test func aStoreThatDoesNotAnswerIsTransient() async throws {
        let port = try SeaweedServer.freePorts(1)[0]  // nothing listens there
        var client = S3Client(
            endpoint: "http://127.0.0.1:\(port)",
            signer: SigV4Signer(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "b"), region: "r"))
        client.attempts = 2
        client.timeout = .seconds(2)
        let error = await #expect(throws: S3Error.self) { _ = try await client.get(bucket: "b", key: "k") }
        #expect(error?.isTransient == true, "\(String(describing: error))")
    }
}
