// The fast path's pixel loops: see CPixelKernels.h.
#include "CPixelKernels.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#define HAS_AVX2_TARGET 1
#define AVX2 __attribute__((target("avx2")))
#else
#define HAS_AVX2_TARGET 0
#endif

#define ONE (1 << CPIXELKERNELS_WEIGHT_BITS)
#define HALF (1 << (CPIXELKERNELS_WEIGHT_BITS - 1))
/// The colour effect's fixed point: matrix and lift 14 bits, vignette factor 15 bits.
#define COLOUR_BITS 14
#define GAIN_BITS 15

// MARK: dispatch

/// -1: not chosen yet. Written with relaxed atomics: a kernel reads it once per call, and
/// whichever target it sees writes the same bytes.
static _Atomic int chosen = -1;

static int best_target(void) {
#if HAS_AVX2_TARGET
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return CPixelKernels_avx2;
#endif
    return CPixelKernels_baseline;
}

CPixelKernels_target CPixelKernels_current_target(void) {
    int target = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (target < 0) {
        // CARDRENDER_KERNELS=baseline runs a process as a CPU without AVX2 would.
        const char *forced = getenv("CARDRENDER_KERNELS");
        target = forced && strcmp(forced, "baseline") == 0 ? CPixelKernels_baseline : best_target();
        atomic_store_explicit(&chosen, target, memory_order_relaxed);
    }
    return (CPixelKernels_target)target;
}

int CPixelKernels_set_target(int target) {
    if (target < 0) target = best_target();
    if (target != CPixelKernels_baseline && !(target == CPixelKernels_avx2 && best_target() == CPixelKernels_avx2))
        return -1;
    atomic_store_explicit(&chosen, target, memory_order_relaxed);
    return 0;
}

// MARK: plans

static double sinc(double x) {
    if (x == 0.0) return 1.0;
    x *= M_PI;
    return sin(x) / x;
}

static double lanczos3(double x) {
    if (x <= -3.0 || x >= 3.0) return 0.0;
    return sinc(x) * sinc(x / 3.0);
}

/// Catmull-Rom (a = -0.5), libvips's "bicubic": the kernel for enlarging, so both paths agree.
static double catmull_rom(double x) {
    x = fabs(x);
    if (x < 1.0) return (1.5 * x - 2.5) * x * x + 1.0;
    if (x < 2.0) return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0;
    return 0.0;
}

static inline uint8_t clip8(int32_t value) {
    value = (value + HALF) >> CPIXELKERNELS_WEIGHT_BITS;
    return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
}

int CPixelKernels_axis_make(CPixelKernels_axis *axis, int in_size, double start, double length, int out_size) {
    double scale = length / out_size;
    double filter_scale = scale > 1.0 ? scale : 1.0;
    // Reducing: Lanczos3 stretched over the reduction (anti-aliasing). Enlarging: Catmull-Rom.
    int enlarging = scale < 1.0;
    double (*filter)(double) = enlarging ? catmull_rom : lanczos3;
    double support = (enlarging ? 2.0 : 3.0) * filter_scale;
    int taps = (int)ceil(support) * 2 + 1;
    taps += taps & 1; // even: the kernels take the taps two at a time
    axis->out_size = out_size;
    axis->taps = taps;
    axis->first = malloc(sizeof(int) * (size_t)out_size);
    axis->count = malloc(sizeof(int) * (size_t)out_size);
    axis->weights = calloc((size_t)out_size * (size_t)taps, sizeof(int16_t));
    double *real = malloc(sizeof(double) * (size_t)taps);
    if (!axis->first || !axis->count || !axis->weights || !real) {
        free(real);
        CPixelKernels_axis_free(axis);
        return -1;
    }
    for (int i = 0; i < out_size; i++) {
        double centre = start + (i + 0.5) * scale;
        int low = (int)floor(centre - support + 0.5);
        int high = (int)floor(centre + support + 0.5);
        if (low < 0) low = 0;
        if (high > in_size) high = in_size;
        if (high <= low) { // a box wholly outside the source: take the nearest sample
            low = centre < 0 ? 0 : in_size - 1;
            high = low + 1;
        }
        int count = high - low;
        if (count > taps) count = taps;
        double total = 0;
        for (int k = 0; k < count; k++) {
            double w = filter((low + k - centre + 0.5) / filter_scale);
            real[k] = w;
            total += w;
        }
        int16_t *weights = axis->weights + (size_t)i * taps;
        int sum = 0, largest = 0;
        for (int k = 0; k < count; k++) {
            double w = total != 0 ? real[k] / total * ONE : (k == 0 ? ONE : 0);
            double rounded = w < 0 ? ceil(w - 0.5) : floor(w + 0.5);
            if (rounded > INT16_MAX) rounded = INT16_MAX;
            if (rounded < INT16_MIN) rounded = INT16_MIN;
            weights[k] = (int16_t)rounded;
            sum += weights[k];
            if (weights[k] > weights[largest]) largest = k;
        }
        // Exactly 1.0 in all: the rounding's remainder goes to the largest weight.
        int adjusted = weights[largest] + (ONE - sum);
        weights[largest] = (int16_t)(adjusted > INT16_MAX ? INT16_MAX : adjusted);
        axis->first[i] = low;
        axis->count[i] = count;
    }
    free(real);
    return 0;
}

