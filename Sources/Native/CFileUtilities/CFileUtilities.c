#define _GNU_SOURCE
#include "CFileUtilities.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

int CFileUtilities_openat2(int dirfd, const char *path, int flags, uint64_t resolve) {
#ifdef SYS_openat2
    struct open_how how = {.flags = (uint64_t)flags, .mode = 0, .resolve = resolve};
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    (void)dirfd, (void)path, (void)flags, (void)resolve;
    errno = ENOSYS;
    return -1;
#endif
}

uint64_t CFileUtilities_resolve_beneath(void) { return RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS; }

int CFileUtilities_open_directory(const char *path) { return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC); }

int CFileUtilities_open_path(const char *path) { return open(path, O_PATH | O_CLOEXEC); }
