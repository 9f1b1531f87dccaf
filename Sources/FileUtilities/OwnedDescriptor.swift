import SystemPackage

/// An open file descriptor closed when the last reference goes: lets an opened file travel
/// from where it was checked to where it is read (another thread) without being reopened by
/// name, and never leak on a path that drops it (a cache hit, an error).
public final class OwnedDescriptor: Sendable {
    /// The descriptor; valid while this object lives.
    public let descriptor: FileDescriptor

    /// Takes ownership of `descriptor`.
    public init(_ descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    deinit {
        try? descriptor.close()
    }
}
