#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// How many libvips threads one image gets.
public enum VipsThreads {
    /// With several images in parallel each worker is a core already: extra libvips
    /// threads per image only compete (measured in benchmarks/RESULTS.md). A single image
    /// gets every core.
    public static func perImage(jobs: Int, items: Int) -> Int {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let parallel = min(jobs, items)
        return parallel <= 1 ? cores : max(1, cores / parallel)
    }
}
