// CLazyLibraries: libvips, GLib, Pango/cairo/fontconfig, libheif and libqpdf opened on first use.
//
// Why this exists: linking libvips makes the dynamic loader map and resolve its whole
// dependency tree (118 libraries) before `main`, in every process, although a JPEG card or
// thumbnail on the fast path never calls it: that was 47 % of `cardrender --version`
// (benchmarks/RESULTS.md). glibc has no lazy loading of linked libraries (Solaris's
// `-z lazyload`), so these libraries are not linked: each function cardrender calls is
// defined here (Wrappers.c) with the prototype of the library's own header, and opens its
// library with dlopen the first time any of them runs. Variadic functions (libvips's
// operations) cannot be forwarded by a C function, so callers call them through
// `CLAZY_VARIADIC(name)`, a pointer of the declaration's own type.
//
// The functions are one table, `CLazyLibraries.inc`, from which the definitions, the
// variadic getters and the check made when a group is opened are all expanded: a function
// missing from it does not link (or, variadic, does not compile), and a group opens only if
// every function of the table resolves in it; otherwise `CLazyLibraries_load` returns a
// message naming the library and the function, which the caller throws. The definitions are
// hidden (not exported from the executable), so the libraries' own calls between themselves
// never reach them. A libvips other than the one cardrender was compiled against (a file
// `$CARDRENDER_LIBVIPS` names, or another version installed) is refused the same way: cache
// keys name the compiled version.
#ifndef CLAZYLIBRARIES_H
#define CLAZYLIBRARIES_H

/// The groups of shared libraries opened together.
typedef enum CLazyLibraries_Library {
    /// GLib, GObject and GModule.
    CLazyLibraries_glib,
    /// libvips (`libvips.so.42`, or the file `$CARDRENDER_LIBVIPS` names).
    CLazyLibraries_libvips,
    /// Pango, PangoCairo, PangoFT2, cairo and fontconfig: the message side's text.
    CLazyLibraries_text,
    /// libheif (`libheif.so.1`, which libvips's HEIF module also uses): HEIC on the fast path.
    CLazyLibraries_heif,
    /// libqpdf (`libqpdf.so.29`): the press PDFs are written and read through its C API.
    CLazyLibraries_qpdf,
} CLazyLibraries_Library;

/// Opens `library` once per process (later calls return at once, from any thread) and
/// resolves every function the table lists for it. Returns 0, or -1 with `*error` set to a
/// message naming the file, or the function missing, and the cause (valid for the life of
/// the process).
int CLazyLibraries_load(CLazyLibraries_Library library, const char **error);

/// Whether `library` has been opened (nothing is opened by asking).
int CLazyLibraries_is_loaded(CLazyLibraries_Library library);

/// The address of `name` in `library`, opening it first if needed. A caller that did not
/// `CLazyLibraries_load` first and meets a library that cannot be opened stops the process
/// with the message (exit 70): every entry point of cardrender loads first and throws.
void *CLazyLibraries_symbol(CLazyLibraries_Library library, const char *name);

/// The first function of the table for `library` that `lookup` does not find, or NULL.
const char *CLazyLibraries_first_missing(CLazyLibraries_Library library, void *(*lookup)(void *, const char *),
                                         void *context);

/// How many functions the table lists for `library`.
int CLazyLibraries_count(CLazyLibraries_Library library);

/// Calls libvips's variadic operation `name` through a pointer of its declared type (so
/// arguments are checked as for a direct call): `CLAZY_VARIADIC(vips_copy)(in, &out, NULL)`.
/// `name` must be listed as `VARIADIC` in the table, or this does not compile.
#define CLAZY_VARIADIC(name) ((__typeof__(&name))CLazyLibraries_variadic_##name())

// The variadic operations' getters, from the table.
#define FUNCTION(...)
#define PROCEDURE(...)
#define VARIADIC(group, name) void *CLazyLibraries_variadic_##name(void);
#include "CLazyLibraries.inc"
#undef FUNCTION
#undef PROCEDURE
#undef VARIADIC

#endif
