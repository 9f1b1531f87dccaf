import Foundation
import TestSupport
import Testing
import VipsKit

/// A web page with 50 thumbnails from the server, loaded by a real browser.
@Suite(.libvips) struct BrowserTests {
    static let chromium = "/usr/bin/chromium"

    /// 50 solid-colour PNGs (written with zlib by python3: 50 `vips` runs would take seconds).
    static func colourFiles(in directory: String) throws -> [[Int]] {
        let colours = (0..<50).map { index in [(index * 37) % 256, (index * 91 + 40) % 256, (255 - index * 5) % 256] }
        let script = """
            import struct, sys, zlib
            out, colours = sys.argv[1], sys.argv[2:]
            def chunk(kind, data):
                return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
            for index, colour in enumerate(colours):
                r, g, b = (int(v) for v in colour.split(','))
                rows = b''.join(b'\\0' + bytes([r, g, b]) * 160 for _ in range(120))
                png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 160, 120, 8, 2, 0, 0, 0))
                png += chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
                open(f'{out}/c{index}.png', 'wb').write(png)
            """
        try Tools.python(script, [directory] + colours.map { $0.map(String.init).joined(separator: ",") })
        return colours
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: chromium), "chromium is not installed"))
    func headlessChromiumShowsEveryThumbnail() async throws {
        let scratch = try Fixtures.scratchDirectory()
        let root = scratch + "/root"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let colours = try Self.colourFiles(in: root)
        let server = try await ServeProcess.start(["--root", root])
        defer { server.process.terminate() }

        // A 10 x 5 grid of 100 px cells, each image placed absolutely so its centre is known.
        var page = "<!doctype html><html><body style=\"margin:0;background:#fff\">\n"
        for index in 0..<50 {
            let (left, top) = (index % 10 * 110 + 5, index / 10 * 110 + 5)
            page += "<img style=\"position:absolute;left:\(left)px;top:\(top)px;width:100px;height:75px\" "
            page += "src=\"http://127.0.0.1:\(server.port)/thumb/c\(index).png?width=100\">\n"
        }
        page += "</body></html>\n"
        try page.write(toFile: scratch + "/page.html", atomically: true, encoding: .utf8)

        let shot = scratch + "/shot.png"
        let run = try Tools.run(
            "/usr/bin/timeout",
            [
                "120", Self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--user-data-dir=\(scratch)/profile", "--force-device-scale-factor=1", "--window-size=1110,560",
                "--virtual-time-budget=15000", "--screenshot=\(shot)", "file://\(scratch)/page.html",
            ])
        #expect(FileManager.default.fileExists(atPath: shot), "chromium: \(run.stderr)")
        let image = try Fixtures.load(shot)
        var wrong: [Int] = []
        for (index, colour) in colours.enumerated() {
            let pixel = try image.pixel(x: index % 10 * 110 + 55, y: index / 10 * 110 + 42)
            if zip(pixel, colour).contains(where: { abs($0 - Double($1)) > 8 }) { wrong.append(index) }
        }
        #expect(wrong.isEmpty, "images missing or wrong in the screenshot: \(wrong)")
        // The server's log shows the 50 requests.
        let served = server.log.split(separator: "\n").filter {
            $0.contains("path=/thumb/c") && $0.contains("status=200")
        }
        #expect(served.count == 50)
    }
}
