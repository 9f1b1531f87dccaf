import ArgumentParser
import CardKit
import FileUtilities
import ImageCore
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `cardrender frames`: the frame catalogue, as a list, as JSON, or as rendered previews.
struct FramesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "List the frame catalogue, or render a preview of every frame.")

    @Flag(help: "Print the manifests as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Render every frame with a sample photo into this directory.", valueName: "dir"))
    var preview: String?

    @Option(help: ArgumentHelp("The photo used for previews (default: a bundled sample).", valueName: "file"))
    var photo: String?

    @Option(help: ArgumentHelp("The frame catalogue directory (default: the bundled frames/).", valueName: "dir"))
    var frames: String?

    func run() throws {
        let catalogue: FrameCatalogue
        do {
            catalogue = try FrameCatalogue(directory: Resources.framesDirectory(frames))
        } catch {
            Console.error("cardrender: \(error)")
            throw ExitCode(1)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.out(String(decoding: try encoder.encode(catalogue.frames), as: UTF8.self))
        } else if preview == nil {
            for frame in catalogue.frames {
                let effect = frame.effect.map { ", \($0.rawValue)" } ?? ""
                Console.out("\(frame.id)\t\(frame.title) (\(frame.orientation.rawValue)\(effect))")
            }
            Console.out(
                "\(catalogue.frames.count) frames in \(catalogue.themes.count) themes: \(catalogue.themes.joined(separator: ", "))"
            )
        }
        if let preview { try renderPreviews(catalogue, into: preview) }
    }

    private func renderPreviews(_ catalogue: FrameCatalogue, into directory: String) throws {
        guard let photoPath = photo ?? Resources.samplePhoto() else {
            throw ValidationError("No sample photo found; give one with --photo FILE.")
        }
        let data = try ImageData(contentsOfFile: photoPath, maxBytes: DecodePolicy.default.maxFileBytes)
        var failed = 0
        for frame in catalogue.frames {
            let renderer = CardRenderer(
                catalogue: catalogue, settings: CardSettings(smallWidth: frame.preview.width))
            let path = FilePath(directory).appending(frame.theme).appending(
                FilePath.Component(frame.id.split(separator: "/").last.map(String.init)! + ".png")!
            ).string
            do {
                try FileManager.default.createDirectory(
                    atPath: FilePath(path).removingLastComponent().string, withIntermediateDirectories: true)
                let card = try renderer.render(photo: data, spec: CardSpec(frame: frame.id), specFile: "preview")
                try AtomicFile.write(card.front.small, to: path)
                Console.out(path)
            } catch {
                failed += 1
                Console.error("cardrender: \(frame.id): \(error)")
            }
        }
        if failed > 0 { throw ExitCode(1) }
    }
}
