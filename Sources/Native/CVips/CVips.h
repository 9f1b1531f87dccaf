// The libvips C API as one module for Swift: headers only (include directories from
// Package.swift); CLazyLibraries opens the library when it is first used.
#include <vips/vips.h>
// mallopt(M_ARENA_MAX): glibc's arenas fragment under libvips's worker threads.
#include <malloc.h>
