#if canImport(Glibc)
    import Glibc
#endif

/// What the tests' children inherit of the test process's open files: nothing beyond
/// standard input, output and error.
enum SpawnedFiles {
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later: closes every
    /// descriptor from the one given in the child), found at run time: glibc's header declares
    /// it only under `_GNU_SOURCE`, which Swift's Glibc module is not built with. Nil on an older
    /// glibc, where children inherit as before.
    static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()
}
