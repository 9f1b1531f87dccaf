import CardKit
import Foundation
import ImageCore
import Synchronization
import TestSupport
import Testing

@Suite(.libvips) struct FrameCatalogueTests {
    static let directory = Fixtures.root.appendingPathComponent("frames").path

    @Test func catalogueHasSixThemesOfThreeOrMore() throws {
        let catalogue = try FrameCatalogue(directory: Self.directory)
        #expect(catalogue.themes == ["birthday", "classic", "holidays", "love", "travel", "vintage"])
        #expect(catalogue.frames.count >= 18)
        for theme in catalogue.themes {
            #expect(catalogue.frames.filter { $0.theme == theme }.count >= 3, "\(theme)")
        }
        #expect(Set(catalogue.frames.map(\.orientation)) == [.landscape, .portrait])
    }

    /// Four workers asking for one overlay at once get it rasterised once, all the same.
    @Test func concurrentRequestsRasteriseOnce() throws {
        let catalogue = try FrameCatalogue(directory: Self.directory)
        let frame = try #require(catalogue.frame("travel/airmail"))
        let sizes = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let overlay = try? catalogue.overlay(frame, width: 1748, height: 1240, bleed: 0)
            sizes.withLock { $0.append(overlay?.alphaPixels.count ?? -1) }
        }
        let expected = Array(repeating: 1748 * 1240, count: 4)
        let got = sizes.withLock { $0 }
        #expect(got == expected)
        #expect(catalogue.rasterisations == 1)
    }

    /// Every frame: art renders at the card size, is transparent in the window, draws a border.
    @Test func everyFrameValidates() throws {
        let catalogue = try FrameCatalogue(directory: Self.directory)
        for frame in catalogue.frames {
            #expect(throws: Never.self, "\(frame.id)") { try catalogue.validateArt(frame) }
            let preview = frame.preview
            #expect(preview.width == 320)
            #expect(preview.window.x + preview.window.width <= preview.width)
        }
    }

    @Test func brokenManifestsAreNamed() throws {
        let directory = try Fixtures.scratchDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/classic", withIntermediateDirectories: true)
        let source = Self.directory + "/classic/gilded"
        try FileManager.default.copyItem(atPath: source + ".svg", toPath: directory + "/classic/gilded.svg")
        var manifest = try String(contentsOfFile: source + ".json", encoding: .utf8)
        manifest = manifest.replacingOccurrences(of: "\"width\": 1448", with: "\"width\": 1700")
        try manifest.write(toFile: directory + "/classic/gilded.json", atomically: true, encoding: .utf8)
        let error = #expect(throws: FrameCatalogueError.self) { try FrameCatalogue(directory: directory) }
        #expect(error?.description.contains("gilded.json: has a photo window") == true)

        // A window that the art covers is caught by the art check.
        manifest = try String(contentsOfFile: source + ".json", encoding: .utf8)
            .replacingOccurrences(of: "\"x\": 150", with: "\"x\": 20")
        try manifest.write(toFile: directory + "/classic/gilded.json", atomically: true, encoding: .utf8)
        let catalogue = try FrameCatalogue(directory: directory)
        let art = #expect(throws: FrameCatalogueError.self) { try catalogue.validateArt(catalogue.frames[0]) }
        #expect(art?.description.contains("not transparent in its photo window") == true)
    }
}