void CPixelKernels_axis_free(CPixelKernels_axis *axis) {
    free(axis->first);
    free(axis->count);
    free(axis->weights);
    axis->first = NULL;
    axis->count = NULL;
    axis->weights = NULL;
}

// MARK: horizontal pass

/// One output pixel of the horizontal pass, tap by tap: the reference arithmetic every
/// target's result equals.
static inline void row_pixel_scalar(const uint8_t *in, const int16_t *w, int count, uint8_t *out) {
    int32_t r = 0, g = 0, b = 0;
    for (int k = 0; k < count; k++) {
        r += in[3 * k] * w[k];
        g += in[3 * k + 1] * w[k];
        b += in[3 * k + 2] * w[k];
    }
    out[0] = clip8(r);
    out[1] = clip8(g);
    out[2] = clip8(b);
}

static void rows_baseline(const uint8_t *source, size_t source_stride, int rows, uint8_t *destination,
                          size_t destination_stride, const CPixelKernels_axis *x) {
    for (int row = 0; row < rows; row++) {
        const uint8_t *in = source + source_stride * (size_t)row;
        uint8_t *out = destination + destination_stride * (size_t)row;
        for (int i = 0; i < x->out_size; i++)
            row_pixel_scalar(in + 3 * (size_t)x->first[i], x->weights + (size_t)i * x->taps, x->count[i], out + 3 * i);
    }
}

#if HAS_AVX2_TARGET
/// Two taps per pmaddwd: 8 bytes at a tap (its pixel, the next one, 2 bytes more) are
/// spread to 16-bit [R0 R1 G0 G1 B0 B1 0 0] and multiplied-and-added with [w0 w1] x 3;
/// rounding, shifting and clipping to bytes in the vector too. (Two output pixels per
/// 256-bit instruction measured no faster: the loop is bound by loads and shuffles.)
AVX2 static void rows_avx2(const uint8_t *source, size_t source_stride, int rows, uint8_t *destination,
                           size_t destination_stride, const CPixelKernels_axis *x) {
    const __m128i spread = _mm_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    const __m128i half = _mm_set1_epi32(HALF);
    // The last tap index whose 8-byte load stays inside the row's bytes.
    const long last_whole = (long)source_stride >= 8 ? ((long)source_stride - 8) / 3 : -1;
    for (int row = 0; row < rows; row++) {
        const uint8_t *in = source + source_stride * (size_t)row;
        uint8_t *out = destination + destination_stride * (size_t)row;
        for (int i = 0; i < x->out_size; i++) {
            const int16_t *w = x->weights + (size_t)i * x->taps;
            const int first = x->first[i];
            const int count = x->count[i];
            int pairs = count / 2;
            if (first + 2L * (pairs - 1) > last_whole)
                pairs = last_whole < first ? 0 : (int)((last_whole - first) / 2) + 1;
            __m128i sum = half;
            const uint8_t *p = in + 3 * (size_t)first;
            for (int k = 0; k < 2 * pairs; k += 2) {
                const __m128i pixels = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(p + 3 * k)), spread);
                int32_t pair;
                memcpy(&pair, w + k, 4);
                sum = _mm_add_epi32(sum, _mm_madd_epi16(pixels, _mm_set1_epi32(pair)));
            }
            for (int k = 2 * pairs; k < count; k++) { // near the row's end: one tap at a time
                const uint8_t *q = p + 3 * k;
                sum = _mm_add_epi32(sum, _mm_mullo_epi32(_mm_setr_epi32(q[0], q[1], q[2], 0), _mm_set1_epi32(w[k])));
            }
            sum = _mm_srai_epi32(sum, CPIXELKERNELS_WEIGHT_BITS);
            const __m128i words = _mm_packs_epi32(sum, sum);
            const int32_t bytes = _mm_cvtsi128_si32(_mm_packus_epi16(words, words));
            memcpy(out + 3 * i, &bytes, 3);
        }
    }
}
#endif

void CPixelKernels_resample_rows(const uint8_t *source, size_t source_stride, int rows, uint8_t *destination,
                                 size_t destination_stride, const CPixelKernels_axis *x) {
#if HAS_AVX2_TARGET
    if (CPixelKernels_current_target() == CPixelKernels_avx2) {
        rows_avx2(source, source_stride, rows, destination, destination_stride, x);
        return;
    }
#endif
    rows_baseline(source, source_stride, rows, destination, destination_stride, x);
}

