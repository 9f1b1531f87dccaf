// CPNGBridge: 8-bit RGB to PNG straight through libpng (Debian libpng-dev), for the fast path.
//
// Why this exists: the fast path's small images and JPEG-sourced thumbnails are PNGs, and
// going through libvips for them means building a libvips image and loading libvips at all
// in a process that otherwise needs only libjpeg. libpng's API reports errors by longjmp;
// this bridge installs handlers that longjmp back into the function, which frees what it
// made and returns -1 with libpng's message. Nothing else: no policy, no pixels touched.
#ifndef CPNGBRIDGE_H
#define CPNGBRIDGE_H

#include <stddef.h>
#include <stdint.h>

/// Row filters, as libpng's PNG_FILTER_* flags (what the encoder may choose per row).
enum {
    CPNGBridge_filter_none = 0x08,
    CPNGBridge_filter_sub = 0x10,
    CPNGBridge_filter_up = 0x20,
    CPNGBridge_filter_avg = 0x40,
    CPNGBridge_filter_paeth = 0x80,
    CPNGBridge_filter_all = 0xf8
};

/// Encodes 8-bit RGB (`stride` bytes a row) as a non-interlaced PNG: zlib level
/// `level` (0-9), row filters `filters` (CPNGBridge_filter_* flags), no metadata chunks.
/// The bytes are malloc'd into `*output` (free with free()), `*output_size` long.
/// Returns 0, or -1 with libpng's message in `message` (`message_size` bytes).
int CPNGBridge_encode_rgb(const uint8_t *pixels, int width, int height, size_t stride, int level, int filters,
                          uint8_t **output, size_t *output_size, char *message, size_t message_size);

#endif
