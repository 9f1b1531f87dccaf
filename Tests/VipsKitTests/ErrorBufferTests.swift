import Testing

@testable import VipsKit

/// libvips's error buffer is process-wide: what one worker's format probe leaves there
/// ("source is not in a known format", no longer cleared by cardrender, since clearing wiped
/// other workers' failures) never becomes part of another failure's error.
///
/// (Only the text is tested: the buffer itself is shared by every test running at once.
/// libvips 8.14's own probing of data no loader knows, and of HEIF, clears the buffer
/// itself, seen in a C program; that residual race is libvips's, and every error still
/// names its operation and file.)
@Suite struct ErrorBufferTests {
    @Test func probingLinesNeverExplainAFailure() {
        let buffer = """
            VipsForeignLoad: source is not in a known format
            VipsJpeg: Premature end of input file
            VipsJpeg: Premature end of input file
            vips2png: unable to write to target
            VipsForeignLoad: source is not in a known format
            """
        #expect(vipsErrorDetail(buffer) == "VipsJpeg: Premature end of input file")
        #expect(vipsErrorDetail("a\nb\nc\nd") == "a; b; c")
    }
}
