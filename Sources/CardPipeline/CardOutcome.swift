import CardKit
import ImageCore
import Mail
import PhotoSources

/// What happened to one card of a batch: its outputs and measurements, or its error.
public struct CardOutcome: Sendable, Codable, Equatable {
    /// Output files, relative to the output directory.
    public struct Outputs: Sendable, Codable, Equatable {
        public var print: String
        public var sample: String
        public var small: String
    }

    /// Pixel sizes of the outputs.
    public struct Sizes: Sendable, Codable, Equatable {
        public var print: Size
        public var sample: Size
        public var small: Size
    }

    /// Where an automatic placement (`"transform": "auto"`, `--placement auto`) put the photo.
    public struct Placement: Sendable, Codable, Equatable {
        /// The transform, as a spec writes it.
        public struct Transform: Sendable, Codable, Equatable {
            public struct Offset: Sendable, Codable, Equatable {
                public var x: Double
                public var y: Double
            }
            public var scale: Double
            public var rotation: Double
            public var offset: Offset
        }
        public var transform: Transform
        /// Why: "2 faces kept", "most detail (no face found)", ...
        public var reason: String

        /// The report's form of `chosen`.
        public init(_ chosen: FirstPlacement) {
            guard case .transform(let scale, let rotation, let x, let y) = chosen.placement else {
                preconditionFailure("FirstPlacement is always a transform")
            }
            transform = Transform(scale: scale, rotation: rotation, offset: Transform.Offset(x: x, y: y))
            reason = chosen.reason
        }
    }

    /// The photo (or the spec, when the photo could not be found).
    public var input: String
    /// The input's path relative to its input root: what names it in a run's manifests
    /// and decides its shard.
    public var item: String?
    /// The spec file, if the card had one.
    public var spec: String?
    /// The three files, when rendered.
    public var outputs: Outputs?
    /// Their sizes.
    public var sizes: Sizes?
    /// The backs' files (one per recipient), when the card has a message or recipients.
    public var versos: [Outputs]?
    /// Photo pixels per printed inch.
    public var effectiveDPI: Double?
    /// `good` or `bad` for print.
    public var quality: PrintQuality?
    /// The frame used.
    public var frame: String?
    /// The effect used.
    public var effect: String?
    /// The placement chosen, when the spec asked for an automatic one.
    public var placement: Placement?
    /// Which pixel path rendered the front: `fast` or `general`.
    public var path: RenderPath?
    /// Whether the outputs came from the disk cache (nil: no cache in use).
    public var cached: Bool?
    /// The cache key of the card (nil: no cache in use).
    public var key: String?
    /// The SHA-256 of every file written, by its path relative to the output directory
    /// (only when the batch records digests, as a run does).
    public var digests: [String: String]?
    /// Render and write time in seconds.
    public var seconds: Double = 0
    /// Why the card failed: one sentence naming the file and the cause.
    public var error: String?
    /// Set when damaged data was rendered leniently.
    public var warning: String?
    /// `postcard` or `letter`: how the post carries the card (from its size; docs/mail.md).
    public var mailClass: MailClass?
    /// What the post may do with the card, one sentence each (an international card without
    /// a sender, a letter-sized card abroad): the card is still rendered.
    public var postalWarnings: [String]?
    /// Set when the machine failed, not the input (a full disk): the card should be
    /// rendered again by a later run rather than given up on.
    public var temporary: Bool?
    /// Set when the card failed through cardrender's own defect after its photo decoded
    /// (placing, an effect, the blend, an encoder: `CardRenderFailure`), never the input's.
    public var defect: Bool?

    public init(input: String, spec: String?) {
        self.input = input
        self.spec = spec
    }
}
