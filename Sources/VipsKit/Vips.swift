internal import CVips
internal import CVipsShim
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

/// Process-wide libvips set-up: prepared once, explicitly, at the program's entry; libvips
/// itself is opened and initialised on first use.
///
/// libvips is not linked (CLazyLibraries): a process whose work all takes the fast path
/// (JPEG cards and thumbnails, `--version`) never maps it nor its 118 libraries. `start()`
/// belongs at a program's entry (the CLI's `main`, a server's start, a test trait), before
/// the program starts threads of its own: it sets the environment libvips will read
/// (`VipsModules`), and `setenv` is not thread-safe. The first VipsKit call that reaches
/// libvips, on whatever thread, then opens it (`requireLoaded`); a libvips that cannot be
/// opened (missing, lacking a function, another version) throws a `VipsError` naming the
/// file and the cause to that call and every later one.
public enum Vips {
    /// Opens libvips and runs `vips_init` exactly once (Swift runs a global's initialiser
    /// once, thread-safely).
    ///
    /// Also: untrusted loaders (PDF, FITS, Matlab, ...) are blocked process-wide; the
    /// operation cache is off, because it keys file loads by name and a long-running
    /// process would serve stale pixels for a file changed on disk (we load from bytes
    /// anyway); libvips's own warnings are routed to `warningHandler` instead of stderr,
    /// because our errors already name the file and the cause.
    private static let initialised: Result<Void, VipsError> = {
        var error: UnsafePointer<CChar>?
        guard CVipsShim_load(&error) == 0 else {
            // Thrown to every caller: a batch reports it per file and goes on, a server answers
            // 500 and stays up (a missing library, a missing function, another version).
            let reason = error.map { String(cString: $0) } ?? "libvips could not be loaded"
            return .failure(
                VipsError(
                    operation: "load", file: nil,
                    message: "this work needs libvips (Debian package libvips42): \(reason)"
                ))
        }
        VipsModules.findHEIFModule()
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
        let threads = requestedConcurrency.load(ordering: .acquiring)
        if threads > 0 { vips_concurrency_set(Int32(threads)) }
        loaded.store(true, ordering: .releasing)
        return .success(())
    }()

    /// Set once `start` has run.
    private static let started = Atomic<Bool>(false)
    /// Set once libvips is open and initialised.
    private static let loaded = Atomic<Bool>(false)
    /// Threads per image asked for before libvips was opened (0: libvips's default).
    private static let requestedConcurrency = Atomic<Int>(0)

    /// Prepares the environment libvips will read; later calls do nothing. libvips itself
    /// is opened by the first call that needs it.
    ///
    /// Call it at the program's entry, before the process starts threads of its own:
    /// it changes the environment (see `VipsModules`), and `setenv` is not thread-safe.
    public static func start() {
        _ = environmentPrepared
        started.store(true, ordering: .releasing)
    }

    private static let environmentPrepared: Bool = {
        if VipsModules.prepareEnvironment() { _ = initialised }
        return true
    }()

    /// This process's environment as another program should inherit it: without the
    /// `VIPSHOME` that `start` set for on-demand modules, where another libvips program
    /// (the `vips` CLI, pyvips) would find no modules at all.
    public static var environmentForChildren: [String: String] {
        ProcessInfo.processInfo.environment.filter { $0.key != "VIPSHOME" || $0.value != VipsModules.onDemandHome }
    }

    /// Whether `start` has run.
    public static var isStarted: Bool { started.load(ordering: .acquiring) }

    /// Whether libvips has been opened in this process (asking opens nothing).
    public static var isLoaded: Bool { loaded.load(ordering: .acquiring) }

    /// Stops the program with a clear message when `start` was skipped: a library caller
    /// learns it at its first call, on every run.
    @inline(__always)
    static func requireStarted() {
        precondition(
            isStarted, "VipsKit: call Vips.start() once at the program's entry, before any other VipsKit call.")
    }

    /// Opens and initialises libvips on first call (after `requireStarted`).
    /// - Throws: `VipsError` naming the file, or the function missing, and the cause, when
    ///   libvips cannot be opened (the same error on every later call).
    @inline(__always)
    static func requireLoaded() throws(VipsError) {
        requireStarted()
        try initialised.get()
    }

