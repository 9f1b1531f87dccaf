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
        let limiter = RateLimiter(rate: 1, burst: 20)
        let start = ContinuousClock.now
        #expect(limiter.wait("a", now: start) == nil)
        // 30 requests that all found credit before any was charged.
        for _ in 0..<30 { limiter.charge("a", now: start) }
        let wait = limiter.wait("a", now: start)
        #expect(wait == 11, "20 tokens, 30 charged: 10 owed and one to spend, at one a second")
        #expect(limiter.wait("a", now: start + .seconds(11)) == nil)
        #expect(limiter.wait("b", now: start) == nil, "another address is not charged")
    }

    @Test("an IPv4 client is its address; an IPv6 client its /64")
    func clientAddresses() throws {
        typealias Middleware = ServiceMiddleware<ServerRequestContext>
        #expect(Middleware.client(try SocketAddress(ipAddress: "192.0.2.7", port: 1)) == "192.0.2.7")
        let one = Middleware.client(try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1))
        let other = Middleware.client(try SocketAddress(ipAddress: "2001:db8:1:2:ffff::9", port: 1))
        let elsewhere = Middleware.client(try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1))
        #expect(one == other && one != elsewhere && one.hasSuffix("/64"), "\(one) \(other) \(elsewhere)")
        #expect(Middleware.client(nil) == "unknown")
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
