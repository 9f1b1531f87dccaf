#ifndef CFILEUTILITIES_H
#define CFILEUTILITIES_H

// openat2(2) for Swift: glibc 2.36 has no wrapper and Swift cannot call the variadic
// syscall(2). Used by FileUtilities' ConfinedDirectory to open a file beneath a directory
// in one step (RESOLVE_BENEATH), so no check-then-open race can let a symbolic link out.

#include <stdint.h>

/// openat2(dirfd, path, {flags, mode 0, resolve}); the descriptor, or -1 with errno set
/// (ENOSYS where the kernel or a seccomp filter lacks it).
int CFileUtilities_openat2(int dirfd, const char *path, int flags, uint64_t resolve);

/// RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: every component, symbolic links included,
/// must stay beneath dirfd; /proc magic links are refused.
uint64_t CFileUtilities_resolve_beneath(void);

/// open(path, O_PATH | O_DIRECTORY | O_CLOEXEC): a directory to resolve paths beneath
/// (O_PATH is hidden from Swift's Glibc module).
int CFileUtilities_open_directory(const char *path);

/// `open(path, O_PATH | O_CLOEXEC)`: a descriptor that names a file without opening it for
/// reading (no side effect on a device or a FIFO); O_PATH needs _GNU_SOURCE, set here.
int CFileUtilities_open_path(const char *path);

#endif
