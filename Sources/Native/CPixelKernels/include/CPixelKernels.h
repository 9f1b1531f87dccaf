// CPixelKernels: the fast path's pixel loops on 8-bit RGB in memory (3 bands, rows of
// `stride` bytes): separable Lanczos3 resampling with fixed-point weights computed once per
// output row and column, EXIF orientation, the colour effects and the frame blend.
//
// Why this exists: libvips 8.14 enlarges with a bicubic affine and runs `recomb` in scalar
// float, ~160 ms of a ~240 ms card (benchmarks/RESULTS.md); Highway and libvips's SIMD
// reducers do not cover those. The resampler follows Pillow-SIMD's design
// (src/libImaging/Resample.c): two separable passes, coefficients precomputed per output
// index as 16-bit fixed point, two taps per multiply-add (pmaddwd).
//
// Every kernel exists for two dispatch targets, baseline x86-64 and AVX2, picked once at
// load time by the CPU (or forced, `CPixelKernels_set_target`), so one binary runs on any
// x86-64. All arithmetic in them is integer and exact (no overflow, no float), so **every
// target writes the same bytes**: two nodes of a fleet never store different bytes under
// one cache key. A test forces the baseline and compares bytes with the vector kernels.
#ifndef CPIXELKERNELS_H
#define CPIXELKERNELS_H

#include <stddef.h>
#include <stdint.h>

/// The fixed-point precision of the resampling weights: 1.0 is 1 << 14.
#define CPIXELKERNELS_WEIGHT_BITS 14

/// The dispatch targets.
typedef enum {
    CPixelKernels_baseline = 0, ///< x86-64 baseline (SSE2), or the portable C elsewhere
    CPixelKernels_avx2 = 1,     ///< AVX2
} CPixelKernels_target;

/// The target the kernels run on now: the CPU's best, or the baseline when the process
/// started with CARDRENDER_KERNELS=baseline, unless `CPixelKernels_set_target` chose.
CPixelKernels_target CPixelKernels_current_target(void);

/// Makes every kernel run on `target` from now on (all threads); -1 goes back to the
/// CPU's best. Returns 0, or -1 when this CPU cannot run `target` (nothing changes).
int CPixelKernels_set_target(int target);

/// The resampling plan of one axis: for each output index, the first source index, how
/// many source samples it reads, and their weights (16-bit fixed point with
/// `CPIXELKERNELS_WEIGHT_BITS` fraction bits, `taps` per index, an even count, the unused
/// ones 0; each index's weights sum to exactly 1.0, so flat colours stay exact).
typedef struct {
    int out_size;
    int taps;
    int *first;
    int *count;
    int16_t *weights;
} CPixelKernels_axis;

/// Plans resampling of source samples `start` ..< `start + length` (fractions allowed: a
/// crop box) of an axis of `in_size` samples to `out_size` samples, pixel centres at +0.5:
/// Lanczos3 when reducing, Catmull-Rom (libvips's bicubic) when enlarging, as the libvips
/// path does. Returns 0, or -1 when out of memory.
int CPixelKernels_axis_make(CPixelKernels_axis *axis, int in_size, double start, double length, int out_size);

/// Frees what `CPixelKernels_axis_make` allocated.
void CPixelKernels_axis_free(CPixelKernels_axis *axis);

/// Horizontal pass: each of `rows` rows of `source` to `x->out_size` pixels in `destination`.
void CPixelKernels_resample_rows(const uint8_t *source, size_t source_stride, int rows, uint8_t *destination,
                                 size_t destination_stride, const CPixelKernels_axis *x);

/// Vertical pass: `y->out_size` rows of `width` pixels from the rows of `source`, whose
/// first row is source row `first_row` of the plan. Returns 0, or -1 when out of memory.
int CPixelKernels_resample_columns(const uint8_t *source, size_t source_stride, int first_row, int width,
                                   uint8_t *destination, size_t destination_stride, const CPixelKernels_axis *y);

/// A resampling done row by row, in a ring of rows sized to the filter, with the same bytes
/// as the whole-image passes above in the order `PixelKernels.resample` takes them (the
/// horizontal pass first, or the vertical one when the rows shrink 2x or more): push the
/// input rows it asks for (`next_input`), pull output rows when they are ready.
typedef struct CPixelKernels_stream CPixelKernels_stream;

