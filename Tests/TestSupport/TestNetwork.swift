import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Test hosts on one machine: each a network namespace (`ip netns`) joined to this one by a
/// veth pair on its own /24 of 10.77.0.0/16 (this side .1, the host .2, its default route
/// through .1). The hosts reach each other's .1 addresses through this namespace, where a
/// server for all of them (a database, a store) listens on `hosts[0].gateway`. Removed by
/// `remove()` (deleting a namespace deletes its veth pair).
public final class TestNetwork: Sendable {
    /// One test host.
    public struct Host: Sendable {
        /// Its namespace's name.
        public let namespace: String
        /// Its address (10.77.N.2).
        public let address: String
        /// This namespace's address on its link (10.77.N.1).
        public let gateway: String

        /// `argv` run inside the host (`ip netns exec` execs it: the pid is the program's).
        public func command(_ argv: [String]) -> (String, [String]) {
            (TestNetwork.ip, ["netns", "exec", namespace] + argv)
        }
    }

    static let ip = "/usr/sbin/ip"

    /// Why the network cannot be made here, or nil when it can (root and iproute2).
    public static let unavailable: String? = {
        guard geteuid() == 0 else { return "test hosts need root (ip netns)" }
        guard FileManager.default.isExecutableFile(atPath: ip) else {
            return "iproute2 is not installed: run `bash scripts/setup-tests.sh`"
        }
        return nil
    }()

    public let hosts: [Host]
    /// Every host's /24 (for a server's allow list).
    public let network = "10.77.0.0/16"

    /// Makes `count` hosts.
    /// - Throws: `Tools.ToolError` with the failing command's message.
    public init(hosts count: Int) throws {
        let tag = String(UInt32.random(in: 0..<0xFFFF), radix: 16)
        let base = Int.random(in: 0..<(250 / max(1, count)))
        var made: [Host] = []
        do {
            for index in 0..<count {
                let subnet = base * count + index + 1
                let host = Host(
                    namespace: "crt-\(tag)-\(index)", address: "10.77.\(subnet).2", gateway: "10.77.\(subnet).1")
                let outside = "crt\(tag)h\(index)"
                let inside = "crt\(tag)n\(index)"
                try Self.run(["netns", "add", host.namespace])
                made.append(host)
                try Self.run(["link", "add", outside, "type", "veth", "peer", "name", inside])
                try Self.run(["link", "set", inside, "netns", host.namespace])
                try Self.run(["addr", "add", host.gateway + "/24", "dev", outside])
                try Self.run(["link", "set", outside, "up"])
                for argv in [
                    ["addr", "add", host.address + "/24", "dev", inside], ["link", "set", inside, "up"],
                    ["link", "set", "lo", "up"], ["route", "add", "default", "via", host.gateway],
                ] {
                    try Self.run(["netns", "exec", host.namespace, Self.ip] + argv)
                }
            }
        } catch {
            for host in made { _ = try? Tools.run(Self.ip, ["netns", "del", host.namespace]) }
            throw error
        }
        hosts = made
    }

    /// Deletes the hosts (and their links).
    public func remove() {
        for host in hosts { _ = try? Tools.run(Self.ip, ["netns", "del", host.namespace]) }
    }

    private static func run(_ arguments: [String]) throws {
        let run = try Tools.run(ip, arguments)
        guard run.status == 0 else {
            throw Tools.ToolError(message: "ip \(arguments.joined(separator: " ")): \(run.stderr)")
        }
    }
}