// MARK: vertical pass

/// Output samples `from` ..< `samples` of one vertical-pass row from the `count` source rows
/// at `rows`, sample by sample: the reference arithmetic.
static inline void column_row_scalar(const uint8_t *const *rows, const int16_t *w, int count, int from, int samples,
                                     uint8_t *out) {
    for (int s = from; s < samples; s++) {
        int32_t sum = 0;
        for (int k = 0; k < count; k++)
            sum += rows[k][s] * w[k];
        out[s] = clip8(sum);
    }
}

static void column_row_baseline(const uint8_t *const *rows, const int16_t *w, int count, int samples, uint8_t *out) {
    column_row_scalar(rows, w, count, 0, samples, out);
}

#if HAS_AVX2_TARGET
/// 16 samples at a time, two rows per pmaddwd: the rows' bytes widened to 16 bits and
/// interleaved [a0 b0 a1 b1 ...], multiplied-and-added with [w0 w1] pairs.
AVX2 static void column_row_avx2(const uint8_t *const *rows, const int16_t *w, int count, int samples, uint8_t *out) {
    const __m256i half = _mm256_set1_epi32(HALF);
    int s = 0;
    for (; s + 16 <= samples; s += 16) {
        __m256i low = half, high = half;
        int k = 0;
        for (; k + 1 < count; k += 2) {
            __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(rows[k] + s)));
            __m256i b = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(rows[k + 1] + s)));
            int32_t pair;
            memcpy(&pair, w + k, 4);
            const __m256i weights = _mm256_set1_epi32(pair);
            low = _mm256_add_epi32(low, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), weights));
            high = _mm256_add_epi32(high, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), weights));
        }
        if (k < count) { // an odd tap alone: paired with a zero weight
            __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(rows[k] + s)));
            const __m256i weights = _mm256_set1_epi32((int32_t)(uint16_t)w[k]);
            low = _mm256_add_epi32(low, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, a), weights));
            high = _mm256_add_epi32(high, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, a), weights));
        }
        low = _mm256_srai_epi32(low, CPIXELKERNELS_WEIGHT_BITS);
        high = _mm256_srai_epi32(high, CPIXELKERNELS_WEIGHT_BITS);
        // Per 128-bit lane: low holds samples 0-3 (8-11), high 4-7 (12-15); the packs
        // saturate exactly as clip8 clips.
        __m256i words = _mm256_packs_epi32(low, high);
        __m256i bytes = _mm256_packus_epi16(words, words);
        bytes = _mm256_permute4x64_epi64(bytes, 0x08);
        _mm_storeu_si128((__m128i *)(out + s), _mm256_castsi256_si128(bytes));
    }
    column_row_scalar(rows, w, count, s, samples, out);
}
#endif

/// One output row of the vertical pass on the current target.
static void column_row(const uint8_t *const *rows, const int16_t *w, int count, int samples, uint8_t *out) {
#if HAS_AVX2_TARGET
    if (CPixelKernels_current_target() == CPixelKernels_avx2) {
        column_row_avx2(rows, w, count, samples, out);
        return;
    }
#endif
    column_row_baseline(rows, w, count, samples, out);
}

int CPixelKernels_resample_columns(const uint8_t *source, size_t source_stride, int first_row, int width,
                                   uint8_t *destination, size_t destination_stride, const CPixelKernels_axis *y) {
    const uint8_t **rows = malloc(sizeof(uint8_t *) * (size_t)y->taps);
    if (!rows) return -1;
    for (int i = 0; i < y->out_size; i++) {
        const uint8_t *base = source + source_stride * (size_t)(y->first[i] - first_row);
        for (int k = 0; k < y->count[i]; k++)
            rows[k] = base + source_stride * (size_t)k;
        column_row(rows, y->weights + (size_t)i * y->taps, y->count[i], width * 3,
                   destination + destination_stride * (size_t)i);
    }
    free(rows);
    return 0;
}

// MARK: streaming

struct CPixelKernels_stream {
    CPixelKernels_axis x, y;
    int in_width, out_width;
    int vertical_first; ///< reducing rows 2x or more: vertical pass first, as the whole-image resampler
    int first_row, end_row;
    int ring_rows;
    size_t ring_stride;
    uint8_t *ring;
    uint8_t *scratch; ///< vertical-first: the vertical pass's row, before the horizontal one
    const uint8_t **pointers;
    int next_in, next_out;
};