/// Plans the source box `box_*` (source pixels, fractions allowed) of an `in_width` x
/// `in_height` source to `out_width` x `out_height`. NULL when out of memory.
CPixelKernels_stream *CPixelKernels_stream_make(int in_width, int in_height, double box_x, double box_y,
                                                double box_width, double box_height, int out_width, int out_height);

/// The source row the stream wants next, or -1 when it has all it needs.
int CPixelKernels_stream_next_input(const CPixelKernels_stream *stream);

/// Gives the stream source row `next_input` (`in_width` x 3 bytes).
void CPixelKernels_stream_push(CPixelKernels_stream *stream, const uint8_t *row);

/// Writes the next output row (`out_width` x 3 bytes) when the rows it reads have been
/// pushed. Returns 1 when it wrote one, 0 when it needs more input or is done.
int CPixelKernels_stream_pull(CPixelKernels_stream *stream, uint8_t *out);

/// Frees a stream (NULL is fine).
void CPixelKernels_stream_free(CPixelKernels_stream *stream);

/// Turns `source` (`width` x `height`) upright from EXIF `orientation` (1...8) into
/// `destination`, whose size is `height` x `width` for orientations 5-8.
void CPixelKernels_orient(const uint8_t *source, size_t source_stride, int width, int height, int orientation,
                          uint8_t *destination, size_t destination_stride);

/// The colour effect's tables for a `width` x `height` image (see `CPixelKernels_colour`),
/// to apply band by band. NULL when out of memory.
typedef struct CPixelKernels_colour_plan CPixelKernels_colour_plan;
CPixelKernels_colour_plan *CPixelKernels_colour_plan_make(int width, int height, const double matrix[9],
                                                          double contrast, double lift, double vignette);

/// The effect on `rows` rows of the image, the first being its row `first_row`.
void CPixelKernels_colour_apply(const CPixelKernels_colour_plan *plan, uint8_t *pixels, size_t stride, int first_row,
                                int rows);

/// Frees a colour plan (NULL is fine).
void CPixelKernels_colour_plan_free(CPixelKernels_colour_plan *plan);

/// In place, per pixel p: v = (M p) * contrast + lift, clipped below at 0, times
/// 1 - vignette x d² / 2 (d² the squared distance from the centre, -1...1 on each axis;
/// the factor clipped at 0), clipped to 255 and truncated (as libvips's cast to 8 bits).
/// `matrix` is 3 x 3, row by row. Integer arithmetic: M x contrast and lift in 14-bit
/// fixed point, the vignette factor in 15-bit, from tables made once per call.
/// Returns 0, or -1 when out of memory for the tables (nothing changed).
int CPixelKernels_colour(uint8_t *pixels, size_t stride, int width, int height, const double matrix[9], double contrast,
                         double lift, double vignette);

/// In place: card = colour x a + card x (1 - a), a = alpha / 255, rounded.
void CPixelKernels_blend(uint8_t *card, size_t card_stride, const uint8_t *colour, size_t colour_stride,
                         const uint8_t *alpha, size_t alpha_stride, int width, int height);

/// Halves `source` (`width` x `height`) into `destination` ((width + 1) / 2 x (height + 1) / 2):
/// each output pixel the rounded mean of the 2 x 2 pixels it covers (of the 2 or 1 at an odd
/// right or bottom edge). A level of a decode pyramid: the box filter of a DCT scale.
void CPixelKernels_halve(const uint8_t *source, size_t source_stride, int width, int height, uint8_t *destination,
                         size_t destination_stride);

/// Turns `source` (`source_width` x `source_height`, pixel centres at whole coordinates) into
/// the `width` x `height` pixels of `destination`: output pixel (x, y) is the bilinear sample
/// of the source at u = inverse[0] x + inverse[1] y + inverse[2], v = inverse[3] x +
/// inverse[4] y + inverse[5] (x and y the output's indices, counted from its first pixel),
/// the source surrounded by `background` (libvips's `affine` with a background: the photo's
/// edge blends into it). Positions are stepped in 32.32 fixed point and weighted in 8-bit
/// fractions, all integer: every target writes the same bytes.
void CPixelKernels_turn(const uint8_t *source, size_t source_stride, int source_width, int source_height,
                        uint8_t *destination, size_t destination_stride, int width, int height, const double inverse[6],
                        const uint8_t background[3]);

/// Fills `width` x `height` pixels with one colour.
void CPixelKernels_fill(uint8_t *pixels, size_t stride, int width, int height, uint8_t red, uint8_t green,
                        uint8_t blue);

#endif
