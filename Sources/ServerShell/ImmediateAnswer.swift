import HTTPTypes
import NIOCore
import SystemPackage

/// An answer written on the event loop that read its request (`ImmediateAnswerHandler`):
/// status, headers, and the body in memory or from a file (nil for a 304 or a HEAD).
package struct ImmediateAnswer: Sendable {
    package let status: HTTPResponse.Status
    package let headers: HTTPFields
    package let body: ByteBuffer?
    /// A body to send from a file instead (`body` is then nil), by sendfile; whoever writes
    /// the answer closes the descriptor.
    package var file: FileBody?

    package init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer?, file: FileBody? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.file = file
    }

    /// `length` bytes at `offset` of the open file `descriptor`.
    package struct FileBody: Sendable {
        package let descriptor: SystemPackage.FileDescriptor
        package let offset: Int
        package let length: Int

        package init(descriptor: SystemPackage.FileDescriptor, offset: Int, length: Int) {
            self.descriptor = descriptor
            self.offset = offset
            self.length = length
        }
    }
}
