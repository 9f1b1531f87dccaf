import Foundation
import ImageCore
import PressKit
import TestSupport
import Testing

@testable import CardKit

/// The first placement (`"transform": "auto"`) on photos whose faces are known
/// (Tests/faces: labelled by hand, see its README), and on the corpus's photos without faces.
@Suite(
    .libvips,
    .enabled(
        if: FileManager.default.fileExists(atPath: FaceDetector.haarCascade),
        "OpenCV's cascades (Debian opencv-data) are not installed"))
struct FirstPlacementTests {
    static let faces = Fixtures.root.path + "/Tests/faces"

    /// A labelled box, `{x, y, width, height}` in pixels of the file.
    struct Box: Decodable, Equatable {
        let x, y, width, height: Double
        func overlap(_ other: Box) -> Double {
            let width = max(0, min(x + self.width, other.x + other.width) - max(x, other.x))
            let height = max(0, min(y + self.height, other.y + other.height) - max(y, other.y))
            let shared = width * height
            return shared / (self.width * self.height + other.width * other.height - shared)
        }
    }

    static func labels() throws -> [String: [Box]] {
        try JSONDecoder().decode(
            [String: [Box]].self, from: Data(contentsOf: URL(fileURLWithPath: faces + "/faces.json")))
    }

    static let catalogue = Result { try FrameCatalogue(directory: Fixtures.root.path + "/frames") }

    static func photo(_ name: String) throws -> ImageData {
        ImageData(copying: try Data(contentsOf: URL(fileURLWithPath: faces + "/" + name)), name: name)
    }

    /// Where a point of the upright photo lands in the window (window pixels from its
    /// top-left corner), for a transform without a turn.
    static func inWindow(
        _ point: (Double, Double), placed: FirstPlacement, photo: (width: Double, height: Double)
    ) -> (Double, Double) {
        guard case .transform(let scale, let rotation, let x, let y) = placed.placement else {
            Issue.record("a first placement is a transform")
            return (0, 0)
        }
        #expect(rotation == 0)
        let window = (width: Double(placed.window.width), height: Double(placed.window.height))
        let s = max(window.width / photo.width, window.height / photo.height) * scale
        return (
            window.width / 2 + x * window.width + (point.0 - photo.width / 2) * s,
            window.height / 2 + y * window.height + (point.1 - photo.height / 2) * s
        )
    }

    @Test(
        "the detector finds every labelled face and nothing else",
        arguments: [
            "astronaut-512x512.jpg",
            "astronaut-top-right-1200x1800.jpg", "two-astronauts-2400x1200.jpg",
        ])
    func findsTheLabelledFaces(file: String) throws {
        let labels = try #require(try Self.labels()[file])
        // A wide window (a landscape card): every face fits its safe area together.
        let renderer = CardRenderer(catalogue: nil)
        let placed = try renderer.firstPlacement(
            photo: try Self.photo(file), spec: CardSpec(format: CardFormat(size: .a6)), specFile: "spec")
        #expect(placed.faces.count == labels.count, "\(placed.faces)")
        for label in labels {
            let best =
                placed.faces.map {
                    Box(x: Double($0.x), y: Double($0.y), width: Double($0.width), height: Double($0.height)).overlap(
                        label)
                }.max() ?? 0
            #expect(best >= 0.5, "the label \(label) overlaps the best face found by \(best) (IoU)")
        }
        #expect(placed.reason == "\(labels.count) \(labels.count == 1 ? "face" : "faces") kept")
    }

