import ArgumentParser
import CardKit
import ImageCore
import ThumbServer
import Thumbnails

/// What `cardrender serve` adds for web pages: per-format quality, presets, Client Hints,
/// animation, a fallback image and cross-origin headers (docs/thumbnails.md).
struct WebThumbnailOptions: ParsableArguments {
    @Option(help: "JPEG quality when a URL names none for JPEG (default 85).")
    var qualityJpeg: Int?

    @Option(help: "WebP quality when a URL names none for WebP (default 80).")
    var qualityWebp: Int?

    @Option(help: "AVIF quality when a URL names none for AVIF (default 60).")
    var qualityAvif: Int?

    @Option(
        help: ArgumentHelp(
            "A named set of parameters for preset=NAME, e.g. card=width=400,height=300,fit=cover (repeatable).",
            valueName: "name=params"))
    var preset: [String] = []

    @Flag(help: "Refuse every parameter but preset=NAME (bounded variants without signing).")
    var presetsOnly = false

    @Flag(help: "Read Sec-CH-Width and Sec-CH-DPR (with --widths), answering Accept-CH and Vary.")
    var clientHints = false

    @Option(help: ArgumentHelp("The widths hinted sizes snap up to, e.g. 320,640,960,1280.", valueName: "list"))
    var widths: String?

    @Option(help: "The most frames an animated answer keeps (the first ones).")
    var maxFrames = 200

    @Option(
        help: ArgumentHelp(
            "Answer this image, fitted to the box, for a missing, refused or damaged photo (with the true status).",
            valueName: "file"))
    var fallbackImage: String?

    @Option(
        help: ArgumentHelp(
            "Add Access-Control-Allow-Origin and Timing-Allow-Origin for this origin, or * (repeatable).",
            valueName: "origin"))
    var allowOrigin: [String] = []

    /// `--widths` read, ascending.
    var widthList: [Int] {
        (widths ?? "").split(separator: ",").compactMap { Int($0.trimmingPrefix(" ")) }.sorted()
    }

    func validate() throws {
        for (name, value) in [("jpeg", qualityJpeg), ("webp", qualityWebp), ("avif", qualityAvif)] {
            if let value, !(1...100).contains(value) {
                throw ValidationError("--quality-\(name) must be from 1 to 100; received \(value).")
            }
        }
        guard maxFrames >= 1 else { throw ValidationError("--max-frames must be at least 1; received \(maxFrames).") }
        if let widths {
            let items = widths.split(separator: ",", omittingEmptySubsequences: false)
            guard !items.isEmpty, items.allSatisfy({ Int($0).map { $0 >= 1 } ?? false }) else {
                throw ValidationError("--widths: expected whole numbers separated by commas; received '\(widths)'.")
            }
        }
        if clientHints && widthList.isEmpty {
            throw ValidationError(
                "--client-hints needs --widths (hinted widths snap to it; unsnapped hints multiply variants).")
        }
        if presetsOnly && preset.isEmpty {
            throw ValidationError("--presets-only needs at least one --preset.")
        }
        for origin in allowOrigin where origin != "*" {
            guard (origin.hasPrefix("http://") || origin.hasPrefix("https://")), !origin.dropFirst(8).contains("/")
            else {
                throw ValidationError(
                    "--allow-origin: expected * or an origin such as https://example.com (scheme and host, no path); received '\(origin)'."
                )
            }
        }
    }

    /// Writes these options into `configuration`.
    /// - Throws: `ValidationError` for a preset that does not parse, a width above
    ///   `--max-width`, or a fallback image that cannot be read or decoded.
    func apply(to configuration: inout ThumbConfiguration) throws {
        var qualities: [OutputFormat: Int] = [:]
        qualities[.jpeg] = qualityJpeg
        qualities[.webp] = qualityWebp
        qualities[.avif] = qualityAvif
        configuration.qualities = qualities
        for text in preset {
            do {
                let (name, parameters) = try ThumbParameters.preset(text, maxWidth: configuration.maxWidth)
                guard configuration.presets[name] == nil else {
                    throw ValidationError("--preset \(name): defined twice.")
                }
                configuration.presets[name] = parameters
            } catch let error as ThumbParameterError {
                throw ValidationError("--preset \(text): \(error.message)")
            }
        }
        configuration.presetsOnly = presetsOnly
        configuration.clientHints = clientHints
        configuration.widths = widthList
        if let widest = widthList.last, widest > configuration.maxWidth {
            throw ValidationError("--widths: \(widest) is above --max-width \(configuration.maxWidth).")
        }
        configuration.maxFrames = maxFrames
        configuration.allowedOrigins = allowOrigin
        if let path = fallbackImage {
            do {
                let image = try ImageData(contentsOfFile: path, maxBytes: configuration.policy.maxFileBytes)
                // Made once now, so that a fallback that cannot be drawn stops the server at start.
                _ = try Thumbnailer(policy: configuration.policy).thumbnail(of: image, width: 16)
                configuration.fallbackImage = image
            } catch {
                throw ValidationError("--fallback-image \(path): \(error)")
            }
        }
    }
}
