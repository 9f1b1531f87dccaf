#include "CDataMatrix.h"

#include <dmtx.h>
#include <string.h>

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

int CDataMatrix_decode(const uint8_t *pixels, int width, int height, int stride, const uint8_t *prefix,
                       size_t prefix_length, int timeout_ms, int min_edge, int max_edge, int symbol_side,
                       uint8_t *message, size_t capacity, size_t *message_length) {
    if (pixels == NULL || width < 8 || height < 8 || stride < width || message == NULL || message_length == NULL ||
        timeout_ms < 0 || (prefix == NULL && prefix_length > 0)) {
        return -1;
    }
    // libdmtx reads but does not write the pixels; its API takes them as non-const.
    DmtxImage *image = dmtxImageCreate((unsigned char *)pixels, width, height, DmtxPack8bppK);
    if (image == NULL) return -2;
    int result = -2;
    DmtxDecode *decode = NULL;
    if (dmtxImageSetProp(image, DmtxPropRowPadBytes, stride - width) != DmtxPass ||
        dmtxImageSetProp(image, DmtxPropImageFlip, DmtxFlipNone) != DmtxPass) {
        goto done;
    }
    decode = dmtxDecodeCreate(image, 1);
    if (decode == NULL) goto done;
    if (dmtxDecodeSetProp(decode, DmtxPropSymbolSize, symbol_size(symbol_side)) != DmtxPass) goto done;
    if (min_edge > 0 && dmtxDecodeSetProp(decode, DmtxPropEdgeMin, min_edge) != DmtxPass) goto done;
    if (max_edge > 0 && dmtxDecodeSetProp(decode, DmtxPropEdgeMax, max_edge) != DmtxPass) goto done;
    DmtxTime timeout = dmtxTimeAdd(dmtxTimeNow(), timeout_ms);
    result = 1;
    for (;;) {
        DmtxRegion *region = dmtxRegionFindNext(decode, &timeout);
        if (region == NULL) break;
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
