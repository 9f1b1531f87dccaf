// The fast path's pixel loops: see CPixelKernels.h.
#include "CPixelKernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PRECISION_BITS 22
#define HALF (1 << (PRECISION_BITS - 1))

#if defined(__x86_64__) && defined(__clang__)
#define MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define MULTIVERSION
#endif

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
    value = (value + HALF) >> PRECISION_BITS;
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
    axis->out_size = out_size;
    axis->taps = taps;
    axis->first = malloc(sizeof(int) * (size_t)out_size);
    axis->count = malloc(sizeof(int) * (size_t)out_size);
    axis->weights = malloc(sizeof(int32_t) * (size_t)out_size * (size_t)taps);
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
        if (high <= low) {  // a box wholly outside the source: take the nearest sample
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
        int32_t *weights = axis->weights + (size_t)i * taps;
        for (int k = 0; k < taps; k++) {
            double w = k < count && total != 0 ? real[k] / total : 0;
            weights[k] = (int32_t)(w < 0 ? w * (1 << PRECISION_BITS) - 0.5 : w * (1 << PRECISION_BITS) + 0.5);
        }
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

/// Four 32-bit lanes: the compiler's generic vectors (SSE2 or AVX2 code from the same
/// source, whichever clone runs), not one instruction set's intrinsics.
typedef int32_t lanes4 __attribute__((vector_size(16)));
typedef uint8_t bytes4 __attribute__((vector_size(4)));

MULTIVERSION
void CPixelKernels_resample_rows(const uint8_t *source, size_t source_stride, int rows, uint8_t *destination,
                                 size_t destination_stride, const CPixelKernels_axis *x) {
    const int taps = x->taps;
    for (int row = 0; row < rows; row++) {
        const uint8_t *in = source + source_stride * (size_t)row;
        uint8_t *out = destination + destination_stride * (size_t)row;
        const int last_pixel = (int)(source_stride / 3) - 1;
        for (int i = 0; i < x->out_size; i++) {
            const int32_t *w = x->weights + (size_t)i * taps;
            const int first = x->first[i];
            const int count = x->count[i];
            // R, G, B (and the next pixel's R, ignored) of each tap in one 4-lane multiply-add;
            // the row's very last pixel is read byte by byte, so no read passes the row.
            const int whole = first + count - 1 == last_pixel ? count - 1 : count;
            lanes4 sum = {0, 0, 0, 0};
            for (int k = 0; k < whole; k++) {
                bytes4 pixel;
                __builtin_memcpy(&pixel, in + 3 * (size_t)(first + k), 4);
                sum += __builtin_convertvector(pixel, lanes4) * w[k];
            }
            for (int k = whole; k < count; k++) {
                const uint8_t *p = in + 3 * (size_t)(first + k);
                lanes4 pixel = {p[0], p[1], p[2], 0};
                sum += pixel * w[k];
            }
            out[3 * i] = clip8(sum[0]);
            out[3 * i + 1] = clip8(sum[1]);
            out[3 * i + 2] = clip8(sum[2]);
        }
    }
}

MULTIVERSION
void CPixelKernels_resample_columns(const uint8_t *source, size_t source_stride, int first_row, int width,
                                    uint8_t *destination, size_t destination_stride, const CPixelKernels_axis *y) {
    const int taps = y->taps;
    const int samples = width * 3;
    int32_t *sums = malloc(sizeof(int32_t) * (size_t)samples);
    if (!sums) return;
    for (int i = 0; i < y->out_size; i++) {
        const int32_t *w = y->weights + (size_t)i * taps;
        const int count = y->count[i];
        const uint8_t *base = source + source_stride * (size_t)(y->first[i] - first_row);
        for (int s = 0; s < samples; s++) sums[s] = 0;
        for (int k = 0; k < count; k++) {
            const uint8_t *in = base + source_stride * (size_t)k;
            const int32_t weight = w[k];
            for (int s = 0; s < samples; s++) sums[s] += in[s] * weight;
        }
        uint8_t *out = destination + destination_stride * (size_t)i;
        for (int s = 0; s < samples; s++) out[s] = clip8(sums[s]);
    }
    free(sums);
}

void CPixelKernels_orient(const uint8_t *source, size_t source_stride, int width, int height, int orientation,
                          uint8_t *destination, size_t destination_stride) {
    const int swapped = orientation >= 5;
    const int out_width = swapped ? height : width;
    const int out_height = swapped ? width : height;
    for (int y = 0; y < out_height; y++) {
        uint8_t *out = destination + destination_stride * (size_t)y;
        if (orientation == 1 || orientation == 3 || orientation == 2 || orientation == 4) {
            int sy = (orientation == 3 || orientation == 4) ? height - 1 - y : y;
            const uint8_t *in = source + source_stride * (size_t)sy;
            if (orientation == 1 || orientation == 4) {
                memcpy(out, in, (size_t)width * 3);
            } else {
                for (int x = 0; x < out_width; x++) memcpy(out + 3 * x, in + 3 * (width - 1 - x), 3);
            }
            continue;
        }
        for (int x = 0; x < out_width; x++) {
            int sx, sy;
            switch (orientation) {
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = height - 1 - x; break;
            case 7: sx = width - 1 - y; sy = height - 1 - x; break;
            default: sx = width - 1 - y; sy = x; break;  // 8
            }
            memcpy(out + 3 * x, source + source_stride * (size_t)sy + 3 * (size_t)sx, 3);
        }
    }
}

MULTIVERSION
void CPixelKernels_colour(uint8_t *pixels, size_t stride, int width, int height, const float matrix[9],
                          float contrast, float lift, float vignette) {
    const float half_width = width / 2.0f, half_height = height / 2.0f;
    for (int y = 0; y < height; y++) {
        uint8_t *row = pixels + stride * (size_t)y;
        const float dy = (y + 0.5f) / half_height - 1.0f;
        for (int x = 0; x < width; x++) {
            const float dx = (x + 0.5f) / half_width - 1.0f;
            const float gain = 1.0f - vignette * (dx * dx + dy * dy) * 0.5f;
            const float r = row[3 * x], g = row[3 * x + 1], b = row[3 * x + 2];
            for (int band = 0; band < 3; band++) {
                float v = (matrix[3 * band] * r + matrix[3 * band + 1] * g + matrix[3 * band + 2] * b) * contrast + lift;
                // Truncated, as libvips's cast to 8 bits does, so both paths give the same bytes.
                v = v * gain;
                row[3 * x + band] = v <= 0.0f ? 0 : v >= 255.0f ? 255 : (uint8_t)v;
            }
        }
    }
}

MULTIVERSION
void CPixelKernels_blend(uint8_t *card, size_t card_stride, const uint8_t *colour, size_t colour_stride,
                         const uint8_t *alpha, size_t alpha_stride, int width, int height) {
    for (int y = 0; y < height; y++) {
        uint8_t *out = card + card_stride * (size_t)y;
        const uint8_t *paint = colour + colour_stride * (size_t)y;
        const uint8_t *mask = alpha + alpha_stride * (size_t)y;
        for (int x = 0; x < width; x++) {
            const uint32_t a = mask[x];
            for (int band = 0; band < 3; band++) {
                const uint32_t value = paint[3 * x + band] * a + out[3 * x + band] * (255 - a);
                out[3 * x + band] = (uint8_t)((value + 127) / 255);
            }
        }
    }
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
