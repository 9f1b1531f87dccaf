import Foundation
import TestSupport
import Testing
import VipsKit

/// The installable cardrender that `scripts/package.sh` makes (the README's test command
/// runs it first): no library of the Swift toolchain is linked, the installed binary
/// renders the samples with the toolchain off `PATH`, finding its frames under
/// `share/cardrender`, and the `.deb` holds the same files and names its Debian libraries,
/// those opened on first use (libvips, Pango) included.
@Suite(
    .libvips,
    .enabled(
        if: InstalledArtifact.binary != nil,
        "no installed artifact (.build/dist/cardrender): run `bash scripts/package.sh` (scripts/test.sh does)"))
struct InstalledArtifactTests {
    @Test func itLinksNothingFromTheSwiftToolchain() throws {
        let ldd = try Tools.run("/usr/bin/ldd", [InstalledArtifact.binary!])
        #expect(ldd.status == 0, "\(ldd.stderr)")
        let lines = ldd.stdoutText.split(separator: "\n")
        #expect(lines.count > 5, "a dynamically linked binary: \(ldd.stdoutText)")
        for line in lines {
            #expect(!line.contains("not found"), "\(line)")
            for name in ["libswift", "libdispatch", "libFoundation", "libBlocksRuntime", "/swift/", "/usr/share/swift"]
            {
                #expect(!line.contains(name), "\(line)")
            }
        }
        // libvips and Pango are opened on first use, not linked (CLazyLibraries).
        #expect(lines.contains { $0.contains("libjpeg.so.62") })
        #expect(!lines.contains { $0.contains("libvips") || $0.contains("libglib") || $0.contains("libpango") })
    }

    @Test func theInstalledBinaryRendersWithTheToolchainOffPath() async throws {
        let out = try Fixtures.scratchDirectory("artifact-out")
        let samples = Fixtures.root.appendingPathComponent("scripts/samples").path
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": try Fixtures.scratchDirectory("artifact-home"), "LANG": "C.UTF-8",
        ]
        let run = try await Tools.onWorkerThread {
            try Tools.run(
                InstalledArtifact.binary!, ["render", samples, "--out", out, "--quiet", "--no-cache", "--run", "node"],
                environment: environment)
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("no frame catalogue"), "frames found under share/cardrender: \(run.stderr)")
        let prints = Fixtures.files(under: out).filter { $0.hasSuffix(".print.jpg") }
        #expect(prints.count >= 4)
        let card = try Fixtures.load(out + "/autumn-leaf-jolla.print.jpg")
        #expect(card.width > 1000 && card.height > 1000)
        let frames = try Tools.run(InstalledArtifact.binary!, ["frames"], environment: environment)
        #expect(frames.status == 0 && frames.stdoutText.contains("classic/gilded"), "\(frames.stderr)")
        // The press profiles are found under share/cardrender/press.
        let pressed = try Fixtures.scratchDirectory("artifact-press")
        let press = try await Tools.onWorkerThread {
            try Tools.run(
                InstalledArtifact.binary!,
                [
                    "render", samples + "/autumn-leaf-jolla.jpg", "--out", pressed, "--quiet", "--no-cache", "--press",
                    "eu-a6-fogra39",
                ], environment: environment)
        }
        #expect(press.status == 0, "\(press.stderr)")
        let pdf = try Data(contentsOf: URL(fileURLWithPath: pressed + "/autumn-leaf-jolla.print.pdf"))
        #expect(pdf.starts(with: Data("%PDF-1.3".utf8)))
    }

    @Test("the installed binary places a photo by its faces through lib/cardrender's plugin, which links OpenCV alone")
    func theInstalledBinaryFindsFacesThroughItsPlugin() async throws {
        let plugin = InstalledArtifact.directory + "/cardrender/lib/cardrender/libFaceDetectorPlugin.so"
        let ldd = try Tools.run("/usr/bin/ldd", [plugin])
        #expect(ldd.status == 0, "\(ldd.stderr)")
        #expect(ldd.stdoutText.contains("libopencv_objdetect.so.406"), "\(ldd.stdoutText)")
        for name in ["not found", "libswift", "/swift/"] {
            #expect(!ldd.stdoutText.contains(name), "\(ldd.stdoutText)")
        }
        let input = try Fixtures.scratchDirectory("artifact-faces")
        try FileManager.default.copyItem(
            atPath: Fixtures.root.path + "/Tests/faces/two-astronauts-2400x1200.jpg",
            toPath: input + "/two-astronauts-2400x1200.jpg")
        let out = try Fixtures.scratchDirectory("artifact-faces-out")
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": try Fixtures.scratchDirectory("artifact-home"), "LANG": "C.UTF-8",
        ]
        let run = try await Tools.onWorkerThread {
            try Tools.run(
                InstalledArtifact.binary!,
                ["render", input, "--out", out, "--placement", "auto", "--quiet", "--no-cache"],
                environment: environment)
        }
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: out + "/report.json")))
        let card = try #require(((report as? [String: Any])?["cards"] as? [[String: Any]])?.first)
        #expect((card["placement"] as? [String: Any])?["reason"] as? String == "2 faces kept", "\(card)")
    }

    @Test func theDebianPackageHoldsTheInstallAndNamesItsLibraries() throws {
        let deb = try #require(InstalledArtifact.deb, "package.sh writes a .deb beside the install")
        let info = try Tools.run("/usr/bin/dpkg-deb", ["--field", deb, "Depends"])
        #expect(info.status == 0, "\(info.stderr)")
        for package in [
            "libvips42", "libjpeg62-turbo", "libc6", "fonts-liberation2", "fonts-dancingscript",
            "fonts-noto-color-emoji",
            "libpangocairo-1.0-0", "libglib2.0-0", "libcairo2", "libfontconfig1", "libheif1", "libqpdf29",
            "libopencv-objdetect406",
        ] {
            #expect(info.stdoutText.contains(package), "Depends: \(info.stdoutText)")
        }
        let contents = try Tools.run("/usr/bin/dpkg-deb", ["--contents", deb])
        for path in [
            "./opt/cardrender/bin/cardrender", "./opt/cardrender/share/cardrender/frames/",
            "./usr/bin/cardrender -> /opt/cardrender/bin/cardrender", "./lib/systemd/system/cardrender-serve@.service",
            "./opt/cardrender/share/cardrender/deploy/nginx/cardrender.conf",
            "./opt/cardrender/share/cardrender/press/FOGRA39-TAC300.icc",
            "./opt/cardrender/share/cardrender/press/GRACoL2006-TAC300.icc",
            "./opt/cardrender/lib/cardrender/libFaceDetectorPlugin.so",
        ] {
            #expect(contents.stdoutText.contains(path), "\(path) in the .deb")
        }
    }
}

/// Where `scripts/package.sh` puts its output by default.
enum InstalledArtifact {
    static let directory = Fixtures.root.appendingPathComponent(".build/dist").path

    /// `.build/dist/cardrender/bin/cardrender`, when built.
    static let binary: String? = {
        let path = directory + "/cardrender/bin/cardrender"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// The newest `.deb` beside it.
    static let deb: String? = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("cardrender_") && $0.hasSuffix(".deb") }.sorted().last.map {
            directory + "/" + $0
        }
    }()
}
