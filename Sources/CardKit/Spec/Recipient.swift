import Mail

/// One addressee of a card (one back is printed per recipient), or its sender: postal data
/// from the `Mail` target, written out by `AddressBlock` for its destination.
public typealias Recipient = PostalAddress
