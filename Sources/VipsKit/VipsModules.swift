internal import CVips
import Synchronization
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Loads the one libvips module cardrender uses (HEIF) only when it is needed.
///
/// `vips_init` dlopens every module in `vips-modules-8.14/`: HEIF, but also ImageMagick,
/// poppler (PDF), OpenSlide and JPEG XL, with their dependency trees. cardrender reads
/// none of the last four (untrusted loaders, blocked anyway), and HEIF (libheif with its
/// H.265 and AV1 codecs) is needed only for HEIC/AVIF input or AVIF output. Loading
/// them all cost about 30 ms of every process (`hyperfine 'vips --version'` with and
/// without modules; benchmarks/RESULTS.md). So `vips_init` runs with `VIPSHOME` pointing
/// at an empty place (`onDemandHome`), where it finds no modules, and the HEIF module is
/// opened the way libvips opens modules (`g_module_open`; its `g_module_check_init`
/// registers the heif loader and saver) the first time HEIF bytes are seen or AVIF is
/// written.
///
/// `VIPSHOME` is set once at the program's entry (`Vips.start`) and left set: libvips is
/// opened later, on whichever thread first needs it, and `vips_init` would otherwise set
/// `VIPSHOME` itself (`vips_guess_prefix`), on that thread, while others may read the
/// environment. A process started with `VIPSHOME` at `onDemandHome` (a child of
/// cardrender) treats it as unset.
///
/// `CARDRENDER_VIPS_MODULES=all` loads every module as libvips would; nothing changes
/// either when `VIPSHOME` is already set or the HEIF module is not where libvips keeps it.
enum VipsModules {
    /// Where `VIPSHOME` points while modules load on demand: nothing is there.
    static let onDemandHome = "/nonexistent/cardrender-vips-modules-on-demand"

    /// Whether modules load on demand in this process (set once, in `prepareEnvironment`).
    private static let onDemand = Atomic<Bool>(false)

    /// The HEIF module's path when it is to be loaded on demand (nil: libvips loaded it, or
    /// there is none).
    nonisolated(unsafe) private static var heifModule: String?
    // Safe: written once in `findHEIFModule`, which runs inside `Vips.initialised`'s
    // one-time initialiser before any VipsKit call can reach libvips; read-only after.

    /// Sets `VIPSHOME` for on-demand modules; run once, at the program's entry.
    /// - Returns: whether libvips must be opened now, while the process has one thread:
    ///   with every module wanted and no `VIPSHOME`, `vips_init` sets it itself.
    static func prepareEnvironment() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["VIPSHOME"]
        if environment["CARDRENDER_VIPS_MODULES"] == "all" {
            if home == onDemandHome { unsetenv("VIPSHOME") }
            return home == nil || home == onDemandHome
        }
        guard home == nil || home == onDemandHome else { return false }
        onDemand.store(true, ordering: .releasing)
        if home == nil { setenv("VIPSHOME", onDemandHome, 1) }
        return false
    }

    /// Finds the HEIF module beside the libvips just opened; run once, before `vips_init`.
    static func findHEIFModule() {
        guard onDemand.load(ordering: .acquiring), let directory = moduleDirectory(),
            FileManager.default.fileExists(atPath: directory + "/vips-heif.so")
        else { return }
        heifModule = directory + "/vips-heif.so"
    }

    /// Opens the HEIF module once, on first need; a no-op when libvips loaded it itself.
    static func requireHEIF() {
        _ = heifLoaded
    }

    private static let heifLoaded: Bool = {
        guard let path = heifModule else { return true }
        // Modules stay loaded for the life of the process, as libvips's own do.
        guard g_module_open(path, G_MODULE_BIND_LAZY) != nil else {
            let reason = g_module_error().map { String(cString: $0) } ?? "unknown reason"
            _ = try? FileDescriptor.standardError.writeAll(
                "cardrender: libvips module \(path) not loaded: \(reason)\n".utf8)
            return false
        }
        return true
    }()

    /// Whether `bytes` start like an ISO base media file (HEIC, AVIF): a `ftyp` box.
    static func looksLikeHEIF(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 12 && bytes[4] == 0x66 && bytes[5] == 0x74 && bytes[6] == 0x79 && bytes[7] == 0x70
    }

    /// `<directory of libvips.so>/vips-modules-MAJOR.MINOR`, where libvips installs modules.
    /// The library's path is read from this process's own memory map (Linux).
    private static func moduleDirectory() -> String? {
        // Read line by line: /proc files report size 0, so sized reads stop early.
        guard let maps = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(maps) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, maps) > 0, let text = line.map({ String(cString: $0) }) {
            guard text.contains("/libvips.so"), let slash = text.firstIndex(of: "/") else { continue }
            let path = trimmed(text[slash...])
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            let directory = FilePath(String(cString: resolved)).removingLastComponent().string
            return directory + "/vips-modules-\(VIPS_MAJOR_VERSION).\(VIPS_MINOR_VERSION)"
        }
        return nil
    }
}
