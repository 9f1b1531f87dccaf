// CHEIFBridge: an HEIF/HEIC photo's primary image decoded straight through libheif, for the
// fast path.
//
// Why this exists: an iPhone's HEIC card took 6.3x a 12 MP JPEG card on libvips's path
// (benchmarks/RESULTS.md, issue 20): libvips decodes through the same libheif, then copies the
// picture and resamples it in its own pipeline. Here the decoded RGB rows go straight into
// the fast executor's buffer. libheif is opened on first use (CLazyLibraries), so a process
// that never meets a HEIC never loads it. Nothing else: no policy, no pixel touched but
// libheif's (its YCbCr -> RGB and its rotation and mirroring, as libvips gets them).
#ifndef CHEIFBRIDGE_H
#define CHEIFBRIDGE_H

#include <stddef.h>
#include <stdint.h>

/// What an HEIF file's primary image is, read without decoding any pixel.
typedef struct {
    int width;     ///< upright width (libheif's, after its rotation)
    int height;    ///< upright height
    int bits;      ///< luma bits per pixel (8 for an iPhone's photo)
    int has_alpha; ///< 1 when it has an alpha channel
    int has_icc;   ///< 1 when it carries an ICC profile (`prof` or `rICC`)
} CHEIFBridge_info;

/// Whether libheif could be opened (0), or -1 with the loader's message in `message`.
int CHEIFBridge_available(char *message, size_t message_size);

/// Reads the primary image's header of `size` bytes at `data`.
/// Returns 0, or -1 with libheif's message in `message` (`message_size` bytes).
int CHEIFBridge_read_info(const uint8_t *data, size_t size, CHEIFBridge_info *info, char *message, size_t message_size);

/// The primary image's ICC profile, malloc'd into `*icc` (free it with free()), `*icc_size`
/// long; `*icc` NULL when there is none. Returns 0, or -1 with libheif's message.
int CHEIFBridge_read_icc(const uint8_t *data, size_t size, uint8_t **icc, size_t *icc_size, char *message,
                         size_t message_size);

/// The turn the primary image's `irot` properties make, as the EXIF orientation (1, 3, 6
/// or 8) that makes the stored picture upright, read from the file's boxes (libheif 1.15 has
/// no accessor for it); or 0 when the picture has other transformations (`imir`, whose axis
/// libheif versions read differently, or a `clap` crop) or the boxes cannot be read: then
/// only libheif's own transformations give the upright picture.
/// Why: libheif turns the decoded picture pixel by pixel (115 ms of a 12 MP iPhone photo's
/// 490 ms decode, benchmarks/RESULTS.md); the fast path's orientation kernel is faster.
int CHEIFBridge_read_turn(const uint8_t *data, size_t size);

/// Decodes the primary image to 8-bit interleaved RGB into `pixels`, rows `stride` bytes
/// apart. With `turn` 0: upright as libheif's transformations make it, `width` x `height`.
/// With `turn` 1...8 (from `CHEIFBridge_read_turn`): decoded as stored, `width` x `height`
/// being the stored size, none of libheif's transformations applied, and written turned
/// upright by that EXIF orientation straight from libheif's picture (no copy between).
/// Returns 0, or -1 with libheif's message (a size that is not the one given is an error).
int CHEIFBridge_decode(const uint8_t *data, size_t size, int turn, uint8_t *pixels, int width, int height,
                       size_t stride, char *message, size_t message_size);

#endif
