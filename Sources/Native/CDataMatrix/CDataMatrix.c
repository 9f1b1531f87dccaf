#include "CDataMatrix.h"

#include <dmtx.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int CDataMatrix_encode(const uint8_t *bytes, size_t length, uint8_t *modules, size_t capacity, int *side) {
    if (bytes == NULL || modules == NULL || side == NULL || length == 0 || length > 1556) return -1;
    DmtxEncode *encode = dmtxEncodeCreate();
    if (encode == NULL) return -2;
    int result = -2;
    if (dmtxEncodeSetProp(encode, DmtxPropScheme, DmtxSchemeBase256) == DmtxPass &&
        dmtxEncodeSetProp(encode, DmtxPropSizeRequest, DmtxSymbolSquareAuto) == DmtxPass &&
        dmtxEncodeSetProp(encode, DmtxPropModuleSize, 1) == DmtxPass &&
        dmtxEncodeSetProp(encode, DmtxPropMarginSize, 0) == DmtxPass &&
        dmtxEncodeSetProp(encode, DmtxPropPixelPacking, DmtxPack8bppK) == DmtxPass) {
        if (dmtxEncodeDataMatrix(encode, (int)length, (unsigned char *)bytes) != DmtxPass) {
            result = -1;
        } else {
            DmtxImage *image = encode->image;
            int width = dmtxImageGetProp(image, DmtxPropWidth);
            int height = dmtxImageGetProp(image, DmtxPropHeight);
            if (width <= 0 || width != height || (size_t)width * (size_t)height > capacity) {
                result = -1;
            } else {
                result = 0;
                for (int row = 0; row < height && result == 0; row++) {
                    for (int column = 0; column < width; column++) {
                        int value = 0;
                        // dmtxImageGetPixelValue counts rows from the bottom (y up).
                        if (dmtxImageGetPixelValue(image, column, height - 1 - row, 0, &value) != DmtxPass) {
                            result = -2;
                            break;
                        }
                        modules[(size_t)row * (size_t)width + (size_t)column] = value < 128 ? 1 : 0;
                    }
                }
                *side = width;
            }
        }
    }
    dmtxEncodeDestroy(&encode);
    return result;
}

/// The libdmtx size index of a square symbol `side` modules wide, or DmtxSymbolSquareAuto.
static int symbol_size(int side) {
    static const int sides[] = {10, 12, 14, 16, 18, 20, 22, 24, 26,  32,  36,  40,
                                44, 48, 52, 64, 72, 80, 88, 96, 104, 120, 132, 144};
    for (int index = 0; index < (int)(sizeof sides / sizeof sides[0]); index++) {
        if (sides[index] == side) return DmtxSymbol10x10 + index;
    }
    return DmtxSymbolSquareAuto;
}

/// Milliseconds of CPU time this thread has used.
static double thread_milliseconds(void) {
    struct timespec now;
    // A clock that cannot be read gives NaN: every budget comparison is then false, so no
    // search runs without a bound.
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return NAN;
    return (double)now.tv_sec * 1000.0 + (double)now.tv_nsec / 1e6;
}

/// Searches the `width` x `height` box at `pixels` (rows `stride` bytes apart) for a symbol
/// whose message starts with `prefix`, until this thread has spent `budget_ms` of CPU time on
/// it: 0 and the message when found, 1 when not, -2 when libdmtx fails. CPU time, not the
/// clock's: on a busy machine a search gets as far as on an idle one, only later. libdmtx's
/// own timeout is the clock's, so it is given 10 ms at a time; its search resumes where it
/// stopped.
static int search(const uint8_t *pixels, int width, int height, int stride, const uint8_t *prefix, size_t prefix_length,
                  double budget_ms, int min_edge, int max_edge, int symbol_side, int shrink, uint8_t *message,
                  size_t capacity, size_t *message_length) {
    double started = thread_milliseconds();
    // libdmtx reads but does not write the pixels; its API takes them as non-const.
    DmtxImage *image = dmtxImageCreate((unsigned char *)pixels, width, height, DmtxPack8bppK);
    if (image == NULL) return -2;
    int result = -2;
    DmtxDecode *decode = NULL;
    if (dmtxImageSetProp(image, DmtxPropRowPadBytes, stride - width) != DmtxPass ||
        dmtxImageSetProp(image, DmtxPropImageFlip, DmtxFlipNone) != DmtxPass) {
        goto done;
    }
    decode = dmtxDecodeCreate(image, shrink);
    if (decode == NULL) goto done;
    if (dmtxDecodeSetProp(decode, DmtxPropSymbolSize, symbol_size(symbol_side)) != DmtxPass) goto done;
    // libdmtx compares the edges' bounds with the shrunk picture's pixels.
    if (min_edge > 0 && dmtxDecodeSetProp(decode, DmtxPropEdgeMin, min_edge / shrink) != DmtxPass) goto done;
    if (max_edge > 0 && dmtxDecodeSetProp(decode, DmtxPropEdgeMax, max_edge / shrink) != DmtxPass) goto done;
    result = 1;
    while (thread_milliseconds() - started < budget_ms) {
        DmtxTime slice = dmtxTimeAdd(dmtxTimeNow(), 10);
        DmtxRegion *region = dmtxRegionFindNext(decode, &slice);
        if (region == NULL) {
            // Out of time for this slice: go on; else the whole box has been searched.
            if (dmtxTimeExceeded(slice)) continue;
            break;
        }
        DmtxMessage *found = dmtxDecodeMatrixRegion(decode, region, DmtxUndefined);
        dmtxRegionDestroy(&region);
        if (found == NULL) continue;
        size_t length = found->outputIdx;
        int matches = length >= prefix_length && length <= capacity &&
                      (prefix_length == 0 || memcmp(found->output, prefix, prefix_length) == 0);
        if (matches) {
            memcpy(message, found->output, length);
            *message_length = length;
            result = 0;
        }
        dmtxMessageDestroy(&found);
        if (matches) break;
    }
done:
    if (decode != NULL) dmtxDecodeDestroy(&decode);
    dmtxImageDestroy(&image);
    return result;
}

