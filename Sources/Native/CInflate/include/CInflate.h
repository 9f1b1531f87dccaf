#ifndef CINFLATE_H
#define CINFLATE_H

// How far a Flate (zlib) stream inflates, counted before anyone decodes it. libqpdf's C API
// decodes a stream whole into memory with no limit: a 3.5 MB PDF whose image inflated to
// 2 GiB took 4 GB of memory and 18 s to preflight. PressPDF's `QPDFDocument`
// counts first (zlib, with the output thrown away as it is made) and lets libqpdf decode
// only a stream whose decoded size is known to be within its limit. zlib has no call that
// tells the length without inflating; this is that loop, nothing more.

#include <stddef.h>

/// The number of bytes `data` inflates to as a zlib (or gzip) stream, counted up to
/// `limit + 1` (a larger stream returns `limit + 1`). Concatenated streams are all counted;
/// damaged data counts what inflates before the damage, as a decoder stops there.
size_t CInflate_inflated_length(const unsigned char *data, size_t length, size_t limit);

#endif
