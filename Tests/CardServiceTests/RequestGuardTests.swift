import NIOCore
import ServerShell
import Testing

@testable import CardService
@testable import ThumbServer

/// The small guards in front of `/v1`, on their own: the failed-authentication bucket's debt,
/// the address a client is counted by, and the access log's redaction.
struct RequestGuardTests {
    @Test("failures sent at once are each charged: the debt locks the address out the longer")
    func chargedIntoDebt() {
        let limiter = RateLimiter(rate: 1, burst: 20, maxDebt: 10_000)
        let start = ContinuousClock.now
        #expect(limiter.wait("a", now: start) == nil)
        // 30 requests that all found credit before any was charged.
        for _ in 0..<30 { limiter.charge("a", now: start) }
        let wait = limiter.wait("a", now: start)
        #expect(wait == 11, "20 tokens, 30 charged: 10 owed and one to spend, at one a second")
        #expect(limiter.wait("a", now: start + .seconds(11)) == nil)
        #expect(limiter.wait("b", now: start) == nil, "another address is not charged")
    }

    @Test("an IPv4 client is its address, an IPv6 client its /64; a trusted proxy's X-Forwarded-For names the client")
    func clientAddresses() throws {
        func key(_ peer: String, _ forwarded: [String] = [], trusted: [String] = []) throws -> String {
            ClientAddress.key(
                peer: try SocketAddress(ipAddress: peer, port: 1), forwardedFor: forwarded,
                trusted: trusted.compactMap(AddressRange.init))
        }
        #expect(try key("192.0.2.7") == "192.0.2.7")
        let one = try key("2001:db8:1:2::1")
        let other = try key("2001:db8:1:2:ffff::9")
        let elsewhere = try key("2001:db8:1:3::1")
        #expect(one == other && one != elsewhere && one.hasSuffix("/64"), "\(one) \(other) \(elsewhere)")
        #expect(try key("::ffff:192.0.2.7") == "192.0.2.7", "a mapped IPv4 address is that address")
        #expect(ClientAddress.key(peer: nil, forwardedFor: [], trusted: []) == "unknown")
        // Not trusted: the header is the client's own word, ignored.
        #expect(try key("203.0.113.5", ["198.51.100.1"]) == "203.0.113.5")
        // Behind a trusted proxy: the rightmost address that is not one.
        #expect(try key("127.0.0.1", ["198.51.100.1"], trusted: ["127.0.0.1"]) == "198.51.100.1")
        #expect(
            try key("10.0.0.2", ["6.6.6.6, 198.51.100.1, 10.0.0.9"], trusted: ["10.0.0.0/8"]) == "198.51.100.1",
            "a client cannot name another address by writing the header itself")
        #expect(try key("10.0.0.2", ["6.6.6.6", "198.51.100.1"], trusted: ["10.0.0.0/8"]) == "198.51.100.1")
        #expect(try key("10.0.0.2", ["garbage"], trusted: ["10.0.0.0/8"]) == "10.0.0.2", "a hop that is no address")
        let forwardedV6 = try key("10.0.0.2", ["2001:db8:5:6::1"], trusted: ["10.0.0.0/8"])
        #expect(try forwardedV6 == key("2001:db8:5:6::7"))
        #expect(try key("fd00::1", ["192.0.2.44"], trusted: ["fd00::/8"]) == "192.0.2.44")
    }

    @Test("address ranges: CIDR in both families, an address alone, and what is not one")
    func addressRanges() throws {
        let ten = try #require(AddressRange("10.0.0.0/8"))
        #expect(ten.contains([10, 200, 3, 4]) && !ten.contains([11, 0, 0, 1]))
        #expect(ten.contains(Array(repeating: 0, count: 10) + [0xFF, 0xFF, 10, 1, 2, 3]), "v4-mapped")
        let one = try #require(AddressRange("192.0.2.7"))
        #expect(one.contains([192, 0, 2, 7]) && !one.contains([192, 0, 2, 8]))
        let v6 = try #require(AddressRange("2001:db8::/33"))
        #expect(v6.contains(try #require(AddressRange.parse("2001:db8:7fff::1"))))
        #expect(!v6.contains(try #require(AddressRange.parse("2001:db8:8000::1"))))
        #expect(AddressRange("0.0.0.0/0")?.contains([8, 8, 8, 8]) == true)
        for bad in ["", "10.0.0.0/33", "10.0.0/8", "::/129", "example.com", "10.0.0.0/-1", "10.0.0.0/٣"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
    }

    @Test("the access log redacts every part of a query that may hold a secret, however encoded")
    func redaction() {
        let cases: [(String, String)] = [
            ("/thumb/a.jpg?width=200&format=webp", "/thumb/a.jpg?width=200&format=webp"),
            ("/v1/cards?api_key=crk_1&limit=2", "/v1/cards?api_key=REDACTED&limit=2"),
            ("/v1/cards?crk_1", "/v1/cards?REDACTED"),
            ("/v1/cards?x=%63rk_1&q=1", "/v1/cards?x=REDACTED&q=1"),
            ("/v1/cards?%6B%65%79=hunter2", "/v1/cards?REDACTED"),
            ("/v1/cards?x=1;k=crk_1", "/v1/cards?x=REDACTED"),
            ("/v1/cards?q=%20crk_1&token=t&Session=s", "/v1/cards?q=REDACTED&token=REDACTED&Session=REDACTED"),
            ("/v1/cards?x=foocrk_1", "/v1/cards?x=REDACTED"),
            ("/v1/cards?password=+x", "/v1/cards?password=REDACTED"),
        ]
        for (target, logged) in cases {
            #expect(AccessLog.redacted(target) == logged, "\(target)")
        }
    }

    @Test("a query is read as the generated code reads it; a part that is not name=value is refused")
    func queries() throws {
        let read = try RequestValidator.queryParameters("%6Cimit=5&a+b=c%20d&e=")
        #expect(read.map(\.name) == ["limit", "a b", "e"] && read.map(\.value) == ["5", "c d", ""])
        for bad in ["foo", "a=1&", "&", "=1", "a=%ZZ"] {
            #expect(throws: Problem.self, "\(bad)") { try RequestValidator.queryParameters(bad) }
        }
    }
}
