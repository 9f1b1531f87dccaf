import Foundation
import TestSupport
import Testing
import VipsKit

/// `render --press`: the PDF/X postcards, checked with the tools print shops' own checks run
/// on (qpdf, poppler's pdfinfo, pdffonts and pdfimages, pikepdf, Ghostscript's separations),
/// and `cardrender preflight` on them and on PDFs that break each rule.
@Suite(.libvips) struct PressPrintTests {
    static let tools = ["/usr/bin/qpdf", "/usr/bin/pdfinfo", "/usr/bin/pdffonts", "/usr/bin/pdfimages", "/usr/bin/gs"]
    static let toolsInstalled =
        tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        && (try? Tools.run("/usr/bin/python3", ["-c", "import pikepdf"]).status) == 0
    static let noTools: Comment =
        "qpdf, poppler-utils, ghostscript or python3-pikepdf missing (scripts/setup-tests.sh installs them)"

    static let message = "Bonjour de Paris ! Wish you were here."
    static let recipients: [[String: String]] = [
        [
            "name": "Ada Lovelace", "address1": "12 rue de la Paix", "postcode": "75002", "city": "Paris",
            "country": "fr",
        ],
        [
            "name": "Grace Hopper", "address1": "1 Navy Way", "postcode": "10001", "city": "New York", "region": "NY",
            "country": "us",
        ],
    ]