enum {
    /// The locator's blocks, in pixels.
    BLOCK = 8,
    /// Its window, in blocks: 96 pixels, about a symbol's side at the working size.
    WINDOW = 12,
    /// The box searched round a place the locator found, in pixels.
    CROP = 400,
    /// A step between two pixels that counts as an edge (of 255).
    EDGE = 40,
};

/// The places most like a Data Matrix symbol, best first: the windows with the most strong
/// edges across and down (a symbol is half dark modules, edges everywhere; text has space
/// between its lines, paper and table none). libdmtx looks for a symbol everywhere, following
/// every edge, and how long that takes swings with the picture (tens of milliseconds to more
/// than a second on a back with its table round it); a few boxes round these places are read
/// first, in milliseconds. No library here has such a locator (libdmtx's own is the slow part).
/// Writes up to `count` centres to `xs`, `ys`; returns how many.
static int locate(const uint8_t *pixels, int width, int height, int stride, int count, int *xs, int *ys) {
    int columns = width / BLOCK, rows = height / BLOCK;
    if (count <= 0 || columns < WINDOW || rows < WINDOW) return 0;
    int *edges = calloc((size_t)columns * (size_t)rows, sizeof(int));
    long *sums = calloc((size_t)(columns + 1) * (size_t)(rows + 1), sizeof(long));
    int found = 0;
    if (edges == NULL || sums == NULL) goto done;
    for (int y = 0; y < rows * BLOCK - 1; y++) {
        const uint8_t *row = pixels + (size_t)y * (size_t)stride;
        for (int x = 0; x < columns * BLOCK - 1; x++) {
            int value = row[x];
            int across = abs(value - row[x + 1]) > EDGE;
            int down = abs(value - row[x + stride]) > EDGE;
            edges[(y / BLOCK) * columns + x / BLOCK] += across + down;
        }
    }
    for (; found < count; found++) {
        // Summed areas, so that each window's total costs four reads.
        for (int y = 0; y < rows; y++) {
            for (int x = 0; x < columns; x++) {
                sums[(y + 1) * (columns + 1) + x + 1] = edges[y * columns + x] + sums[y * (columns + 1) + x + 1] +
                                                        sums[(y + 1) * (columns + 1) + x] - sums[y * (columns + 1) + x];
            }
        }
        long best = 0;
        int left = -1, top = -1;
        for (int y = 0; y + WINDOW <= rows; y++) {
            for (int x = 0; x + WINDOW <= columns; x++) {
                long total = sums[(y + WINDOW) * (columns + 1) + x + WINDOW] - sums[y * (columns + 1) + x + WINDOW] -
                             sums[(y + WINDOW) * (columns + 1) + x] + sums[y * (columns + 1) + x];
                if (total > best) {
                    best = total;
                    left = x;
                    top = y;
                }
            }
        }
        if (left < 0) break;
        xs[found] = left * BLOCK + WINDOW * BLOCK / 2;
        ys[found] = top * BLOCK + WINDOW * BLOCK / 2;
        // The next place is away from this one.
        for (int y = top - 2 * WINDOW; y < top + 3 * WINDOW; y++) {
            for (int x = left - 2 * WINDOW; x < left + 3 * WINDOW; x++) {
                if (x >= 0 && y >= 0 && x < columns && y < rows) edges[y * columns + x] = 0;
            }
        }
    }
done:
    free(edges);
    free(sums);
    return found;
}

int CDataMatrix_decode(const uint8_t *pixels, int width, int height, int stride, const uint8_t *prefix,
                       size_t prefix_length, int budget_ms, int place_ms, int min_edge, int max_edge, int symbol_side,
                       int shrink, int places, uint8_t *message, size_t capacity, size_t *message_length) {
    if (pixels == NULL || width < 8 || height < 8 || stride < width || message == NULL || message_length == NULL ||
        budget_ms < 0 || place_ms < 0 || shrink < 1 || places < 0 || places > 16 ||
        (prefix == NULL && prefix_length > 0)) {
        return -1;
    }
    double started = thread_milliseconds();
    int xs[16], ys[16];
    int found = locate(pixels, width, height, stride, places, xs, ys);
    for (int index = 0; index < found; index++) {
        int left = xs[index] - CROP / 2, top = ys[index] - CROP / 2;
        if (left < 0) left = 0;
        if (top < 0) top = 0;
        int box_width = left + CROP > width ? width - left : CROP;
        int box_height = top + CROP > height ? height - top : CROP;
        const uint8_t *box = pixels + (size_t)top * (size_t)stride + (size_t)left;
        // Every pixel, then every second one: each finds what the other misses.
        for (int step = 1; step <= 2; step++) {
            double left_ms = budget_ms - (thread_milliseconds() - started);
            if (!(left_ms > 0)) return 1;
            int result = search(box, box_width, box_height, stride, prefix, prefix_length,
                                left_ms < place_ms ? left_ms : place_ms, min_edge, max_edge, symbol_side, step, message,
                                capacity, message_length);
            if (result != 1) return result;
        }
    }
    double left_ms = budget_ms - (thread_milliseconds() - started);
    if (!(left_ms > 0)) return 1;
    return search(pixels, width, height, stride, prefix, prefix_length, left_ms, min_edge, max_edge, symbol_side,
                  shrink, message, capacity, message_length);
}