    /// Opens and initialises libvips now, if it is not yet (`start` must have run): for a
    /// caller that must know libvips is there before work whose failures it classifies
    /// (a decode's failure is the photo's; a missing libvips is not).
    /// - Throws: `VipsError` naming the file, or the function missing, and the cause.
    public static func open() throws(VipsError) {
        try requireLoaded()
    }

    /// The libvips version cardrender was compiled against (no initialisation needed).
    ///
    /// Cache keys and reports name this one, not the loaded library's: a fast-path process
    /// never opens libvips, and Debian's libvips42 keeps its upstream version across
    /// security updates (a new upstream version comes with a new Debian release, and a
    /// rebuild).
    public static let compiledVersion = VIPS_VERSION

    /// The libvips version in use, e.g. `8.14.1` (opens libvips).
    /// - Throws: `VipsError` when libvips cannot be opened.
    public static var version: String {
        get throws(VipsError) {
            try requireLoaded()
            return String(cString: vips_version_string())
        }
    }

    /// Threads libvips uses inside one image pipeline (`vips_concurrency_set`).
    ///
    /// When several images run in parallel on their own workers, 1 is usually best:
    /// more threads per image only compete with the other workers. Setting it before
    /// libvips is opened keeps the value for when it is; reading it opens libvips.
    public static var concurrency: Int {
        get {
            // A libvips that cannot be opened runs nothing: what was asked for stands.
            guard (try? requireLoaded()) != nil else { return requestedConcurrency.load(ordering: .acquiring) }
            return Int(vips_concurrency_get())
        }
        set {
            let threads = max(1, newValue)
            requestedConcurrency.store(threads, ordering: .releasing)
            if isLoaded { vips_concurrency_set(Int32(threads)) }
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

    /// Maps every allocation of `bytes` or more on its own and unmaps it when freed
    /// (`mallopt(M_MMAP_THRESHOLD)`, which also stops glibc raising that threshold by itself).
    ///
    /// For a long-lived server: glibc raises the threshold to the size of the largest block
    /// freed (up to 32 MiB), after which decode buffers of every size come from the heap,
    /// whose holes stay resident. Under 700 mixed misses (HEIC included, 4 clients,
    /// `benchmarks/server-memory.sh`) a 1 MiB threshold ended at 152 MiB instead of 299-355
    /// (peak 291 instead of 414-448), the price being page faults on each large buffer
    /// (see benchmarks/RESULTS.md, issue 20). Batch runs keep glibc's default: their peak
    /// is bounded by their jobs, and they exit.
    ///
    /// - Parameter keepingFreeTop: the free memory at a heap's top kept rather than given back
    ///   (`M_TRIM_THRESHOLD`, which setting the threshold otherwise leaves at 128 KiB): the
    ///   buffers of a preview (1 to 2 MB each, below the threshold) are then reused without
    ///   a page fault on each of their pages.
    public static func mapLargeAllocations(from bytes: Int, keepingFreeTop: Int) {
        _ = mallopt(M_MMAP_THRESHOLD, Int32(clamping: bytes))
        _ = mallopt(M_TRIM_THRESHOLD, Int32(clamping: keepingFreeTop))
    }

    /// Gives the free memory of every malloc arena back to the system (`malloc_trim(0)`,
    /// which also releases the free pages inside an arena, not only at its top).
    ///
    /// For after a very large image (a PNG of 100 MP reduced as it is read): its many
    /// buffers under the mapping threshold leave holes in the arenas that stay resident, and
    /// the next large image would add its own peak on top (a 100 MP PNG's preview peaked at
    /// 294 MiB without, 230 with). Not after every image: a preview's buffers are reused.
    public static func releaseFreeMemory() {
        _ = malloc_trim(0)
    }

    /// Frees libvips's per-thread buffers.
    ///
    /// Call at the end of each job a worker thread runs (sharp does the same): threads of
    /// a Dispatch pool are reused and never exit, so libvips cannot free them itself.
    /// The error buffer is deliberately not cleared here: it is process-wide, and clearing
    /// it after every job wiped the text of a failure another worker was about to report
    /// (seen in tests). `takeVipsError` clears it when it reads it; it is bounded in size.
    /// Does nothing when libvips was never opened.
    public static func endThreadJob() {
        guard isLoaded else { return }
        vips_thread_shutdown()
    }
}
