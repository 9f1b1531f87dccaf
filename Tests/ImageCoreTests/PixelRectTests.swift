import Foundation
import ImageCore
import Testing

/// `PixelRect`, the one rectangle of whole pixels: its edges, and its JSON (the frame
/// manifests' `{"x", "y", "width", "height"}`), refusing edges past an Int.
struct PixelRectTests {
    @Test func edgesSizesAndTheManifestsFields() throws {
        let rect = PixelRect(x: 10, y: 20, width: 300, height: 200)
        #expect((rect.left, rect.top, rect.right, rect.bottom) == (10, 20, 310, 220))
        #expect((rect.x, rect.y, rect.width, rect.height) == (10, 20, 300, 200))
        #expect(
            rect.intersection(PixelRect(left: 300, top: 0, right: 400, bottom: 30))
                == PixelRect(x: 300, y: 20, width: 10, height: 10))
        #expect(rect.offset(x: -10, y: 5) == PixelRect(x: 0, y: 25, width: 300, height: 200))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(
            String(decoding: try encoder.encode(rect), as: UTF8.self) == #"{"height":200,"width":300,"x":10,"y":20}"#)
        #expect(
            try JSONDecoder().decode(PixelRect.self, from: Data(#"{"x":1,"y":2,"width":3,"height":4}"#.utf8))
                == PixelRect(x: 1, y: 2, width: 3, height: 4))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                PixelRect.self, from: Data(#"{"x":9223372036854775807,"y":0,"width":1,"height":1}"#.utf8))
        }
    }
}
