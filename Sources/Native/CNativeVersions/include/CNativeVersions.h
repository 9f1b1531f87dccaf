// CNativeVersions: the versions of the native libraries whose code makes cardrender's bytes,
// as the headers cardrender was built against give them. Every cache key names them
// (CacheVersions), so a file made by one libjpeg-turbo, libpng, zlib, lcms2, libheif, Pango,
// cairo, HarfBuzz, fontconfig, librsvg or libqpdf is never served for another. Headers
// only: nothing is linked or opened to read them (libvips's version is VIPS_VERSION, named
// in the key already, and a libvips of another version is refused when opened).
#ifndef CNATIVEVERSIONS_H
#define CNATIVEVERSIONS_H

/// "libjpeg-turbo 2.1.5 libpng 1.6.39 zlib 1.2.13 ...": one string, fixed at compile time.
const char *CNativeVersions_string(void);

#endif
