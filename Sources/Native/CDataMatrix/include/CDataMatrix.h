#ifndef CDATAMATRIX_H
#define CDATAMATRIX_H

// Data Matrix (ECC 200) symbols through libdmtx (Debian libdmtx-dev): the modules of a
// symbol for bytes, and the bytes of a symbol found in a greyscale picture. Only this file
// calls libdmtx; the Swift type `DataMatrix` (CardKit) is its one user.

#include <stddef.h>
#include <stdint.h>

/// Encodes `length` bytes (Base256 encodation) as a square symbol. On success writes its
/// side in modules to `*side` and the modules, row by row from the top left, one byte each
/// (1 dark, 0 light), to `modules`, which holds `capacity` bytes; returns 0. Returns -1 when
/// the bytes do not fit a symbol or `capacity` is too small, -2 when libdmtx fails.
int CDataMatrix_encode(const uint8_t *bytes, size_t length, uint8_t *modules, size_t capacity, int *side);

/// Looks for a symbol in a greyscale picture (`width` x `height`, one byte a pixel, rows
/// `stride` bytes apart, row 0 at the top) whose message starts with `prefix` (skipping any
/// other symbol), for at most `budget_ms` milliseconds of this thread's CPU time (not the
/// clock's: a busy machine finds what an idle one does). `min_edge` and `max_edge` bound the
/// symbol's side in pixels (0: unbounded); `symbol_side` is the side in modules to look for
/// (0: any square size). The boxes round the `places` (at most 16) places most like a symbol
/// are read first, `place_ms` each at most, every pixel then every second one; then the whole
/// picture with the time left, libdmtx reading every `shrink`th pixel (1: all). On success
/// copies the message (at most `capacity` bytes) to `message`, its length to
/// `*message_length`, and returns 0; returns 1 when none was found in time, -1 for bad
/// arguments, -2 when libdmtx fails.
int CDataMatrix_decode(const uint8_t *pixels, int width, int height, int stride, const uint8_t *prefix,
                       size_t prefix_length, int budget_ms, int place_ms, int min_edge, int max_edge, int symbol_side,
                       int shrink, int places, uint8_t *message, size_t capacity, size_t *message_length);

#endif
