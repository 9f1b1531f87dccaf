// The libvips C API as one module for Swift (flags come from pkg-config `vips`).
#include <vips/vips.h>
// mallopt(M_ARENA_MAX): glibc's arenas fragment under libvips's worker threads.
#include <malloc.h>
