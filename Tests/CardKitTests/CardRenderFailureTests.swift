import ImageCore
import Testing

@testable import CardKit

/// Only decoding blames the photo: a failure in any later stage is cardrender's, named with
/// its stage, while the photo's and the spec's own errors pass through unchanged.
struct CardRenderFailureTests {
    struct LibraryFailure: Error, CustomStringConvertible {
        var description: String { "vips_embed: bad dimensions" }
    }

    @Test func aLaterStageIsNamedAndNeverBlamesThePhoto() throws {
        let failure = #expect(throws: CardRenderFailure.self) {
            try CardRenderFailure.during(.placing, file: "beach.jpg") { throw LibraryFailure() }
        }
        #expect(failure?.stage == .placing)
        #expect(failure?.description.contains("beach.jpg: cardrender failed while placing the photo") == true)
        #expect(failure?.description.contains("not at fault") == true)
        #expect(failure?.description.contains("damaged") == false)
        #expect(throws: ImageInputError.self) {
            try CardRenderFailure.during(.encoding, file: "beach.jpg") {
                throw ImageInputError.damaged(file: "beach.jpg", detail: "premature end")
            }
        }
    }
}
