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

/// The largest thumbnail image the file embeds for its primary image (an iPhone's is
/// 320 x 240 or so): its size in `*width` x `*height`, both 0 when there is none. libvips's
/// `thumbnail` starts from it when it covers the thumbnail asked for.
/// Returns 0, or -1 with libheif's message.
int CHEIFBridge_read_thumbnail_size(const uint8_t *data, size_t size, int *width, int *height, char *message,
                                    size_t message_size);

/// The primary image decoded as stored (none of libheif's transformations) and kept as its
/// YCbCr planes, converted to RGB a row at a time as a reader asks: the decode's 18 MB of
/// 4:2:0 planes for a 12 MP photo (libheif's peak while decoding, its tiles beside the
/// planes, is about 55 MB), where the interleaved RGB picture adds 36 MB and libvips's copy
/// 36 MB more. The conversion is libheif 1.15's formula for this layout (8-bit full-range
/// 4:2:0: 8.8 fixed point, nearest chroma); libheif's own RGB picture differs from it in
/// about 5 % of the bytes (mean 0.08 of 255, tested), for reasons not traced.
/// Why: `serve` decoding iPhone photos for thumbnails peaked at one such decode per worker
/// (benchmarks/RESULTS.md, issue 39); rows read by the resampler as it goes need no picture.
typedef struct CHEIFBridge_planes CHEIFBridge_planes;

/// Decodes the primary image of `size` bytes at `data` into planes, its stored size in
/// `*width` x `*height`. Returns NULL with libheif's message in `message`; NULL with
/// `*unsupported` 1 when it decoded to another layout than 8-bit full-range 4:2:0 YCbCr with
/// a matrix libheif's fixed-point conversion takes (the caller goes libvips's way).
CHEIFBridge_planes *CHEIFBridge_planes_decode(const uint8_t *data, size_t size, int *width, int *height,
                                              int *unsupported, char *message, size_t message_size);

/// Stored row `y` of the planes as 8-bit interleaved RGB, `width` x 3 bytes at `rgb`.
void CHEIFBridge_planes_row(const CHEIFBridge_planes *planes, int y, uint8_t *rgb);

/// Releases the planes and their decoder.
void CHEIFBridge_planes_free(CHEIFBridge_planes *planes);
#endif
