/// What a `put` did.
public enum PutOutcome: Sendable, Equatable {
    /// The object is stored now.
    case stored
    /// An object was already stored under the key; it was left as it was.
    case alreadyPresent
}
