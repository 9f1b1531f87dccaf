import ArgumentParser
import CardKit
import VipsKit

/// The `cardrender` command: postcards for print and thumbnails for the web, on libvips.
@main
struct CardRender: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardrender",
        abstract: "Render postcards for print and thumbnails for the web, on libvips.",
        version: "cardrender \(CardRenderVersion.string) (libvips \(Vips.compiledVersion))",
        subcommands: [
            RenderCommand.self, ThumbCommand.self, ServeCommand.self, SignCommand.self, FramesCommand.self,
            CacheCommand.self, RunsCommand.self, PreflightCommand.self, ImposeCommand.self, KeysCommand.self,
            ScanCommand.self,
        ]
    )

    /// Starts libvips before argument parsing and any thread: see `Vips.start`.
    ///
    static func main() async {
        Vips.limitMallocArenas(2)
        Vips.start()
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
