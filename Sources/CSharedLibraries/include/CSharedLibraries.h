// CSharedLibraries: libvips, GLib, Pango/cairo/fontconfig, libheif and libqpdf opened on first use.
//
// Why this exists: linking libvips makes the dynamic loader map and resolve its whole
// dependency tree (118 libraries) before `main`, in every process, although a JPEG card or
// thumbnail on the fast path never calls it: that was 47 % of `cardrender --version`
// (benchmarks/RESULTS.md). glibc has no lazy loading of linked libraries (Solaris's
// `-z lazyload`), so these libraries are not linked: each function cardrender calls is
// defined here (Wrappers.c) with the prototype of the library's own header, and opens its
// library with dlopen the first time any of them runs. Variadic functions (libvips's
// operations) cannot be forwarded by a C function, so callers call them through
// `CSHARED_VARIADIC`, a pointer of the declaration's own type.
//
// The definitions are hidden (not exported from the executable), so the libraries' own
// calls between themselves never reach them. A library that cannot be opened, or lacks a
// function, stops the process with a message naming the file and the cause (exit status
// 70), unless `CSharedLibraries_load` was asked first, which returns the message instead.
#ifndef CSHAREDLIBRARIES_H
#define CSHAREDLIBRARIES_H

/// The groups of shared libraries opened together.
typedef enum CSharedLibraries_Library {
    /// GLib, GObject and GModule.
    CSharedLibraries_glib,
    /// libvips (`libvips.so.42`, or the file `$CARDRENDER_LIBVIPS` names).
    CSharedLibraries_libvips,
    /// Pango, PangoCairo, PangoFT2, cairo and fontconfig: the message side's text.
    CSharedLibraries_text,
    /// libheif (`libheif.so.1`, which libvips's HEIF module also uses): HEIC on the fast path.
    CSharedLibraries_heif,
    /// libqpdf (`libqpdf.so.29`): the press PDFs are written and read through its C API.
    CSharedLibraries_qpdf,
} CSharedLibraries_Library;

/// Opens `library` once per process (later calls return at once, from any thread).
/// Returns 0, or -1 with `*error` set to a message naming the file and the cause (valid for
/// the life of the process).
int CSharedLibraries_load(CSharedLibraries_Library library, const char **error);

/// Whether `library` has been opened (nothing is opened by asking).
int CSharedLibraries_is_loaded(CSharedLibraries_Library library);

/// The address of `name` in `library`, opening it first if needed; stops the process with
/// a message when the library cannot be opened or lacks the function.
void *CSharedLibraries_symbol(CSharedLibraries_Library library, const char *name);

/// Calls the variadic function `name` of `library` through a pointer of its declared type
/// (so arguments are checked as for a direct call): `CSHARED_VARIADIC(lib, vips_copy)(in,
/// &out, NULL)`. Looked up by name on every call: these are whole image operations.
#define CSHARED_VARIADIC(library, name) ((__typeof__(&name))CSharedLibraries_symbol(library, #name))

#endif
