import CardKit
import FileUtilities
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `index.html` of a batch: every card's small image, verdict and effective dpi, or its error.
public enum Gallery {
    /// Writes the gallery for `report` into `directory/index.html`, atomically.
    public static func write(_ report: BatchReport<CardOutcome>, to directory: String) throws {
        let html = render(report)
        try AtomicFile.write(Data(html.utf8), to: directory + "/index.html")
    }

    /// The page's HTML.
    public static func render(_ report: BatchReport<CardOutcome>) -> String {
        var tiles = ""
        for card in report.outcomes {
            if let outputs = card.outputs {
                let verdict = card.quality?.rawValue ?? "?"
                let dpi = card.effectiveDPI.map { String(Int($0.rounded())) } ?? "?"
                tiles += """
                    <figure class="\(verdict)"><a href="\(link(outputs.print))"><img src="\(link(outputs.small))" \
                    alt="\(escape(card.input))" loading="lazy"></a>\(versos(card))<figcaption><b>\(escape(name(card.input)))</b>\
                    <span class="verdict">\(verdict) · \(dpi) dpi</span>\(card.frame.map { "<span>\(escape($0))</span>" } ?? "")\
                    \(card.warning.map { "<span class=\"warning\">\(escape($0))</span>" } ?? "")</figcaption></figure>

                    """
            } else {
                tiles += """
                    <figure class="failed"><div class="error">\(escape(card.error ?? "failed"))</div>\
                    <figcaption><b>\(escape(name(card.input)))</b><span class="verdict">failed</span></figcaption></figure>

                    """
            }
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>cardrender batch</title>
            <style>
            body{font:14px system-ui,sans-serif;margin:24px;background:#f4f4f2;color:#222}
            .grid{display:flex;flex-wrap:wrap;gap:16px}
            figure{margin:0;width:220px;background:#fff;border-radius:6px;padding:10px;box-shadow:0 1px 3px #0002}
            figure img{width:200px;display:block;margin:auto}figure img.verso{margin-top:6px}
            figcaption{display:flex;flex-direction:column;gap:2px;margin-top:6px;word-break:break-all}
            .good .verdict{color:#17823b}.bad .verdict{color:#c25b00;font-weight:bold}
            .failed .verdict{color:#b00020;font-weight:bold}.error{color:#b00020;min-height:60px}
            .warning{color:#c25b00}
            </style></head><body>
            <h1>cardrender batch</h1>
            <p>\(escape(report.summaryLine))</p>
            <div class="grid">
            \(tiles)</div>
            </body></html>

            """
    }

    /// The backs' small images, each linking to its print file.
    private static func versos(_ card: CardOutcome) -> String {
        (card.versos ?? []).map { verso in
            "<a href=\"\(link(verso.print))\"><img class=\"verso\" src=\"\(link(verso.small))\" alt=\"back\" loading=\"lazy\"></a>"
        }.joined()
    }

    private static func name(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// A relative file path as a link: each segment percent-encoded (RFC 3986: everything
    /// but unreserved characters), so `a#1.jpg`, `50%.jpg`, `a?b.jpg` or a space are file
    /// names, not a fragment, an escape or a query; then made safe for an attribute.
    static func link(_ path: String) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in path.utf8 {
            if unreserved.contains(byte) || byte == UInt8(ascii: "/") {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return escape(String(decoding: encoded, as: UTF8.self))
    }

    /// Text made safe for HTML content and attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
