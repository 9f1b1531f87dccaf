import ArgumentParser
import ImageCore

/// Input limits shared by the commands that read images.
struct DecodeOptions: ParsableArguments {
    @Option(help: "Refuse images whose header declares more pixels than this (checked before decoding).")
    var maxPixels: Int = DecodePolicy.default.maxPixels

    @Option(help: "Refuse files larger than this many bytes (checked before reading).")
    var maxFileSize: Int = DecodePolicy.default.maxFileBytes

    @Flag(help: "Render what decodes from damaged (e.g. truncated) images and warn, instead of failing them.")
    var lenient = false

    func validate() throws {
        guard maxPixels >= 1 else {
            throw ValidationError("--max-pixels must be at least 1; received \(maxPixels).")
        }
        guard maxFileSize >= 1 else {
            throw ValidationError("--max-file-size must be at least 1 byte; received \(maxFileSize).")
        }
    }

    /// The policy these options describe.
    var policy: DecodePolicy {
        DecodePolicy(maxPixels: maxPixels, maxFileBytes: maxFileSize, damage: lenient ? .warn : .fail)
    }
}

extension OutputFormat: ExpressibleByArgument {
    /// The same names the server's `format=` takes (`OutputFormat(name:)`).
    public init?(argument: String) {
        self.init(name: argument)
    }
}