    /// Renders `photo` with a spec of `fields` under `press` into a new directory; returns it.
    func render(
        press: String, message: String? = Self.message, recipients: [[String: String]] = Self.recipients,
        photo: String = Fixtures.root.path + "/scripts/samples/autumn-leaf-jolla.jpg", fields: [String: Any] = [:],
        extra: [String] = [], label: String = #function
    ) throws -> String {
        let scratch = try Fixtures.scratchDirectory(label)
        let input = scratch + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: photo, toPath: input + "/card.jpg")
        var spec: [String: Any] = ["version": 1, "frame": "travel/airmail"]
        if let message { spec["message"] = ["text": message, "font": "serif", "size": 14] }
        if !recipients.isEmpty { spec["recipients"] = recipients }
        spec.merge(fields) { $1 }
        try JSONSerialization.data(withJSONObject: spec).write(to: URL(fileURLWithPath: input + "/card.card.json"))
        let run = try Tools.run(
            Tools.cardrender, ["render", input, "--out", scratch + "/out", "--press", press, "--no-cache"] + extra)
        #expect(run.status == 0, "\(run.stderr)")
        return scratch + "/out"
    }

    func tool(_ executable: String, _ arguments: String...) throws -> String {
        let run = try Tools.run(executable, arguments)
        guard run.status == 0 else {
            throw Tools.ToolError(message: "\(executable) \(arguments) failed (\(run.status)): \(run.stderr)")
        }
        return run.stdoutText
    }

    /// pdfinfo's boxes of page `page`: name -> [x0, y0, x1, y1] in points.
    func boxes(_ file: String, page: Int) throws -> [String: [Double]] {
        let text = try tool("/usr/bin/pdfinfo", "-box", "-f", "\(page)", "-l", "\(page)", file)
        var boxes: [String: [Double]] = [:]
        for line in text.split(separator: "\n") where line.contains("Box:") {
            let parts = line.split(separator: ":", maxSplits: 1)
            let name = String(parts[0].split(separator: " ").last ?? "")
            boxes[name] = parts[1].split(separator: " ").compactMap { Double($0) }
        }
        return boxes
    }

    /// Runs a pikepdf script on `file` (as `sys.argv[1]`) and returns what it prints.
    func pikepdf(_ file: String, _ script: String) throws -> String {
        try tool("/usr/bin/python3", "-c", "import sys, pikepdf\npdf = pikepdf.open(sys.argv[1])\n" + script, file)
    }

    /// Ghostscript's separation of one page into plates: the mean and minimum of each plate's
    /// 8-bit tone (255 is no ink), read with libvips.
    func plates(_ file: String, page: Int, scratch: String) throws -> [String: (mean: Double, minimum: Double)] {
        _ = try tool(
            "/usr/bin/gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=tiffsep", "-r72", "-dFirstPage=\(page)",
            "-dLastPage=\(page)", "-sOutputFile=\(scratch)/sep.tif", file)
        var plates: [String: (Double, Double)] = [:]
        for plate in ["Cyan", "Magenta", "Yellow", "Black"] {
            let file = "\(scratch)/sep(\(plate)).tif"
            plates[plate] = (try statistic("avg", file), try statistic("min", file))
        }
        return plates
    }

    /// A statistic of an image (`avg`, `min`, `max`) from the `vips` CLI.
    func statistic(_ name: String, _ file: String) throws -> Double {
        let text = try tool("/usr/bin/vips", name, file).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(Double(text), "vips \(name) \(file): \(text)")
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func anEUPostcardIsAPDFX1aThatTheShopsToolsAccept() throws {
        let out = try render(press: "eu-a6-fogra39")
        let files = Fixtures.files(under: out).filter { $0.hasSuffix(".pdf") }
        // Two recipients, two postcards; the first back is page 2 of the front's file.
        #expect(files == ["card.print.pdf", "card.verso-2.print.pdf"])
        for file in files.map({ out + "/" + $0 }) {
            #expect(try tool("/usr/bin/qpdf", "--check", file).contains("No syntax or stream encoding errors"))
            let info = try tool("/usr/bin/pdfinfo", file)
            #expect(info.contains("Pages:           2") && info.contains("PDF version:     1.3"), "\(info)")
            #expect(info.contains("PDF subtype:    PDF/X-1:2001"), "\(info)")
            for page in 1...2 {
                let box = try boxes(file, page: page)
                let media = try #require(box["MediaBox"]), trim = try #require(box["TrimBox"])
                #expect(box["BleedBox"] == media)
                let bleed = 3 / 25.4 * 72
                // A6 plus 3 mm each side, in points (pixels at 300 dpi round to 1/300 in).
                #expect(abs(media[2] - (148 + 6) / 25.4 * 72) < 0.5 && abs(media[3] - (105 + 6) / 25.4 * 72) < 0.5)
                #expect(abs(trim[0] - bleed) < 0.3 && abs(trim[1] - bleed) < 0.3)
                #expect(abs(trim[2] - (media[2] - bleed)) < 0.3 && abs(trim[3] - (media[3] - bleed)) < 0.3)
            }
            // No fonts: the text is outlines. The photo: one CMYK JPEG at 300 ppi.
            let fonts = try tool("/usr/bin/pdffonts", file).split(separator: "\n")
            #expect(fonts.count == 2, "only pdffonts's two header lines: \(fonts)")
            let images = try tool("/usr/bin/pdfimages", "-list", file).split(separator: "\n").dropFirst(2)
            #expect(images.count == 1, "\(images)")
            let photo = images.first?.split(separator: " ").map(String.init) ?? []
            #expect(photo.count > 13 && photo[5] == "cmyk" && photo[8] == "jpeg" && photo[12] == "300", "\(photo)")
            let structure = try pikepdf(
                file,
                """
                intent = pdf.Root.OutputIntents[0]
                profile = intent.DestOutputProfile
                print(intent.S, str(intent.OutputConditionIdentifier), profile.N, len(profile.read_bytes()))
                print(str(pdf.docinfo.GTS_PDFXVersion), str(pdf.docinfo.GTS_PDFXConformance), pdf.docinfo.Trapped)
                print(len(pdf.trailer.ID), '/Encrypt' in pdf.trailer)
                spaces = set()
                for page in pdf.pages:
                    for name, image in page.Resources.XObject.items():
                        spaces.add(str(image.ColorSpace))
                        print('smask' if '/SMask' in image else 'opaque', name)
                    print('group' if '/Group' in page else 'no group')
                    content = page.Contents.read_bytes().decode('latin-1')
                    print('rgb ops', sum(content.split().count(op) for op in ('rg', 'RG')))
                print(sorted(spaces))
                """)
            let profileSize = try Data(
                contentsOf: Fixtures.root.appendingPathComponent("press/profiles/FOGRA39-TAC300.icc")
            )
            .count
            let lines = structure.split(separator: "\n").map(String.init)
            #expect(lines[0] == "/GTS_PDFX FOGRA39 4 \(profileSize)")
            #expect(lines[1] == "PDF/X-1:2001 PDF/X-1a:2001 /False")
            #expect(lines[2] == "2 False")
            #expect(!structure.contains("smask") && !structure.contains("\ngroup"), "\(structure)")
            #expect(!structure.contains("rgb ops 1") && structure.contains("rgb ops 0"))
            #expect(lines.last == "['/DeviceCMYK']")
        }
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func theBackIsBlackInkAloneAndTheTwoBacksDifferOnlyInTheAddress() throws {
        let out = try render(press: "eu-a6-fogra39")
        let scratch = try Fixtures.scratchDirectory()
        var blacks: [Double] = []
        for file in ["card.print.pdf", "card.verso-2.print.pdf"] {
            let back = try plates(out + "/" + file, page: 2, scratch: scratch)
            for plate in ["Cyan", "Magenta", "Yellow"] {
                #expect(back[plate]?.minimum == 255, "\(file): the \(plate) plate of the back is empty")
            }
            let black = try #require(back["Black"])
            #expect(black.minimum == 0 && black.mean < 254, "\(file): text and rules on the black plate")
            blacks.append(black.mean)
            // The text's fills are 0 0 0 1 k, never rich black.
            let content = try pikepdf(
                out + "/" + file, "print(pdf.pages[1].Contents.read_bytes().decode('latin-1').count('0 0 0 1 k'))")
            #expect((Int(content.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 2)
        }
        #expect(blacks[0] != blacks[1], "the two recipients' addresses")
        // The photo side is one image for both postcards: the same bytes.
        let images = try ["card.print.pdf", "card.verso-2.print.pdf"].map { file in
            try pikepdf(
                out + "/" + file,
                "import hashlib; print(hashlib.sha256(pdf.pages[0].Resources.XObject.Photo.read_raw_bytes()).hexdigest())"
            )
        }
        #expect(images[0] == images[1])
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func emojiArePlacedAsCMYKPicturesAndTheTextStaysOutlines() throws {
        let out = try render(press: "eu-a6-fogra39", message: "Bonjour de Paris ! 你好 🌍 Wish you were here.")
        let file = out + "/card.print.pdf"
        let images = try tool("/usr/bin/pdfimages", "-list", "-f", "2", "-l", "2", file).split(separator: "\n")
            .dropFirst(2)
        #expect(images.count == 1, "the globe: \(images)")
        #expect(images.first?.contains("cmyk") == true)
        #expect(try tool("/usr/bin/pdffonts", file).split(separator: "\n").count == 2)
        let back = try plates(file, page: 2, scratch: try Fixtures.scratchDirectory())
        #expect((back["Cyan"]?.minimum ?? 255) < 255, "the globe's blue is on the cyan plate")
        // Every word is on the page: the words after the emoji fill the line's right part
        // (a bounded cairo surface once dropped them from the outlines).
        let words = try pikepdf(
            file,
            """
            import re
            content = pdf.pages[1].Contents.read_bytes().decode('latin-1')
            xs = [float(m) for m in re.findall(r'([0-9.]+) [0-9.]+ m\\n', content)]
            print(max(xs))
            """)
        #expect((Double(words.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 700, "\(words)")
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func inkNeverPassesTheLimitEvenOnBlack() throws {
        let scratch = try Fixtures.scratchDirectory()
        // Black, pure blue, a deep violet and a ramp: where rich black and saturated colours
        // would pass 300 % unchecked.
        let photo = scratch + "/black.png"
        try Synthetic.image(photo, width: 1600, height: 1200, bands: 3) { x, _ in
            switch x / 400 {
            case 0: [0, 0, 0]
            case 1: [0, 0, 255]
            case 2: [30, 10, 60]
            default: [UInt8((x - 1200) * 255 / 400), UInt8((x - 1200) * 85 / 400), UInt8(255 - (x - 1200) * 255 / 400)]
            }
        }
        let out = try render(
            press: "eu-a6-fogra39", message: nil, recipients: [], photo: photo, fields: ["frame": NSNull()])
        let file = out + "/card.print.pdf"
        #expect(try tool("/usr/bin/pdfinfo", file).contains("Pages:           1"), "no back: the photo side alone")
        _ = try tool(
            "/usr/bin/gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=tiff32nc", "-r150",
            "-sOutputFile=\(scratch)/ink.tif", file)
        let ink = try Fixtures.load(scratch + "/ink.tif")
        #expect(ink.bands == 4)
        let pixels = try ink.eightBitPixels()
        var highest = 0
        for index in stride(from: 0, to: pixels.count, by: 4) {
            highest = max(
                highest, Int(pixels[index]) + Int(pixels[index + 1]) + Int(pixels[index + 2]) + Int(pixels[index + 3]))
        }
        let percent = Double(highest) * 100 / 255
        #expect(percent <= 300, "total ink \(percent) %")
        #expect(percent > 200, "black is rich black on the photo side (\(percent) %)")
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func thePDFRenderedBackIsCloseToTheRGBPrint() throws {
        // The same card as today's RGB print, at the same size and bleed.
        let rgb = try render(press: "rgb-jpeg", fields: ["card": ["size": "a6", "bleed": 3, "dpi": 300]])
        let pdf = try render(press: "eu-a6-fogra39")
        let scratch = try Fixtures.scratchDirectory()
        // Ghostscript separates nothing back: it reads the CMYK through the file's own output intent.
        _ = try tool(
            "/usr/bin/gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=png16m", "-r300", "-dUsePDFX3Profile",
            "-dFirstPage=1", "-dLastPage=1", "-sOutputFile=\(scratch)/front.png", pdf + "/card.print.pdf")
        let back = try Fixtures.load(scratch + "/front.png")
        let print = try Fixtures.load(rgb + "/card.print.jpg")
        #expect(back.width == print.width && back.height == print.height)
        try Tools.vips("colourspace", scratch + "/front.png", scratch + "/a.v", "lab")
        try Tools.vips("colourspace", rgb + "/card.print.jpg", scratch + "/b.v", "lab")
        try Tools.vips("dE76", scratch + "/a.v", scratch + "/b.v", scratch + "/d.v")
        let mean = try statistic("avg", scratch + "/d.v")
        // Measured 1.6 (gamut: the frame's saturated red and blue are outside FOGRA39).
        #expect(mean < 3, "mean ΔE76 between the PDF read back and the RGB print: \(mean)")
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func theVectorBackIsTheRasterBacksLayout() throws {
        // The raster back of the same card (today's print) and the PDF's page 2 read back.
        let rgb = try render(press: "rgb-jpeg", fields: ["card": ["size": "a6", "bleed": 3, "dpi": 300]])
        let pdf = try render(press: "eu-a6-fogra39")
        let scratch = try Fixtures.scratchDirectory()
        _ = try tool(
            "/usr/bin/gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pnggray", "-r300", "-dUsePDFX3Profile",
            "-dFirstPage=2", "-dLastPage=2", "-sOutputFile=\(scratch)/back.png", pdf + "/card.print.pdf")
        try Tools.vips("colourspace", rgb + "/card.verso-1.print.jpg", scratch + "/raster.v", "b-w")
        let vector = try Fixtures.load(scratch + "/back.png")
        #expect(vector.width == 1818 && vector.height == 1310)
        try Tools.vips("subtract", scratch + "/back.png", scratch + "/raster.v", scratch + "/d.v")
        try Tools.vips("abs", scratch + "/d.v", scratch + "/a.v")
        let difference = try statistic("avg", scratch + "/a.v")
        // The same glyphs in the same places: what differs is antialiasing and how dark black
        // ink alone prints (FOGRA39's K is not sRGB's black). Measured 0.87 of 255.
        #expect(difference < 3, "mean difference \(difference) of 255")
        // A back shifted by a line of text would differ far more: the check can fail.
        try Tools.vips(
            "embed", scratch + "/raster.v", scratch + "/shifted.v", "0", "40", "1818", "1310", "--extend", "white")
        try Tools.vips("subtract", scratch + "/back.png", scratch + "/shifted.v", scratch + "/ds.v")
        try Tools.vips("abs", scratch + "/ds.v", scratch + "/as.v")
        #expect(try statistic("avg", scratch + "/as.v") > difference * 2)
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func bothPixelPathsMakeTheSamePhotoSide() throws {
        // libvips's pipeline (--engine general) and the fast executor give the print pixels;
        // the PDF around them is the same.
        let fast = try render(press: "eu-a6-fogra39", label: "fast")
        let general = try render(press: "eu-a6-fogra39", extra: ["--engine", "general"], label: "general")
        let scratch = try Fixtures.scratchDirectory()
        for (name, out) in [("fast", fast), ("general", general)] {
            _ = try tool(
                "/usr/bin/gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=tiff32nc", "-r100", "-dFirstPage=1",
                "-dLastPage=1", "-sOutputFile=\(scratch)/\(name).tif", out + "/card.print.pdf")
        }
        let a = try Fixtures.load(scratch + "/fast.tif"), b = try Fixtures.load(scratch + "/general.tif")
        #expect(a.width == b.width && a.height == b.height && a.bands == 4)
        let difference = try a.meanAbsoluteDifference(to: b)
        #expect(difference < 3, "mean ink difference \(difference) of 255 between the two paths")
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func theOtherPresetsHaveTheirSizeStandardAndCondition() throws {
        let us = try render(press: "us-4x6-gracol") + "/card.print.pdf"
        let usBoxes = try boxes(us, page: 1)
        // 6 x 4 in trimmed, sent as 6.25 x 4.25 in.
        let media = try #require(usBoxes["MediaBox"])
        #expect(abs(media[2] - 6.25 * 72) < 0.5 && abs(media[3] - 4.25 * 72) < 0.5, "\(media)")
        #expect(abs((usBoxes["TrimBox"]?[0] ?? 0) - 9) < 0.3)
        #expect(
            try pikepdf(us, "print(str(pdf.Root.OutputIntents[0].OutputConditionIdentifier))").contains("CGATS TR 006"))

        let gelato = try render(press: "gelato-a6") + "/card.print.pdf"
        let info = try tool("/usr/bin/pdfinfo", gelato)
        #expect(info.contains("PDF version:     1.6"), "\(info)")
        let trim = try #require(try boxes(gelato, page: 1)["TrimBox"])
        #expect(abs(trim[0] - 4 / 25.4 * 72) < 0.3, "4 mm bleed: \(trim)")
        let xmp = try pikepdf(
            gelato, "print(str(pdf.docinfo.GTS_PDFXVersion)); print(pdf.Root.Metadata.read_bytes().decode())")
        #expect(xmp.hasPrefix("PDF/X-4\n") && xmp.contains("<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>"))
        #expect(try tool("/usr/bin/qpdf", "--check", gelato).contains("No syntax or stream encoding errors"))
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func theBytesAreTheSameOnEveryRenderAndFromTheCache() throws {
        let first = try render(press: "eu-a6-fogra39", label: "first")
        let second = try render(press: "eu-a6-fogra39", label: "second")
        for file in ["card.print.pdf", "card.verso-2.print.pdf"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: first + "/" + file))
            let b = try Data(contentsOf: URL(fileURLWithPath: second + "/" + file))
            #expect(a == b, "\(file) differs between two renders")
        }
        // Through the cache: rendered once, then a hit, the same bytes.
        let scratch = try Fixtures.scratchDirectory()
        let input = (first as NSString).deletingLastPathComponent + "/in"
        for round in 0..<2 {
            let run = try Tools.run(
                Tools.cardrender,
                [
                    "render", input, "--out", scratch + "/out\(round)", "--press", "eu-a6-fogra39", "--cache",
                    scratch + "/cache",
                ])
            #expect(run.status == 0, "\(run.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch + "/out\(round)/card.print.pdf"))
            #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: first + "/card.print.pdf"))))
        }
        let report = try String(contentsOfFile: scratch + "/out1/report.json", encoding: .utf8)
        #expect(report.contains("\"cached\" : true") || report.contains("\"cached\":true"), "\(report)")
    }

    /// A PDF carries no name the cache key does not hold: the same photo bytes saved as
    /// `alice-private.jpg` and then as `bob.jpg`, through one cache, give postcards that name
    /// neither (the title was the file name, and bob's came from alice's cache entry).
    @Test(.enabled(if: toolsInstalled, noTools))
    func aPostcardCarriesNoFileName() throws {
        let scratch = try Fixtures.scratchDirectory()
        let photo = Fixtures.root.path + "/scripts/samples/autumn-leaf-jolla.jpg"
        for name in ["alice-private", "bob-the-customer"] {
            let input = scratch + "/" + name
            try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: photo, toPath: input + "/\(name).jpg")
            let run = try Tools.run(
                Tools.cardrender,
                [
                    "render", input, "--out", scratch + "/out-" + name, "--press", "eu-a6-fogra39", "--cache",
                    scratch + "/cache",
                ])
            #expect(run.status == 0, "\(run.stderr)")
            let pdf = try Data(contentsOf: URL(fileURLWithPath: scratch + "/out-\(name)/\(name).print.pdf"))
            let text = try pikepdf(
                scratch + "/out-\(name)/\(name).print.pdf",
                "print(str(pdf.docinfo.Title)); print(pdf.open_metadata().get('dc:title'))")
            for leaked in ["alice-private", "bob-the-customer"] {
                #expect(pdf.range(of: Data(leaked.utf8)) == nil, "\(name).print.pdf holds '\(leaked)'")
                #expect(!text.contains(leaked), "\(name): \(text)")
            }
        }
        let second = try Data(
            contentsOf: URL(fileURLWithPath: scratch + "/out-bob-the-customer/bob-the-customer.print.pdf"))
        #expect(
            second
                == (try Data(contentsOf: URL(fileURLWithPath: scratch + "/out-alice-private/alice-private.print.pdf"))))
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func preflightPassesOurFilesAndNamesEachBrokenRule() throws {
        let out = try render(press: "eu-a6-fogra39")
        let good = out + "/card.print.pdf"
        let passed = try Tools.run(Tools.cardrender, ["preflight", good, "--press", "eu-a6-fogra39"])
        #expect(passed.status == 0, "\(passed.stdoutText)")
        #expect(passed.stdoutText.split(separator: "\n").filter { $0.hasPrefix("  ok ") }.count == 11)
        // Against another press: the condition and the size are wrong.
        let other = try Tools.run(Tools.cardrender, ["preflight", good, "--press", "us-4x6-gracol"])
        #expect(other.status == 1)
        #expect(other.stdoutText.contains("FAIL output intent: FOGRA39, but us-4x6-gracol prints for CGATS TR 006"))
        #expect(other.stdoutText.contains("FAIL boxes: page 1: trim 148 x 105 mm, us-4x6-gracol is 152.4 x 101.6 mm"))

        // Each file breaks one rule; pikepdf edits our good file.
        let scratch = try Fixtures.scratchDirectory()
        let broken: [(String, String, String)] = [
            (
                "rgb", "pdf.pages[1].Contents.write(b'1 0 0 rg 0 0 10 10 re f ' + pdf.pages[1].Contents.read_bytes())",
                "FAIL colour: RGB found"
            ),
            (
                "richblack",
                "pdf.pages[1].Contents.write(pdf.pages[1].Contents.read_bytes().replace(b'0 0 0 1 k', b'0.6 0.4 0.4 1 k'))",
                "FAIL black text"
            ),
            ("intent", "del pdf.Root.OutputIntents", "FAIL output intent: no GTS_PDFX output intent"),
            ("pdfx", "del pdf.docinfo.GTS_PDFXVersion", "FAIL PDF/X: no GTS_PDFXVersion"),
            ("trim", "del pdf.pages[0].TrimBox", "FAIL boxes: page 1 has no TrimBox"),
            ("pages", "pdf.pages.append(pdf.pages[1])", "FAIL pages: 3"),
            (
                "transparency", "pdf.pages[0].Group = pikepdf.Dictionary(S=pikepdf.Name.Transparency)",
                "FAIL transparency"
            ),
            ("lowres", "pdf.pages[0].Contents.write(b'q 900 0 0 700 0 0 cm /Photo Do Q')", "FAIL resolution"),
            (
                "ink",
                "pdf.pages[1].Contents.write(b'q 1 1 1 1 k 0 0 100 100 re f Q ' + pdf.pages[1].Contents.read_bytes())",
                "FAIL ink: over the limit"
            ),
            (
                "font",
                "pdf.pages[1].Resources.Font = pikepdf.Dictionary(F1=pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.TrueType, BaseFont=pikepdf.Name.Arial))",
                "FAIL fonts: not embedded: Arial"
            ),
            // Hostile: a form that draws itself ever larger, a width no conversion may trap on.
            (
                "loop",
                "form = pdf.make_indirect(pikepdf.Stream(pdf, b'/Loop Do'))\nform.Type = pikepdf.Name.XObject\n"
                    + "form.Subtype = pikepdf.Name.Form\nform.BBox = [0, 0, 10, 10]\nform.Matrix = [2, 0, 0, 2, 0, 0]\n"
                    + "form.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Loop=form))\n"
                    + "pdf.pages[0].Resources.XObject.Loop = form\n"
                    + "pdf.pages[0].Contents.write(pdf.pages[0].Contents.read_bytes() + b' /Loop Do')",
                "FAIL structure: form /Loop is nested more than 8 deep"
            ),
            (
                "huge", "pdf.pages[0].Resources.XObject.Photo.Width = pikepdf.Object.parse(b'9' * 40 + b'.5')",
                "FAILED"
            ),
            // Decompression bombs: libqpdf would inflate them whole (a 3 MB file took 4 GB).
            (
                "contentbomb",
                "import zlib\nbomb = pikepdf.Stream(pdf, zlib.compress(b' ' * (80 << 20), 9))\n"
                    + "bomb.Filter = pikepdf.Name.FlateDecode\npdf.pages[1].Contents = bomb",
                "FAIL structure: page 2's content cannot be read (a stream of"
            ),
            (
                "imagebomb",
                "import zlib\nbomb = pikepdf.Stream(pdf, zlib.compress(bytes(1 << 20), 9))\n"
                    + "bomb.Filter = pikepdf.Name.FlateDecode\nbomb.Type = pikepdf.Name.XObject\n"
                    + "bomb.Subtype = pikepdf.Name.Image\nbomb.Width = bomb.Height = 10\n"
                    + "bomb.ColorSpace = pikepdf.Name.DeviceCMYK\nbomb.BitsPerComponent = 8\n"
                    + "pdf.pages[0].Resources.XObject.Bomb = bomb\n"
                    + "pdf.pages[0].Contents.write(pdf.pages[0].Contents.read_bytes() + b' q 1 0 0 1 0 0 cm /Bomb Do Q')",
                "may decode to more than 4496 bytes"
            ),
            // Filter names abbreviated as inline images may (PDF 1.7, 8.9.7): libqpdf and
            // Ghostscript honour them, so RGB paint under `/Fl` must fail as under `/FlateDecode`.
            (
                "abbreviated",
                "import zlib\ns = pikepdf.Stream(pdf, zlib.compress(b'1 0 0 rg 0 0 10 10 re f ' + "
                    + "pdf.pages[1].Contents.read_bytes()))\ns.Filter = pikepdf.Name('/Fl')\npdf.pages[1].Contents = s",
                "FAIL colour: RGB found"
            ),
            (
                "abbreviatedarray",
                "import zlib, binascii\ns = pikepdf.Stream(pdf, binascii.hexlify(zlib.compress(b'1 0 0 rg 0 0 10 10 re f ' + "
                    + "pdf.pages[1].Contents.read_bytes())) + b'>')\n"
                    + "s.Filter = pikepdf.Array([pikepdf.Name('/AHx'), pikepdf.Name('/Fl')])\npdf.pages[1].Contents = s",
                "FAIL colour: RGB found"
            ),
            // A filter nothing here undoes is refused, never read as its encoded bytes.
            (
                "runlength",
                "s = pikepdf.Stream(pdf, b'1 0 0 rg 0 0 10 10 re f')\ns.Filter = pikepdf.Name('/RL')\n"
                    + "pdf.pages[1].Contents = s",
                "filtered by /RunLengthDecode, which is not decoded here"
            ),
            // A form drawing another ten times, six deep: 10^6 draws at 10^6 places, each one cheap.
            (
                "fanout",
                "leaf = pdf.make_indirect(pikepdf.Stream(pdf, b'0 0 0 1 k 0 0 1 1 re f'))\n"
                    + "leaf.Type = pikepdf.Name.XObject\nleaf.Subtype = pikepdf.Name.Form\nleaf.BBox = [0, 0, 1, 1]\n"
                    + "for level in range(6):\n"
                    + "    body = b''.join(b'q 1 0 0 1 %d 0 cm /F Do Q ' % (i * 10 ** level) for i in range(10))\n"
                    + "    form = pdf.make_indirect(pikepdf.Stream(pdf, body))\n"
                    + "    form.Type = pikepdf.Name.XObject\n    form.Subtype = pikepdf.Name.Form\n"
                    + "    form.BBox = [0, 0, 10, 10]\n"
                    + "    form.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(F=leaf))\n    leaf = form\n"
                    + "pdf.pages[0].Resources.XObject.Fan = leaf\n"
                    + "pdf.pages[0].Contents.write(pdf.pages[0].Contents.read_bytes() + b' /Fan Do')",
                "FAIL structure: more than 10000 forms drawn"
            ),
        ]
        for (name, edit, failure) in broken {
            let file = "\(scratch)/\(name).pdf"
            _ = try tool(
                "/usr/bin/python3", "-c",
                "import sys, pikepdf\npdf = pikepdf.open(sys.argv[1])\n\(edit)\npdf.save(sys.argv[2])", good, file)
            let run = try Tools.run(Tools.cardrender, ["preflight", file, "--press", "eu-a6-fogra39"])
            #expect(run.status == 1, "\(name) passed: \(run.stdoutText)")
            #expect(run.stdoutText.contains(failure), "\(name): \(run.stdoutText)")
        }
        // impose reads the pages too: the bomb is refused naming the file, and no sheet is written.
        let imposed = try Tools.run(
            Tools.cardrender,
            ["impose", scratch + "/contentbomb.pdf", "--sheet", "a3", "--out", scratch + "/sheet.pdf"])
        #expect(imposed.status == 1)
        #expect(imposed.stderr.contains("contentbomb.pdf: page 2's content cannot be read"), "\(imposed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch + "/sheet.pdf"))
        // Not a PDF at all, and a PDF cut short: named, exit 1.
        try Data("not a pdf".utf8).write(to: URL(fileURLWithPath: scratch + "/text.pdf"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: scratch + "/cut.pdf"))
        for file in ["text.pdf", "cut.pdf"] {
            let run = try Tools.run(Tools.cardrender, ["preflight", scratch + "/" + file])
            #expect(run.status == 1 && run.stdoutText.contains("FAIL structure"), "\(file): \(run.stdoutText)")
        }
        // A missing file and a directory: each named with its cause; the good file still checked.
        let unreadable = try Tools.run(Tools.cardrender, ["preflight", scratch + "/missing.pdf", scratch, good])
        #expect(unreadable.status == 1)
        #expect(unreadable.stderr.contains("missing.pdf: cannot be opened (No such file or directory)"))
        #expect(unreadable.stderr.contains("\(scratch): not a regular file"), "\(unreadable.stderr)")
        #expect(unreadable.stdoutText.contains("card.print.pdf: passed"))
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func imposedSheetsHoldTheCardsAsFormsWithBacksInRegister() throws {
        let out = try render(press: "eu-a6-fogra39")
        let scratch = try Fixtures.scratchDirectory()
        let cards = [out + "/card.print.pdf", out + "/card.verso-2.print.pdf", out + "/card.print.pdf"]
        let sheets = scratch + "/sheets.pdf"
        let run = try Tools.run(Tools.cardrender, ["impose"] + cards + ["--sheet", "sra3", "--out", sheets])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("3 postcards on 1 sheet of 450 x 320 mm, 2 x 2 up"), "\(run.stderr)")
        #expect(try tool("/usr/bin/qpdf", "--check", sheets).contains("No syntax or stream encoding errors"))
        let info = try tool("/usr/bin/pdfinfo", sheets)
        #expect(info.contains("Pages:           2") && info.contains("PDF subtype:    PDF/X-1:2001"), "\(info)")
        // Each card a form; the back of the card at the top left lies at the top right.
        let placed = try pikepdf(
            sheets,
            """
            import re
            print(str(pdf.Root.OutputIntents[0].OutputConditionIdentifier))
            for page in pdf.pages:
                forms = page.Resources.XObject
                print(' '.join(sorted(str(forms[k].Subtype) for k in forms.keys())))
                content = page.Contents.read_bytes().decode('latin-1')
                for a, b, c, d, x, y, name in re.findall(r'q ([-0-9.]+) ([-0-9.]+) ([-0-9.]+) ([-0-9.]+) ([-0-9.]+) ([-0-9.]+) cm (/Card[0-9]) Do Q', content):
                    print(name, round(float(x)), round(float(y)))
                print('marks', content.count(' l\\n'))
            """)
        let lines = placed.split(separator: "\n").map(String.init)
        #expect(lines[0] == "FOGRA39")
        #expect(lines[1] == "/Form /Form /Form" && lines[6] == "/Form /Form /Form", "\(placed)")
        func position(_ line: String) -> (x: Int, y: Int) {
            let parts = line.split(separator: " ")
            return (Int(parts[1]) ?? -1, Int(parts[2]) ?? -1)
        }
        let front = lines[2...4].map(position), back = lines[7...9].map(position)
        let cardWidth = (148.0 + 6) / 25.4 * 72
        #expect(front[0].y == front[1].y && front[0].x < front[1].x && front[2].y < front[0].y, "\(front)")
        for index in 0..<3 {
            // Mirrored about the sheet's vertical axis: x + back x + card width = sheet width.
            #expect(abs(Double(front[index].x + back[index].x) + cardWidth - 1275.59) < 2, "\(front) \(back)")
            #expect(front[index].y == back[index].y)
        }
        // Crop marks at every trim line of the 2 x 2 block, top and bottom, left and right.
        #expect(lines[5] == "marks 16" && lines[10] == "marks 16", "\(placed)")

        // Marks that do not fit, and postcards of two sizes, are refused with the numbers.
        let small = try Tools.run(
            Tools.cardrender, ["impose", cards[0], "--sheet", "150x100", "--out", scratch + "/s.pdf"])
        #expect(small.status == 1)
        #expect(small.stderr.contains("a card needs 167.9 x 124.9 mm with its bleed and crop marks"), "\(small.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch + "/s.pdf"))
        let us = try render(press: "us-4x6-gracol") + "/card.print.pdf"
        let mixed = try Tools.run(Tools.cardrender, ["impose", cards[0], us, "--out", scratch + "/m.pdf"])
        #expect(mixed.status == 1 && mixed.stderr.contains("a sheet holds postcards of one size"), "\(mixed.stderr)")
        #expect(mixed.stderr.contains("158.8 x 108 mm with 3.2 mm bleed"), "\(mixed.stderr)")
    }

    @Test(.enabled(if: toolsInstalled, noTools))
    func theReportGalleryAndRunManifestCarryThePDFs() throws {
        let out = try render(press: "eu-a6-fogra39", extra: ["--run", "press"])
        let input = (out as NSString).deletingLastPathComponent + "/in"
        let report = try String(contentsOfFile: out + "/report.json", encoding: .utf8)
        #expect(report.contains("card.print.pdf") && report.contains("card.verso-2.print.pdf"), "\(report)")
        let gallery = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(gallery.contains("href=\"card.print.pdf\""), "the gallery links the postcard")
        let manifest = try String(contentsOfFile: out + "/runs/press/shard-0-of-1.jsonl", encoding: .utf8)
        #expect(manifest.contains("card.print.pdf") && manifest.contains("card.verso-2.print.pdf"))
        #expect(!manifest.contains("card.verso-1.print"), "the first back is page 2 of card.print.pdf")
        let verify = try Tools.run(
            Tools.cardrender, ["runs", "verify", "press", "--shards", "1", "--out", out, "--inputs", input])
        #expect(verify.status == 0, "\(verify.stdoutText) \(verify.stderr)")
        // A changed PDF is found.
        let file = out + "/card.verso-2.print.pdf"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: file))
        let changed = try Tools.run(
            Tools.cardrender, ["runs", "verify", "press", "--shards", "1", "--out", out, "--inputs", input])
        #expect(changed.status != 0 && (changed.stdoutText + changed.stderr).contains("card.verso-2.print.pdf"))
    }

    @Test func pressOptionsAreCheckedBeforeAnyWork() throws {
        let scratch = try Fixtures.scratchDirectory()
        let tiff = try Tools.run(
            Tools.cardrender,
            ["render", scratch, "--out", scratch + "/out", "--press", "gelato-a6", "--print-format", "tiff"])
        #expect(tiff.status == 64 && tiff.stderr.contains("--print-format tiff cannot be used with --press gelato-a6"))
        let unknown = try Tools.run(
            Tools.cardrender, ["render", scratch, "--out", scratch + "/out", "--press", "offset"])
        #expect(unknown.status == 64 && unknown.stderr.contains("offset"), "\(unknown.stderr)")
        let missing = try Tools.run(
            Tools.cardrender, ["render", scratch, "--out", scratch + "/out", "--press", "eu-a6-fogra39"],
            environment: Vips.environmentForChildren.merging(["CARDRENDER_PRESS_PROFILES": scratch + "/none"]) { $1 })
        #expect(
            missing.status == 64 && missing.stderr.contains("FOGRA39-TAC300.icc: cannot be read"), "\(missing.stderr)")
    }
}
