import ArgumentParser
import CardKit
import VipsKit

/// The `cardrender` command: postcards for print and thumbnails for the web, on libvips.
@main
struct CardRender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardrender",
        abstract: "Render postcards for print and thumbnails for the web, on libvips.",
        version: "cardrender \(CardRenderVersion.string) (libvips \(Vips.compiledVersion))",
        subcommands: [RenderCommand.self, ThumbCommand.self, FramesCommand.self, CacheCommand.self]
    )

    /// Starts libvips before argument parsing and any thread: see `Vips.start`.
    ///
    static func main() {
        Vips.limitMallocArenas(2)
        Vips.start()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