CPixelKernels_stream *CPixelKernels_stream_make(int in_width, int in_height, double box_x, double box_y,
                                                double box_width, double box_height, int out_width, int out_height) {
    CPixelKernels_stream *stream = calloc(1, sizeof *stream);
    if (!stream) return NULL;
    if (CPixelKernels_axis_make(&stream->x, in_width, box_x, box_width, out_width) != 0 ||
        CPixelKernels_axis_make(&stream->y, in_height, box_y, box_height, out_height) != 0) {
        CPixelKernels_stream_free(stream);
        return NULL;
    }
    stream->in_width = in_width;
    stream->out_width = out_width;
    stream->first_row = in_height;
    stream->end_row = 0;
    for (int i = 0; i < out_height; i++) {
        if (stream->y.first[i] < stream->first_row) stream->first_row = stream->y.first[i];
        if (stream->y.first[i] + stream->y.count[i] > stream->end_row)
            stream->end_row = stream->y.first[i] + stream->y.count[i];
    }
    // The same order the whole-image resampler (PixelKernels.resample) takes, so the bytes match.
    stream->vertical_first = 2 * out_height <= stream->end_row - stream->first_row;
    stream->ring_rows = stream->y.taps;
    stream->ring_stride = (size_t)(stream->vertical_first ? in_width : out_width) * 3;
    stream->ring = malloc(stream->ring_stride * (size_t)stream->ring_rows);
    stream->scratch = malloc((size_t)in_width * 3);
    stream->pointers = malloc(sizeof(uint8_t *) * (size_t)stream->ring_rows);
    if (!stream->ring || !stream->scratch || !stream->pointers) {
        CPixelKernels_stream_free(stream);
        return NULL;
    }
    stream->next_in = stream->first_row;
    return stream;
}

int CPixelKernels_stream_next_input(const CPixelKernels_stream *stream) {
    return stream->next_in < stream->end_row ? stream->next_in : -1;
}

void CPixelKernels_stream_push(CPixelKernels_stream *stream, const uint8_t *row) {
    uint8_t *slot = stream->ring + stream->ring_stride * (size_t)(stream->next_in % stream->ring_rows);
    if (stream->vertical_first) {
        memcpy(slot, row, stream->ring_stride);
    } else {
        CPixelKernels_resample_rows(row, (size_t)stream->in_width * 3, 1, slot, stream->ring_stride, &stream->x);
    }
    stream->next_in += 1;
}

int CPixelKernels_stream_pull(CPixelKernels_stream *stream, uint8_t *out) {
    const int i = stream->next_out;
    if (i >= stream->y.out_size) return 0;
    const int first = stream->y.first[i], count = stream->y.count[i];
    if (stream->next_in < first + count) return 0;
    for (int k = 0; k < count; k++)
        stream->pointers[k] = stream->ring + stream->ring_stride * (size_t)((first + k) % stream->ring_rows);
    const int16_t *w = stream->y.weights + (size_t)i * stream->y.taps;
    if (stream->vertical_first) {
        column_row(stream->pointers, w, count, stream->in_width * 3, stream->scratch);
        CPixelKernels_resample_rows(stream->scratch, (size_t)stream->in_width * 3, 1, out,
                                    (size_t)stream->out_width * 3, &stream->x);
    } else {
        column_row(stream->pointers, w, count, stream->out_width * 3, out);
    }
    stream->next_out += 1;
    return 1;
}

void CPixelKernels_stream_free(CPixelKernels_stream *stream) {
    if (!stream) return;
    CPixelKernels_axis_free(&stream->x);
    CPixelKernels_axis_free(&stream->y);
    free(stream->ring);
    free(stream->scratch);
    free(stream->pointers);
    free(stream);
}

// MARK: orientation

void CPixelKernels_orient(const uint8_t *source, size_t source_stride, int width, int height, int orientation,
                          uint8_t *destination, size_t destination_stride) {
    const int swapped = orientation >= 5;
    const int out_width = swapped ? height : width;
    const int out_height = swapped ? width : height;
    if (!swapped) {
        for (int y = 0; y < out_height; y++) {
            uint8_t *out = destination + destination_stride * (size_t)y;
            int sy = (orientation == 3 || orientation == 4) ? height - 1 - y : y;
            const uint8_t *in = source + source_stride * (size_t)sy;
            if (orientation == 1 || orientation == 4) {
                memcpy(out, in, (size_t)width * 3);
            } else {
                for (int x = 0; x < out_width; x++)
                    memcpy(out + 3 * x, in + 3 * (width - 1 - x), 3);
            }
        }
        return;
    }
    // A turn reads the source down its columns: done in 32 x 32 tiles, so the rows a tile
    // reads stay in cache (the whole-row order took 73 ms for a 12 MP photo, 8 % of an
    // iPhone HEIC card).
    enum { tile = 32 };
    for (int y0 = 0; y0 < out_height; y0 += tile) {
        const int y1 = y0 + tile < out_height ? y0 + tile : out_height;
        for (int x0 = 0; x0 < out_width; x0 += tile) {
            const int x1 = x0 + tile < out_width ? x0 + tile : out_width;
            for (int y = y0; y < y1; y++) {
                uint8_t *out = destination + destination_stride * (size_t)y;
                for (int x = x0; x < x1; x++) {
                    int sx, sy;
                    switch (orientation) {
                    case 5:
                        sx = y;
                        sy = x;
                        break;
                    case 6:
                        sx = y;
                        sy = height - 1 - x;
                        break;
                    case 7:
                        sx = width - 1 - y;
                        sy = height - 1 - x;
                        break;
                    default:
                        sx = width - 1 - y;
                        sy = x;
                        break; // 8
                    }
                    const uint8_t *in = source + source_stride * (size_t)sy + 3 * (size_t)sx;
                    out[3 * x] = in[0];
                    out[3 * x + 1] = in[1];
                    out[3 * x + 2] = in[2];
                }
            }
        }
    }
}

