internal import CVips
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Process-wide libvips set-up: started once, explicitly, before any other libvips call.
///
/// `start()` belongs at a program's entry (the CLI's `main`, a server's start, a test
/// trait), before the program starts threads of its own: it changes the environment
/// (`VipsModules`), and `setenv` is not thread-safe. Every VipsKit call that reaches
/// libvips checks that it was done (`requireStarted`) instead of starting libvips itself
/// on whichever thread happens to come first.
public enum Vips {
    /// Runs `vips_init` exactly once (Swift runs a global's initialiser once, thread-safely).
    ///
    /// Also: untrusted loaders (PDF, FITS, Matlab, ...) are blocked process-wide; the
    /// operation cache is off, because it keys file loads by name and a long-running
    /// process would serve stale pixels for a file changed on disk (we load from bytes
    /// anyway); libvips's own warnings are routed to `warningHandler` instead of stderr,
    /// because our errors already name the file and the cause.
    private static let initialised: Bool = {
        VipsModules.prepareBeforeInit()
        defer { VipsModules.finishAfterInit() }
        guard vips_init("cardrender") == 0 else {
            let error = takeVipsError("init", file: nil)
            fatalError("libvips could not start: \(error.message)")
        }
        vips_block_untrusted_set(1)
        // Frame art is our own SVG, rendered through `VImage.trustedSVG`; user input never
        // reaches this loader because it is identified by content and SVG is refused.
        vips_operation_block_set("VipsForeignLoadSvg", 0)
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        _ = g_log_set_handler(
            "VIPS", GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue),
            { _, _, _, _ in }, nil)
        return true
    }()

    /// Set once `start` has run.
    private static let started = Atomic<Bool>(false)

    /// Initialises libvips; later calls do nothing.
    ///
    /// Call it at the program's entry, before the process starts threads of its own:
    /// start-up changes the environment (see `VipsModules`), and `setenv` is not thread-safe.
    public static func start() {
        _ = initialised
        started.store(true, ordering: .releasing)
    }

    /// Whether `start` has run.
    public static var isStarted: Bool { started.load(ordering: .acquiring) }

    /// Stops the program with a clear message when libvips was not started: a library
    /// caller that skips `Vips.start()` learns it at its first call, on every run.
    @inline(__always)
    static func requireStarted() {
        precondition(
            isStarted, "VipsKit: call Vips.start() once at the program's entry, before any other VipsKit call.")
    }

    /// The libvips version cardrender was compiled against (no initialisation needed).
    public static let compiledVersion = VIPS_VERSION

    /// The libvips version in use, e.g. `8.14.1`.
    public static var version: String {
        requireStarted()
        return String(cString: vips_version_string())
    }

    /// Threads libvips uses inside one image pipeline (`vips_concurrency_set`).
    ///
    /// When several images run in parallel on their own workers, 1 is usually best:
    /// more threads per image only compete with the other workers.
    public static var concurrency: Int {
        get {
            requireStarted()
            return Int(vips_concurrency_get())
        }
        set {
            requireStarted()
            vips_concurrency_set(Int32(max(1, newValue)))
        }
    }

    /// Caps glibc malloc's arenas (`mallopt(M_ARENA_MAX)`); call first thing in `main`.
    ///
    /// glibc gives threads that allocate at once arenas of their own, and libvips's worker
    /// threads fragment them: two arenas cut the peak RSS of a 2-job card batch from about
    /// 200 to about 155 MiB at the same speed (GNU time on 24 corpus JPEGs; see
    /// benchmarks/RESULTS.md). The known alternative is jemalloc.
    public static func limitMallocArenas(_ count: Int) {
        _ = mallopt(M_ARENA_MAX, Int32(count))
    }

    /// Frees libvips's per-thread buffers.
    ///
    /// Call at the end of each job a worker thread runs (sharp does the same): threads of
    /// a Dispatch pool are reused and never exit, so libvips cannot free them itself.
    /// The error buffer is deliberately not cleared here: it is process-wide, and clearing
    /// it after every job wiped the text of a failure another worker was about to report
    /// (seen in tests). `takeVipsError` clears it when it reads it; it is bounded in size.
    public static func endThreadJob() {
        requireStarted()
        vips_thread_shutdown()
    }
}
