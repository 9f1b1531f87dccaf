import Hummingbird
import Testing

@testable import ServerShell
@testable import ThumbServer

/// A route group holds its path and what lies below it, compared byte for byte, and the photo's
/// path is cut from the request's by bytes: a combining mark after the slash (one character
/// with it, for Swift's strings) neither makes another path the group's nor vanishes from the
/// photo's path.
struct RoutePathTests {
    struct Nothing: HTTPResponder {
        func respond(to request: Request, context: ServerRequestContext) async throws -> Response {
            Response(status: .noContent)
        }
    }

    @Test func pathsAreComparedAndCutByBytes() {
        let group = RouteGroup(path: "/thumb", label: "thumb", responder: Nothing())
        #expect(group.holds("/thumb") && group.holds("/thumb/a.jpg") && group.holds("/thumb/\u{301}a.jpg"))
        #expect(!group.holds("/thumbs/a.jpg") && !group.holds("/thum") && !group.holds("/thumb\u{301}/a.jpg"))
        #expect(ThumbService.relativePath("/thumb/2024/a.jpg") == "2024/a.jpg")
        #expect(ThumbService.relativePath("/thumb/\u{301}a.jpg") == "\u{301}a.jpg")
        #expect(ThumbService.relativePath("/thumb") == "")
    }
}
