import FileUtilities

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A printing condition a CMYK file is separated for: the characterised condition's
/// registered name and the ICC profile built from its data, with the total ink limit the
/// separation keeps (`press/profiles/README.md` says how each profile was made).
public struct PressCondition: Sendable, Hashable, Encodable {
    /// The registered characterisation (`OutputConditionIdentifier`): `FOGRA39`, `CGATS TR 006`.
    public var identifier: String
    /// A readable description (`/Info` of the output intent).
    public var description: String
    /// Where the identifier is registered.
    public var registry: String
    /// Most total ink (C+M+Y+K, percent) any pixel may carry.
    public var inkLimit: Int
    /// The ICC output profile (CMYK), embedded in every PDF as its output intent.
    public let profile: [UInt8]
    /// The profile's file name, for messages.
    public var profileName: String
    /// FNV-1a (64 bits) of the profile: enough to tell two profile files apart in a key that
    /// also names the condition (not a security boundary: the profiles are ours).
    public let profileDigest: String

    public init(
        identifier: String, description: String, registry: String = "http://www.color.org", inkLimit: Int,
        profile: [UInt8], profileName: String
    ) {
        self.identifier = identifier
        self.description = description
        self.registry = registry
        self.inkLimit = inkLimit
        self.profile = profile
        self.profileName = profileName
        profileDigest = String(StableHash.fnv1a(profile), radix: 16)
    }

    /// The bundled conditions by their profile file (`FOGRA39-TAC300.icc`,
    /// `GRACoL2006-TAC300.icc`), read from `directory`.
    /// - Throws: `PressProfileError` naming the file when it cannot be read.
    public static func bundled(in directory: String) throws -> (fogra39: PressCondition, gracol2006: PressCondition) {
        (
            try PressCondition(
                identifier: "FOGRA39",
                description: "Coated FOGRA39 (ISO 12647-2:2004), offset on coated paper; total ink 300 %",
                inkLimit: 300, file: directory + "/FOGRA39-TAC300.icc"),
            try PressCondition(
                identifier: "CGATS TR 006",
                description: "GRACoL 2006 Coated #1 (CGATS TR 006), offset on grade 1 coated paper; total ink 300 %",
                inkLimit: 300, file: directory + "/GRACoL2006-TAC300.icc")
        )
    }

    /// A condition whose profile is read from `file`.
    private init(identifier: String, description: String, inkLimit: Int, file: String) throws {
        guard let data = FileManager.default.contents(atPath: file), data.count <= 4 << 20 else {
            throw PressProfileError(file: file, problem: "cannot be read (or is over 4 MiB)")
        }
        let bytes = [UInt8](data)
        guard bytes.count >= 128, Array(bytes[36..<40]) == Array("acsp".utf8),
            Array(bytes[16..<20]) == Array("CMYK".utf8)
        else {
            throw PressProfileError(file: file, problem: "is not a CMYK ICC profile")
        }
        self.init(
            identifier: identifier, description: description, inkLimit: inkLimit, profile: bytes,
            profileName: String(file.split(separator: "/").last ?? Substring(file)))
    }

    public static func == (left: PressCondition, right: PressCondition) -> Bool {
        left.identifier == right.identifier && left.inkLimit == right.inkLimit
            && left.profileDigest == right.profileDigest && left.profile == right.profile
            && left.description == right.description && left.registry == right.registry
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(inkLimit)
        hasher.combine(profileDigest)
    }

    private enum CodingKeys: String, CodingKey {
        case identifier, description, registry, inkLimit, profileDigest
    }

    /// Encoded for the cache key with the profile's FNV-1a digest in place of its bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(description, forKey: .description)
        try container.encode(registry, forKey: .registry)
        try container.encode(inkLimit, forKey: .inkLimit)
        try container.encode(profileDigest, forKey: .profileDigest)
    }

}

/// A press profile or its printing condition cannot be used.
public struct PressProfileError: Error, CustomStringConvertible, Sendable {
    public let file: String
    public let problem: String
    public var description: String { "\(file): \(problem)" }
}