// MARK: colour effect

/// One row of the colour effect in integers; the same source compiled per target (the
/// compiler vectorises it for AVX2), and integer arithmetic makes every target's bytes equal.
static inline __attribute__((always_inline)) void colour_row(uint8_t *row, int width, const int32_t m[9], int32_t lift,
                                                             const int32_t *column_gain, int32_t row_gain) {
    for (int x = 0; x < width; x++) {
        int32_t gain = (1 << GAIN_BITS) - column_gain[x] - row_gain;
        gain = gain < 0 ? 0 : gain;
        const int32_t r = row[3 * x], g = row[3 * x + 1], b = row[3 * x + 2];
        for (int band = 0; band < 3; band++) {
            int32_t v = m[3 * band] * r + m[3 * band + 1] * g + m[3 * band + 2] * b + lift;
            v = v < 0 ? 0 : v;
            // Truncated, as libvips's cast to 8 bits does.
            int64_t scaled = ((int64_t)v * gain) >> (COLOUR_BITS + GAIN_BITS);
            row[3 * x + band] = scaled >= 255 ? 255 : (uint8_t)scaled;
        }
    }
}

static void colour_baseline(uint8_t *pixels, size_t stride, int width, int rows, const int32_t m[9], int32_t lift,
                            const int32_t *column_gain, const int32_t *row_gain) {
    for (int y = 0; y < rows; y++)
        colour_row(pixels + stride * (size_t)y, width, m, lift, column_gain, row_gain[y]);
}

#if HAS_AVX2_TARGET
AVX2 static void colour_avx2(uint8_t *pixels, size_t stride, int width, int rows, const int32_t m[9], int32_t lift,
                             const int32_t *column_gain, const int32_t *row_gain) {
    for (int y = 0; y < rows; y++)
        colour_row(pixels + stride * (size_t)y, width, m, lift, column_gain, row_gain[y]);
}
#endif

/// `value` x 2^bits, rounded half away from zero, within +-2^20 (so that three coefficients
/// times 255 plus a lift stay inside int32).
static int32_t fixed(double value, int bits) {
    double scaled = value * (double)(1 << bits);
    if (scaled > 1 << 20) scaled = 1 << 20;
    if (scaled < -(1 << 20)) scaled = -(1 << 20);
    return (int32_t)(scaled < 0 ? ceil(scaled - 0.5) : floor(scaled + 0.5));
}

struct CPixelKernels_colour_plan {
    int width, height;
    int32_t m[9];
    int32_t lift;
    int32_t *column_gain;
    int32_t *row_gain;
};

CPixelKernels_colour_plan *CPixelKernels_colour_plan_make(int width, int height, const double matrix[9],
                                                          double contrast, double lift, double vignette) {
    CPixelKernels_colour_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return NULL;
    plan->width = width;
    plan->height = height;
    // The vignette factor 1 - vignette (dx² + dy²) / 2 splits into a term per column and one
    // per row, made here once (in doubles, outside the dispatched kernels).
    plan->column_gain = malloc(sizeof(int32_t) * (size_t)width);
    plan->row_gain = malloc(sizeof(int32_t) * (size_t)height);
    if (!plan->column_gain || !plan->row_gain) {
        CPixelKernels_colour_plan_free(plan);
        return NULL;
    }
    const double half_width = width / 2.0, half_height = height / 2.0;
    for (int x = 0; x < width; x++) {
        const double d = (x + 0.5) / half_width - 1.0;
        plan->column_gain[x] = fixed(vignette * d * d * 0.5, GAIN_BITS);
    }
    for (int y = 0; y < height; y++) {
        const double d = (y + 0.5) / half_height - 1.0;
        plan->row_gain[y] = fixed(vignette * d * d * 0.5, GAIN_BITS);
    }
    // Each coefficient within +-2^20 / 2^14 = 64 (no effect comes near), so the sums fit int32.
    for (int k = 0; k < 9; k++)
        plan->m[k] = fixed(matrix[k] * contrast, COLOUR_BITS);
    plan->lift = fixed(lift, COLOUR_BITS);
    return plan;
}

