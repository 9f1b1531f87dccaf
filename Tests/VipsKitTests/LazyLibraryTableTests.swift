import CLazyLibraries
import Foundation
import TestSupport
import Testing

/// The table of functions CLazyLibraries defines (`CLazyLibraries.inc`): every line passes
/// its parameters on in the order it declares them (the compiler checks each prototype
/// against the library's header, but not the order of the forwarded arguments), and every
/// function of every group resolves against the installed libraries.
struct LazyLibraryTableTests {
    static let table = Fixtures.root.path + "/Sources/Native/CLazyLibraries/include/CLazyLibraries.inc"

    /// `text` split at its top-level commas (not those inside parentheses).
    static func topLevel(_ text: Substring) -> [String] {
        var parts: [String] = []
        var depth = 0
        var current = ""
        for character in text {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if character == "," && depth == 0 {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts
    }

    /// The name a C parameter declaration gives (`const char *name` is `name`).
    static func parameterName(_ declaration: String) -> String {
        let identifier = declaration.replacingOccurrences(of: "[]", with: "")
            .split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).last
        return identifier.map(String.init) ?? ""
    }

    @Test func everyLineForwardsItsParametersInOrder() throws {
        let lines = try String(contentsOfFile: Self.table, encoding: .utf8).split(separator: "\n")
        var checked = 0
        for line in lines where line.hasPrefix("FUNCTION(") || line.hasPrefix("PROCEDURE(") {
            let inner = line.drop(while: { $0 != "(" }).dropFirst().dropLast()
            let fields = Self.topLevel(inner)
            #expect(fields.count == (line.hasPrefix("FUNCTION(") ? 5 : 4), "\(line)")
            guard let parameters = fields.dropLast().last, let arguments = fields.last else { continue }
            let declared = Self.topLevel(parameters.dropFirst().dropLast())
                .filter { $0 != "void" && !$0.isEmpty }.map(Self.parameterName)
            let passed = Self.topLevel(arguments.dropFirst().dropLast()).filter { !$0.isEmpty }
            #expect(declared == passed, "\(line): declares \(declared), passes \(passed)")
            checked += 1
        }
        #expect(checked > 150)
    }

    @Test func everyFunctionResolvesInTheInstalledLibraries() {
        for (library, name) in [
            (CLazyLibraries_glib, "GLib"), (CLazyLibraries_libvips, "libvips"), (CLazyLibraries_text, "Pango"),
            (CLazyLibraries_heif, "libheif"), (CLazyLibraries_qpdf, "libqpdf"),
        ] {
            var error: UnsafePointer<CChar>?
            let status = CLazyLibraries_load(library, &error)
            #expect(status == 0, "\(name): \(error.map { String(cString: $0) } ?? "")")
            #expect(CLazyLibraries_count(library) > 0, "\(name) has functions in the table")
        }
    }
}