    /// Every frame's window and the frameless card: each kept face's labelled box ends up
    /// whole in the window and inside its safe area (5 % in from each edge) as far as the
    /// photo, covering the window, can move; centring would cut it in some of them.
    @Test("kept faces are whole and inside the safe area of every frame's window")
    func facesStayInsideTheSafeArea() throws {
        let catalogue = try Self.catalogue.get()
        let file = "astronaut-top-right-1200x1800.jpg"
        let label = try #require(try Self.labels()[file]?.first)
        let photo = (width: 1200.0, height: 1800.0)
        let renderer = CardRenderer(catalogue: catalogue)
        var cutWhenCentred = 0
        for frame in [nil] + catalogue.frames.map(\.id) {
            let placed = try renderer.firstPlacement(
                photo: try Self.photo(file), spec: CardSpec(frame: frame), specFile: "spec")
            #expect(placed.reason == "1 face kept", "\(frame ?? "no frame"): \(placed.reason)")
            let window = (width: Double(placed.window.width), height: Double(placed.window.height))
            let margin = (FirstPlacement.safeMargin * window.width, FirstPlacement.safeMargin * window.height)
            let topLeft = Self.inWindow((label.x, label.y), placed: placed, photo: photo)
            let bottomRight = Self.inWindow(
                (label.x + label.width, label.y + label.height), placed: placed, photo: photo)
            let where_ = "\(frame ?? "no frame"): the face is at \(topLeft)-\(bottomRight) in a \(window) window"
            // Whole, always.
            #expect(
                topLeft.0 >= 0 && topLeft.1 >= 0 && bottomRight.0 <= window.width && bottomRight.1 <= window.height,
                "\(where_)")
            // Inside the safe area, unless the photo's own edge is already at the window's
            // (the photo covers the window: it can move no further that way).
            guard case .transform(_, _, let x, let y) = placed.placement else {
                Issue.record("\(frame ?? "no frame"): a first placement is a transform")
                continue
            }
            let centred = FirstPlacement.Geometry(
                photo: Size(width: 1200, height: 1800),
                window: Size(width: placed.window.width, height: placed.window.height))
            let reach = (
                x: (photo.width * centred.cover / window.width - 1) / 2,
                y: (photo.height * centred.cover / window.height - 1) / 2
            )
            let pinned = (x: abs(x) >= reach.x - 1e-4, y: abs(y) >= reach.y - 1e-4)
            #expect(
                (topLeft.0 >= margin.0 - 0.5 && bottomRight.0 <= window.width - margin.0 + 0.5) || pinned.x,
                "\(where_)")
            #expect(
                (topLeft.1 >= margin.1 - 0.5 && bottomRight.1 <= window.height - margin.1 + 0.5) || pinned.y,
                "\(where_)")
            let top = window.height / 2 + (label.y - photo.height / 2) * centred.cover
            if top < 0 { cutWhenCentred += 1 }
        }
        #expect(cutWhenCentred > 0, "no window would have cut the face when centred: the test proves nothing")
    }

    @Test("two faces too far apart for a narrow window: the larger is kept, and the answer says so")
    func keepsWhatFits() throws {
        let catalogue = try Self.catalogue.get()
        let portrait = try #require(catalogue.frames.first { $0.orientation == .portrait })
        let placed = try CardRenderer(catalogue: catalogue).firstPlacement(
            photo: try Self.photo("two-astronauts-2400x1200.jpg"), spec: CardSpec(frame: portrait.id),
            specFile: "spec")
        #expect(placed.reason == "1 of 2 faces kept")
        #expect(placed.faces.count == 1)
    }

    @Test("a photo without faces is centred on its most detail, still covering the window")
    func withoutFacesTheMostDetail() throws {
        let file = Fixtures.photo("photos/jolla-3264x2448.jpg")  // a leaf: Haar alone sees two faces in it
        try #require(FileManager.default.fileExists(atPath: file), "../shared/corpus is absent")
        let data = ImageData(copying: try Data(contentsOf: URL(fileURLWithPath: file)), name: "leaf")
        let placed = try CardRenderer(catalogue: nil).firstPlacement(
            photo: data, spec: CardSpec(frame: nil), specFile: "spec")
        #expect(placed.reason == "most detail (no face found)")
        #expect(placed.faces.isEmpty)
        guard case .transform(let scale, let rotation, let x, let y) = placed.placement else {
            Issue.record("not a transform")
            return
        }
        #expect(scale == 1 && rotation == 0)
        // Still covering: the photo's edges never come inside the window.
        let geometry = FirstPlacement.Geometry(
            photo: Size(width: 3264, height: 2448),
            window: Size(width: placed.window.width, height: placed.window.height))
        #expect(abs(x) <= (3264 * geometry.cover / Double(placed.window.width) - 1) / 2 + 1e-9)
        #expect(abs(y) <= (2448 * geometry.cover / Double(placed.window.height) - 1) / 2 + 1e-9)
    }

    @Test("\"transform\": \"auto\" renders the card the resolved numbers render, and says why")
    func autoInASpecIsTheResolvedTransform() throws {
        let catalogue = try Self.catalogue.get()
        let renderer = CardRenderer(catalogue: catalogue)
        let photo = try Self.photo("astronaut-top-right-1200x1800.jpg")
        let auto = try CardSpec.parse(
            Data(#"{"version": 1, "transform": "auto", "frame": "travel/airmail"}"#.utf8), file: "a.card.json")
        #expect(auto.placement == .automatic)
        let card = try renderer.render(photo: photo, spec: auto, specFile: "a.card.json")
        let placed = try #require(card.firstPlacement)
        #expect(placed.reason == "1 face kept")
        var resolved = auto
        resolved.placement = placed.placement
        let same = try renderer.render(photo: photo, spec: resolved, specFile: "b.card.json")
        #expect(same.firstPlacement == nil)
        #expect(card.front.sample == same.front.sample)
        #expect(card.front.print == same.front.print)
    }

    @Test("a spec's transform is an object or \"auto\"")
    func transformWords() throws {
        #expect(throws: CardSpecError.self) {
            try CardSpec.parse(Data(#"{"version": 1, "transform": "faces"}"#.utf8), file: "a.card.json")
        }
        do {
            _ = try CardSpec.parse(Data(#"{"version": 1, "transform": "faces"}"#.utf8), file: "a.card.json")
        } catch {
            #expect("\(error)".contains("transform"))
            #expect("\(error)".contains("\"auto\""))
        }
    }

    @Test("a cascade that cannot be read is an error naming it")
    func missingCascade() throws {
        let detector = FaceDetector(cascade: "/nonexistent/cascade.xml")
        #expect {
            try detector.faces(
                in: [UInt8](repeating: 128, count: 64 * 64), width: 64, height: 64, minimum: 20, neighbours: 3)
        } throws: { error in
            "\(error)".contains("/nonexistent/cascade.xml")
        }
    }
}