void CPixelKernels_colour_apply(const CPixelKernels_colour_plan *plan, uint8_t *pixels, size_t stride, int first_row,
                                int rows) {
    const int32_t *row_gain = plan->row_gain + first_row;
#if HAS_AVX2_TARGET
    if (CPixelKernels_current_target() == CPixelKernels_avx2) {
        colour_avx2(pixels, stride, plan->width, rows, plan->m, plan->lift, plan->column_gain, row_gain);
        return;
    }
#endif
    colour_baseline(pixels, stride, plan->width, rows, plan->m, plan->lift, plan->column_gain, row_gain);
}

void CPixelKernels_colour_plan_free(CPixelKernels_colour_plan *plan) {
    if (!plan) return;
    free(plan->column_gain);
    free(plan->row_gain);
    free(plan);
}

int CPixelKernels_colour(uint8_t *pixels, size_t stride, int width, int height, const double matrix[9], double contrast,
                         double lift, double vignette) {
    CPixelKernels_colour_plan *plan = CPixelKernels_colour_plan_make(width, height, matrix, contrast, lift, vignette);
    if (!plan) return -1;
    CPixelKernels_colour_apply(plan, pixels, stride, 0, height);
    CPixelKernels_colour_plan_free(plan);
    return 0;
}

// MARK: frame blend

static inline __attribute__((always_inline)) void blend_row(uint8_t *out, const uint8_t *paint, const uint8_t *mask,
                                                            int width) {
    for (int x = 0; x < width; x++) {
        const uint32_t a = mask[x];
        for (int band = 0; band < 3; band++) {
            const uint32_t value = paint[3 * x + band] * a + out[3 * x + band] * (255 - a);
            out[3 * x + band] = (uint8_t)((value + 127) / 255);
        }
    }
}

static void blend_baseline(uint8_t *card, size_t card_stride, const uint8_t *colour, size_t colour_stride,
                           const uint8_t *alpha, size_t alpha_stride, int width, int height) {
    for (int y = 0; y < height; y++)
        blend_row(card + card_stride * (size_t)y, colour + colour_stride * (size_t)y, alpha + alpha_stride * (size_t)y,
                  width);
}

#if HAS_AVX2_TARGET
AVX2 static void blend_avx2(uint8_t *card, size_t card_stride, const uint8_t *colour, size_t colour_stride,
                            const uint8_t *alpha, size_t alpha_stride, int width, int height) {
    for (int y = 0; y < height; y++)
        blend_row(card + card_stride * (size_t)y, colour + colour_stride * (size_t)y, alpha + alpha_stride * (size_t)y,
                  width);
}
#endif

void CPixelKernels_blend(uint8_t *card, size_t card_stride, const uint8_t *colour, size_t colour_stride,
                         const uint8_t *alpha, size_t alpha_stride, int width, int height) {
#if HAS_AVX2_TARGET
    if (CPixelKernels_current_target() == CPixelKernels_avx2) {
        blend_avx2(card, card_stride, colour, colour_stride, alpha, alpha_stride, width, height);
        return;
    }
#endif
    blend_baseline(card, card_stride, colour, colour_stride, alpha, alpha_stride, width, height);
}

void CPixelKernels_fill(uint8_t *pixels, size_t stride, int width, int height, uint8_t red, uint8_t green,
                        uint8_t blue) {
    for (int y = 0; y < height; y++) {
        uint8_t *row = pixels + stride * (size_t)y;
        for (int x = 0; x < width; x++) {
            row[3 * x] = red;
            row[3 * x + 1] = green;
            row[3 * x + 2] = blue;
        }
    }
}

// MARK: decode pyramid

/// One output row of `CPixelKernels_halve` from source rows `a` and `b` (`b` = `a` on an odd
/// last row: each pixel counted twice gives the same mean as counting it once).
static inline __attribute__((always_inline)) void halve_row(const uint8_t *a, const uint8_t *b, int width,
                                                            uint8_t *out) {
    const int pairs = width / 2;
    for (int x = 0; x < pairs; x++) {
        for (int band = 0; band < 3; band++) {
            const uint32_t sum =
                (uint32_t)a[6 * x + band] + a[6 * x + 3 + band] + b[6 * x + band] + b[6 * x + 3 + band];
            out[3 * x + band] = (uint8_t)((sum + 2) >> 2);
        }
    }
    if (width & 1) {
        for (int band = 0; band < 3; band++) {
            const uint32_t sum = (uint32_t)a[6 * pairs + band] + b[6 * pairs + band];
            out[3 * pairs + band] = (uint8_t)((sum + 1) >> 1);
        }
    }
}

