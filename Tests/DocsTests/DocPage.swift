import Foundation

/// What the doc tests read in a Markdown page: fenced Swift blocks, table rows, links.
enum DocPage {
    /// The contents of every ```swift block, in order.
    static func swiftBlocks(in page: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The cells of every table row (header and separator rows included), trimmed.
    static func tableRows(in page: String) -> [[String]] {
        page.split(separator: "\n").filter { $0.hasPrefix("| ") }.map { line in
            line.dropFirst(2).dropLast(line.hasSuffix(" |") ? 2 : 0)
                .components(separatedBy: " | ").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The names written in backticks in `text`, in order (`CardKit` in "`CardKit`").
    static func codeNames(in text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The targets of the Markdown links in `text` (`render.md` in "[x](render.md)").
    static func links(in text: String) -> [String] {
        var links: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: "](") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: ")") else { break }
            links.append(String(rest[..<end]))
            rest = rest[end...]
        }
        return links
    }
}
