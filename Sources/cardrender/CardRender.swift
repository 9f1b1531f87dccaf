import ArgumentParser
import VipsKit

/// The `cardrender` command: postcards for print and thumbnails for the web, on libvips.
@main
struct CardRender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardrender",
        abstract: "Render postcards for print and thumbnails for the web, on libvips.",
        version: "cardrender \(CardRenderVersion.string) (libvips \(Vips.version))",
        subcommands: [ThumbCommand.self]
    )
}