static void halve_baseline(const uint8_t *source, size_t source_stride, int width, int height, uint8_t *destination,
                           size_t destination_stride) {
    for (int y = 0; 2 * y < height; y++) {
        const uint8_t *a = source + source_stride * (size_t)(2 * y);
        const uint8_t *b = 2 * y + 1 < height ? a + source_stride : a;
        halve_row(a, b, width, destination + destination_stride * (size_t)y);
    }
}

#if HAS_AVX2_TARGET
AVX2 static void halve_avx2(const uint8_t *source, size_t source_stride, int width, int height, uint8_t *destination,
                            size_t destination_stride) {
    for (int y = 0; 2 * y < height; y++) {
        const uint8_t *a = source + source_stride * (size_t)(2 * y);
        const uint8_t *b = 2 * y + 1 < height ? a + source_stride : a;
        halve_row(a, b, width, destination + destination_stride * (size_t)y);
    }
}
#endif

void CPixelKernels_halve(const uint8_t *source, size_t source_stride, int width, int height, uint8_t *destination,
                         size_t destination_stride) {
#if HAS_AVX2_TARGET
    if (CPixelKernels_current_target() == CPixelKernels_avx2) {
        halve_avx2(source, source_stride, width, height, destination, destination_stride);
        return;
    }
#endif
    halve_baseline(source, source_stride, width, height, destination, destination_stride);
}

// MARK: turn

#define TURN_FRACTION 32

/// A position in 32.32 fixed point, rounded to nearest. Computed in a function compiled for
/// the baseline only, so no target contracts it into a fused multiply-add.
static __attribute__((noinline)) int64_t turn_fixed(double value) { return (int64_t)llround(value * 4294967296.0); }

/// One source tap: the pixel, or the background outside the source.
static inline __attribute__((always_inline)) const uint8_t *
turn_tap(const uint8_t *source, size_t stride, int width, int height, int64_t x, int64_t y, const uint8_t *background) {
    if (x < 0 || y < 0 || x >= width || y >= height) return background;
    return source + stride * (size_t)y + 3 * (size_t)x;
}

/// The bilinear sample of four taps with 8-bit fractions fx, fy.
static inline __attribute__((always_inline)) void turn_mix(const uint8_t *p00, const uint8_t *p10, const uint8_t *p01,
                                                           const uint8_t *p11, uint32_t fx, uint32_t fy,
                                                           uint8_t *pixel) {
    const uint32_t w00 = (256 - fx) * (256 - fy), w10 = fx * (256 - fy), w01 = (256 - fx) * fy, w11 = fx * fy;
    for (int band = 0; band < 3; band++) {
        const uint32_t sum = w00 * p00[band] + w10 * p10[band] + w01 * p01[band] + w11 * p11[band];
        pixel[band] = (uint8_t)((sum + 32768) >> 16);
    }
}

/// One output pixel at (u, v), 32.32, with every edge case (taps outside are background).
static inline __attribute__((always_inline)) void turn_edge_pixel(const uint8_t *source, size_t stride, int width,
                                                                  int height, int64_t u, int64_t v,
                                                                  const uint8_t *background, uint8_t *pixel) {
    // floor, and the 8-bit fraction of the position (arithmetic shifts floor negatives).
    const int64_t x0 = u >> TURN_FRACTION, y0 = v >> TURN_FRACTION;
    if (x0 < -1 || y0 < -1 || x0 >= width || y0 >= height) {
        pixel[0] = background[0];
        pixel[1] = background[1];
        pixel[2] = background[2];
        return;
    }
    turn_mix(turn_tap(source, stride, width, height, x0, y0, background),
             turn_tap(source, stride, width, height, x0 + 1, y0, background),
             turn_tap(source, stride, width, height, x0, y0 + 1, background),
             turn_tap(source, stride, width, height, x0 + 1, y0 + 1, background),
             (uint32_t)((u >> (TURN_FRACTION - 8)) & 0xFF), (uint32_t)((v >> (TURN_FRACTION - 8)) & 0xFF), pixel);
}

/// Whether all four taps at (u, v) are inside the source.
static inline int turn_inside(int width, int height, int64_t u, int64_t v) {
    const int64_t x0 = u >> TURN_FRACTION, y0 = v >> TURN_FRACTION;
    return x0 >= 0 && y0 >= 0 && x0 + 1 < width && y0 + 1 < height;
}

