import ArgumentParser
import PressKit
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Finds the data cardrender ships beside its code: the frame catalogue and sample photos.
enum Resources {
    /// The frame catalogue directory: `--frames`, else `$CARDRENDER_FRAMES`, else `frames/`
    /// of the source tree the binary was built in (`.build/<config>/cardrender`), of an
    /// install (`bin/../share/cardrender/frames`), or of the current directory.
    static func framesDirectory(_ option: String?) -> String {
        if let option { return option }
        if let environment = ProcessInfo.processInfo.environment["CARDRENDER_FRAMES"] { return environment }
        return firstExisting(relativeToExecutable: ["../../frames", "../../../frames", "../share/cardrender/frames"])
            ?? "frames"
    }

    /// The press profiles' ICC files: `$CARDRENDER_PRESS_PROFILES`, else `press/profiles` of
    /// the source tree the binary was built in, or of an install (`share/cardrender/press`).
    static func pressProfilesDirectory() -> String {
        if let environment = ProcessInfo.processInfo.environment["CARDRENDER_PRESS_PROFILES"] { return environment }
        return firstExisting(relativeToExecutable: [
            "../../press/profiles", "../../../press/profiles", "../share/cardrender/press",
        ]) ?? "press/profiles"
    }

    /// The press profile `name` (nil for `rgb-jpeg`, today's RGB JPEG), its printing
    /// condition's ICC profile read from `pressProfilesDirectory()`.
    /// - Throws: `ValidationError` naming the file when a profile cannot be read.
    static func pressProfile(_ name: String) throws -> PressProfile? {
        guard name != PressProfile.rgbJPEGName else { return nil }
        do {
            let conditions = try PressCondition.bundled(in: pressProfilesDirectory())
            let presets = PressProfile.presets(fogra39: conditions.fogra39, gracol2006: conditions.gracol2006)
            guard let preset = presets.first(where: { $0.name == name }) else {
                let names = ["rgb-jpeg"] + presets.map(\.name)
                throw ValidationError("--press must be one of \(names.joined(separator: ", ")); received \(name).")
            }
            return preset
        } catch let error as PressProfileError {
            throw ValidationError("--press \(name) cannot be used: \(error)")
        }
    }

    /// A bundled sample photo for previews (`scripts/samples/autumn-leaf-jolla.jpg` of the source tree).
    static func samplePhoto() -> String? {
        firstExisting(relativeToExecutable: [
            "../../scripts/samples/autumn-leaf-jolla.jpg", "../../../scripts/samples/autumn-leaf-jolla.jpg",
        ])
    }

    private static func firstExisting(relativeToExecutable candidates: [String]) -> String? {
        guard let executable = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(executable) }
        let directory = FilePath(String(cString: executable)).removingLastComponent()
        for candidate in candidates {
            let path = directory.pushing(FilePath(candidate)).lexicallyNormalized().string
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        return nil
    }
}
