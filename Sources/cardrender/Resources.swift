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