/// One output row of the turn: `count` pixels from (u, v), stepping (du, dv), all 32.32. The
/// pixels whose taps are all inside the source are one run (the row is a line, the source a
/// box), found first and sampled without a test; the rest go through the edge cases.
static inline __attribute__((always_inline)) void turn_row(const uint8_t *source, size_t stride, int width, int height,
                                                           uint8_t *out, int count, int64_t u, int64_t v, int64_t du,
                                                           int64_t dv, const uint8_t *background) {
    // The run, estimated in doubles, then moved until its ends are exactly inside.
    double first = 0, end = count;
    const double scale = 4294967296.0;
    const double uu = (double)u / scale, vv = (double)v / scale, uu_step = (double)du / scale,
                 vv_step = (double)dv / scale;
    const double limits[2][3] = {{uu, uu_step, (double)width - 1}, {vv, vv_step, (double)height - 1}};
    for (int axis = 0; axis < 2; axis++) {
        const double start = limits[axis][0], step = limits[axis][1], top = limits[axis][2];
        if (step == 0) {
            if (start < 0 || start >= top) first = end = 0;
        } else {
            double a = (0 - start) / step, b = (top - start) / step;
            if (a > b) {
                const double t = a;
                a = b;
                b = t;
            }
            if (a > first) first = a;
            if (b < end) end = b;
        }
    }
    int run_first = first <= 0 ? 0 : first >= count ? count : (int)ceil(first);
    int run_end = end <= 0 ? 0 : end >= count ? count : (int)floor(end) + 1;
    if (run_end < run_first) run_end = run_first;
    while (run_first < run_end && !turn_inside(width, height, u + run_first * du, v + run_first * dv))
        run_first++;
    while (run_end > run_first && !turn_inside(width, height, u + (run_end - 1) * du, v + (run_end - 1) * dv))
        run_end--;
    for (int i = 0; i < run_first; i++)
        turn_edge_pixel(source, stride, width, height, u + i * du, v + i * dv, background, out + 3 * (size_t)i);
    int64_t x = u + run_first * du, y = v + run_first * dv;
    for (int i = run_first; i < run_end; i++, x += du, y += dv) {
        const uint8_t *p00 = source + stride * (size_t)(y >> TURN_FRACTION) + 3 * (size_t)(x >> TURN_FRACTION);
        turn_mix(p00, p00 + 3, p00 + stride, p00 + stride + 3, (uint32_t)((x >> (TURN_FRACTION - 8)) & 0xFF),
                 (uint32_t)((y >> (TURN_FRACTION - 8)) & 0xFF), out + 3 * (size_t)i);
    }
    for (int i = run_end; i < count; i++)
        turn_edge_pixel(source, stride, width, height, u + i * du, v + i * dv, background, out + 3 * (size_t)i);
}

static void turn_baseline(const uint8_t *source, size_t stride, int source_width, int source_height,
                          uint8_t *destination, size_t destination_stride, int width, int height, const int64_t *starts,
                          int64_t du, int64_t dv, const uint8_t *background) {
    for (int y = 0; y < height; y++)
        turn_row(source, stride, source_width, source_height, destination + destination_stride * (size_t)y, width,
                 starts[2 * y], starts[2 * y + 1], du, dv, background);
}

#if HAS_AVX2_TARGET
AVX2 static void turn_avx2(const uint8_t *source, size_t stride, int source_width, int source_height,
                           uint8_t *destination, size_t destination_stride, int width, int height,
                           const int64_t *starts, int64_t du, int64_t dv, const uint8_t *background) {
    for (int y = 0; y < height; y++)
        turn_row(source, stride, source_width, source_height, destination + destination_stride * (size_t)y, width,
                 starts[2 * y], starts[2 * y + 1], du, dv, background);
}
#endif

void CPixelKernels_turn(const uint8_t *source, size_t source_stride, int source_width, int source_height,
                        uint8_t *destination, size_t destination_stride, int width, int height, const double inverse[6],
                        const uint8_t background[3]) {
    if (width <= 0 || height <= 0) return;
    // Each row's first position from the doubles (no drift down the rows), then stepped.
    int64_t stack[2 * 512];
    int64_t *starts = height <= 512 ? stack : malloc(sizeof(int64_t) * 2 * (size_t)height);
    if (!starts) {
        CPixelKernels_fill(destination, destination_stride, width, height, background[0], background[1], background[2]);
        return;
    }
    for (int y = 0; y < height; y++) {
        starts[2 * y] = turn_fixed(inverse[1] * (double)y + inverse[2]);
        starts[2 * y + 1] = turn_fixed(inverse[4] * (double)y + inverse[5]);
    }
    const int64_t du = turn_fixed(inverse[0]), dv = turn_fixed(inverse[3]);
#if HAS_AVX2_TARGET
    if (CPixelKernels_current_target() == CPixelKernels_avx2) {
        turn_avx2(source, source_stride, source_width, source_height, destination, destination_stride, width, height,
                  starts, du, dv, background);
        if (starts != stack) free(starts);
        return;
    }
#endif
    turn_baseline(source, source_stride, source_width, source_height, destination, destination_stride, width, height,
                  starts, du, dv, background);
    if (starts != stack) free(starts);
}
