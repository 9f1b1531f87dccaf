import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to 127.0.0.1, for sending what no HTTP client sends: half a
/// request line, nothing at all, bytes one at a time.
public final class RawConnection: Sendable {
    public let descriptor: Int32

    /// Connects to `127.0.0.1:port`.
    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends `text` as it is.
    public func send(_ text: String) {
        _ = text.withCString { Glibc.send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// What arrives until the server closes the connection or `seconds` pass with nothing
    /// more; `closed` tells which. (A bound on waiting, not a guess: a server that keeps its
    /// promise closes well within it.)
    public func readUntilClosed(within seconds: Double) -> (data: Data, closed: Bool) {
        var data = Data()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // Past the deadline, what has already arrived is still read (a starved reader is
            // not a silent server).
            let expired = Date() >= deadline
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = expired ? 0 : Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, remaining) > 0 else {
                if expired { break }
                continue
            }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (data, true) }
            data.append(contentsOf: buffer[0..<count])
        }
        return (data, false)
    }

    /// Whether anything arrives (or the connection closes) within `seconds`.
    public func hasAnswer(within seconds: Double) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, Int32(seconds * 1000)) > 0
    }

    /// `readUntilClosed(within:)` on a thread of its own: the wait holds none of Swift's
    /// cooperative threads, which the server under test needs to answer.
    public func readUntilClosed(within seconds: Double) async -> (data: Data, closed: Bool) {
        (try? await Tools.onWorkerThread { self.readUntilClosed(within: seconds) }) ?? (Data(), false)
    }

    /// `hasAnswer(within:)` on a thread of its own (see `readUntilClosed`).
    public func hasAnswer(within seconds: Double) async -> Bool {
        (try? await Tools.onWorkerThread { self.hasAnswer(within: seconds) }) ?? false
    }
}
