// An HEIF photo's primary image through libheif; see CHEIFBridge.h.
#include "CHEIFBridge.h"

#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CPixelKernels.h"
#include "CLazyLibraries.h"

/// Copies libheif's message (or `fallback`) into the caller's buffer; returns -1.
static int fail(const char *text, char *message, size_t message_size) {
    if (message && message_size) snprintf(message, message_size, "%s", text && *text ? text : "libheif failed");
    return -1;
}

int CHEIFBridge_available(char *message, size_t message_size) {
    const char *error = NULL;
    // No heif_init: libvips's HEIF module, which shares this libheif, does not call it either
    // (libheif asks that the two are not mixed), and Debian's decoders are built in.
    if (CLazyLibraries_load(CLazyLibraries_heif, &error) != 0) return fail(error, message, message_size);
    return 0;
}

/// The context of `data` and its primary image's handle; -1 with libheif's message.
static int open_primary(const uint8_t *data, size_t size, struct heif_context **context,
                        struct heif_image_handle **handle, char *message, size_t message_size) {
    if (CHEIFBridge_available(message, message_size) != 0) return -1;
    *handle = NULL;
    *context = heif_context_alloc();
    if (!*context) return fail("out of memory", message, message_size);
    struct heif_error error = heif_context_read_from_memory_without_copy(*context, data, size, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(*context, handle);
    if (error.code != heif_error_Ok) {
        // libheif's message lives in the context: copied out before the context is freed.
        fail(error.message, message, message_size);
        heif_context_free(*context);
        *context = NULL;
        return -1;
    }
    return 0;
}

static void close_primary(struct heif_context *context, struct heif_image_handle *handle) {
    if (handle) heif_image_handle_release(handle);
    if (context) heif_context_free(context);
}

int CHEIFBridge_read_info(const uint8_t *data, size_t size, CHEIFBridge_info *info, char *message,
                          size_t message_size) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    if (open_primary(data, size, &context, &handle, message, message_size) != 0) return -1;
    info->width = heif_image_handle_get_width(handle);
    info->height = heif_image_handle_get_height(handle);
    info->bits = heif_image_handle_get_luma_bits_per_pixel(handle);
    info->has_alpha = heif_image_handle_has_alpha_channel(handle);
    enum heif_color_profile_type type = heif_image_handle_get_color_profile_type(handle);
    info->has_icc = type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC;
    close_primary(context, handle);
    return 0;
}

int CHEIFBridge_read_icc(const uint8_t *data, size_t size, uint8_t **icc, size_t *icc_size, char *message,
                         size_t message_size) {
    *icc = NULL;
    *icc_size = 0;
    struct heif_context *context;
    struct heif_image_handle *handle;
    if (open_primary(data, size, &context, &handle, message, message_size) != 0) return -1;
    enum heif_color_profile_type type = heif_image_handle_get_color_profile_type(handle);
    size_t length = heif_image_handle_get_raw_color_profile_size(handle);
    int result = 0;
    if ((type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC) && length > 0) {
        uint8_t *bytes = malloc(length);
        struct heif_error error = bytes ? heif_image_handle_get_raw_color_profile(handle, bytes)
                                        : (struct heif_error){heif_error_Memory_allocation_error, 0, "out of memory"};
        if (error.code == heif_error_Ok) {
            *icc = bytes;
            *icc_size = length;
        } else {
            free(bytes);
            result = fail(error.message, message, message_size);
        }
    }
    close_primary(context, handle);
    return result;
}

int CHEIFBridge_decode(const uint8_t *data, size_t size, int turn, uint8_t *pixels, int width, int height,
                       size_t stride, char *message, size_t message_size) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    if (open_primary(data, size, &context, &handle, message, message_size) != 0) return -1;
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) {
        close_primary(context, handle);
        return fail("out of memory", message, message_size);
    }
    // Rotated and mirrored as `irot`/`imir` say, as libvips gets it, unless asked for the stored picture.
    options->ignore_transformations = turn ? 1 : 0;
    options->convert_hdr_to_8bit = 1;
    struct heif_image *image = NULL;
    struct heif_error error =
        heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options);
    heif_decoding_options_free(options);
    int result = 0;
    if (error.code != heif_error_Ok) {
        result = fail(error.message, message, message_size);
    } else {
        int source_stride = 0;
        const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &source_stride);
        if (!plane || heif_image_get_width(image, heif_channel_interleaved) != width ||
            heif_image_get_height(image, heif_channel_interleaved) != height || source_stride < width * 3) {
            result = fail("the decoded picture is not the size its header gave", message, message_size);
        } else {
            CPixelKernels_orient(plane, (size_t)source_stride, width, height, turn ? turn : 1, pixels, stride);
        }
    }
    if (image) heif_image_release(image);
    close_primary(context, handle);
    return result;
}

int CHEIFBridge_read_thumbnail_size(const uint8_t *data, size_t size, int *width, int *height, char *message,
                                    size_t message_size) {
    *width = 0;
    *height = 0;
    struct heif_context *context;
    struct heif_image_handle *handle;
    if (open_primary(data, size, &context, &handle, message, message_size) != 0) return -1;
    heif_item_id ids[8];
    int count = heif_image_handle_get_list_of_thumbnail_IDs(handle, ids, 8);
    for (int i = 0; i < count; i++) {
        struct heif_image_handle *thumbnail = NULL;
        struct heif_error error = heif_image_handle_get_thumbnail(handle, ids[i], &thumbnail);
        if (error.code != heif_error_Ok || !thumbnail) continue;
        int w = heif_image_handle_get_width(thumbnail), h = heif_image_handle_get_height(thumbnail);
        if ((long)w * h > (long)*width * *height) {
            *width = w;
            *height = h;
        }
        heif_image_handle_release(thumbnail);
    }
    close_primary(context, handle);
    return 0;
}

static int hevc_is_420_8bit(const uint8_t *data, size_t size);

struct CHEIFBridge_planes {
    struct heif_context *context;
    struct heif_image_handle *handle;
    struct heif_image *image;
    const uint8_t *y, *cb, *cr;
    int y_stride, cb_stride, cr_stride;
    int width;
    int r_cr, g_cb, g_cr, b_cb; // libheif's 8.8 fixed-point coefficients
};

/// Kr and Kb of the matrix coefficients of H.273 (table 4) libheif 1.15 knows without the
/// primaries; 0 for the others (chromaticity-derived, YCgCo, ICtCp...: not taken here).
static int matrix_weights(int matrix, double *kr, double *kb) {
    switch (matrix) {
    case 1:
        *kr = 0.2126, *kb = 0.0722;
        return 1; // BT.709
    case 2:
    case 5:
    case 6:
        *kr = 0.299, *kb = 0.114;
        return 1; // unspecified (libheif's default), BT.601
    case 4:
        *kr = 0.30, *kb = 0.11;
        return 1; // FCC
    case 7:
        *kr = 0.212, *kb = 0.087;
        return 1; // SMPTE 240M
    case 9:
    case 10:
        *kr = 0.2627, *kb = 0.0593;
        return 1; // BT.2020
    default:
        return 0;
    }
}

static long round_half_away(double value) { return value < 0 ? -(long)(0.5 - value) : (long)(value + 0.5); }

CHEIFBridge_planes *CHEIFBridge_planes_decode(const uint8_t *data, size_t size, int *width, int *height,
                                              int *unsupported, char *message, size_t message_size) {
    *unsupported = 0;
    if (!hevc_is_420_8bit(data, size)) {
        // Asked for 4:2:0 planes, libheif would subsample a 4:4:4 picture's chroma: not ours to lose.
        *unsupported = 1;
        fail("not 8-bit 4:2:0 HEVC", message, message_size);
        return NULL;
    }
    CHEIFBridge_planes *planes = calloc(1, sizeof(CHEIFBridge_planes));
    if (!planes) {
        fail("out of memory", message, message_size);
        return NULL;
    }
    if (open_primary(data, size, &planes->context, &planes->handle, message, message_size) != 0) {
        free(planes);
        return NULL;
    }
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) {
        fail("out of memory", message, message_size);
        CHEIFBridge_planes_free(planes);
        return NULL;
    }
    options->ignore_transformations = 1;
    // The decoder's own layout (checked above from the configuration boxes): no conversion.
    struct heif_error error =
        heif_decode_image(planes->handle, &planes->image, heif_colorspace_YCbCr, heif_chroma_420, options);
    heif_decoding_options_free(options);
    if (error.code != heif_error_Ok) {
        fail(error.message, message, message_size);
        CHEIFBridge_planes_free(planes);
        return NULL;
    }
    struct heif_image *image = planes->image;
    // libheif's nearest-neighbour 8-bit conversion takes full range only, and the matrices
    // above; without an nclx profile it uses BT.601.
    int matrix = 2, full_range = 1;
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_image_get_nclx_color_profile(image, &nclx).code == heif_error_Ok && nclx) {
        matrix = (int)nclx->matrix_coefficients;
        full_range = nclx->full_range_flag;
        heif_nclx_color_profile_free(nclx);
    }
    double kr = 0, kb = 0;
    planes->y = heif_image_get_plane_readonly(image, heif_channel_Y, &planes->y_stride);
    planes->cb = heif_image_get_plane_readonly(image, heif_channel_Cb, &planes->cb_stride);
    planes->cr = heif_image_get_plane_readonly(image, heif_channel_Cr, &planes->cr_stride);
    planes->width = heif_image_get_width(image, heif_channel_Y);
    int rows = heif_image_get_height(image, heif_channel_Y);
    if (heif_image_get_colorspace(image) != heif_colorspace_YCbCr ||
        heif_image_get_chroma_format(image) != heif_chroma_420 || !planes->y || !planes->cb || !planes->cr ||
        heif_image_get_bits_per_pixel_range(image, heif_channel_Y) != 8 ||
        heif_image_get_bits_per_pixel_range(image, heif_channel_Cb) != 8 ||
        heif_image_get_bits_per_pixel_range(image, heif_channel_Cr) != 8 || !full_range ||
        !matrix_weights(matrix, &kr, &kb) || planes->width <= 0 || rows <= 0 ||
        heif_image_get_width(image, heif_channel_Cb) < (planes->width + 1) / 2 ||
        heif_image_get_height(image, heif_channel_Cb) < (rows + 1) / 2 ||
        heif_image_get_width(image, heif_channel_Cr) < (planes->width + 1) / 2 ||
        heif_image_get_height(image, heif_channel_Cr) < (rows + 1) / 2) {
        *unsupported = 1;
        fail("not 8-bit full-range 4:2:0 YCbCr", message, message_size);
        CHEIFBridge_planes_free(planes);
        return NULL;
    }
    double kg = 1 - kr - kb;
    planes->r_cr = (int)round_half_away(256 * 2 * (1 - kr));
    planes->g_cb = (int)round_half_away(256 * -(2 * kb * (1 - kb) / kg));
    planes->g_cr = (int)round_half_away(256 * -(2 * kr * (1 - kr) / kg));
    planes->b_cb = (int)round_half_away(256 * 2 * (1 - kb));
    *width = planes->width;
    *height = rows;
    return planes;
}

static inline uint8_t clip_u8(int value) { return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value); }

void CHEIFBridge_planes_row(const CHEIFBridge_planes *planes, int y, uint8_t *rgb) {
    const uint8_t *luma = planes->y + (size_t)y * (size_t)planes->y_stride;
    const uint8_t *cb_row = planes->cb + (size_t)(y / 2) * (size_t)planes->cb_stride;
    const uint8_t *cr_row = planes->cr + (size_t)(y / 2) * (size_t)planes->cr_stride;
    for (int x = 0; x < planes->width; x++) {
        int yv = luma[x], cb = cb_row[x / 2] - 128, cr = cr_row[x / 2] - 128;
        rgb[3 * x] = clip_u8(yv + ((planes->r_cr * cr + 128) >> 8));
        rgb[3 * x + 1] = clip_u8(yv + ((planes->g_cb * cb + planes->g_cr * cr + 128) >> 8));
        rgb[3 * x + 2] = clip_u8(yv + ((planes->b_cb * cb + 128) >> 8));
    }
}

void CHEIFBridge_planes_free(CHEIFBridge_planes *planes) {
    if (!planes) return;
    if (planes->image) heif_image_release(planes->image);
    close_primary(planes->context, planes->handle);
    free(planes);
}

/// A box of the ISO base media file format: its type and its payload.
typedef struct {
    uint32_t type;
    const uint8_t *payload;
    size_t length;
} Box;

static uint32_t be32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

#define FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/// The next box in `*bytes` (`*left` long), which are advanced past it; 0 at the end or
/// when the box does not fit (every length is checked against what is left).
static int next_box(const uint8_t **bytes, size_t *left, Box *box) {
    if (*left < 8) return 0;
    uint64_t size = be32(*bytes);
    size_t header = 8;
    if (size == 1) {
        if (*left < 16) return 0;
        size = (uint64_t)be32(*bytes + 8) << 32 | be32(*bytes + 12);
        header = 16;
    } else if (size == 0) {
        size = *left;
    }
    if (size < header || size > *left) return 0;
    box->type = be32(*bytes + 4);
    box->payload = *bytes + header;
    box->length = (size_t)size - header;
    *bytes += size;
    *left -= (size_t)size;
    return 1;
}

/// The first child of `parent`'s payload (after `skip` bytes: 4 for a full box) of `type`.
static int find_child(const Box *parent, size_t skip, uint32_t type, Box *found) {
    if (parent->length < skip) return 0;
    const uint8_t *bytes = parent->payload + skip;
    size_t left = parent->length - skip;
    Box box;
    while (next_box(&bytes, &left, &box))
        if (box.type == type) {
            *found = box;
            return 1;
        }
    return 0;
}

enum { max_properties = 1024 };

int CHEIFBridge_read_turn(const uint8_t *data, size_t size) {
    Box file = {0, data, size}, meta, pitm, iprp, ipco;
    if (!find_child(&file, 0, FOURCC('m', 'e', 't', 'a'), &meta) ||
        !find_child(&meta, 4, FOURCC('p', 'i', 't', 'm'), &pitm) ||
        !find_child(&meta, 4, FOURCC('i', 'p', 'r', 'p'), &iprp) ||
        !find_child(&iprp, 0, FOURCC('i', 'p', 'c', 'o'), &ipco))
        return 0;
    // The primary item: pitm is a full box, its id 16 bits in version 0, 32 otherwise.
    if (pitm.length < 6) return 0;
    uint32_t primary = pitm.payload[0] == 0 ? (uint32_t)pitm.payload[4] << 8 | pitm.payload[5]
                                            : (pitm.length < 8 ? 0 : be32(pitm.payload + 4));
    if (primary == 0) return 0;
    // The property boxes, numbered from 1 in ipco's order.
    uint32_t types[max_properties];
    uint8_t first_bytes[max_properties];
    int count = 0;
    const uint8_t *bytes = ipco.payload;
    size_t left = ipco.length;
    Box property;
    while (count < max_properties && next_box(&bytes, &left, &property)) {
        types[count] = property.type;
        first_bytes[count] = property.length > 0 ? property.payload[0] : 0;
        count++;
    }
    // Every ipma box's associations of the primary item, in order: rotations only.
    int quarters = 0, found = 0;
    bytes = iprp.payload;
    left = iprp.length;
    Box ipma;
    while (next_box(&bytes, &left, &ipma)) {
        if (ipma.type != FOURCC('i', 'p', 'm', 'a')) continue;
        if (ipma.length < 8) return 0;
        int version = ipma.payload[0], wide_index = ipma.payload[3] & 1;
        const uint8_t *at = ipma.payload + 4, *end = ipma.payload + ipma.length;
        uint32_t entries = be32(at);
        at += 4;
        for (uint32_t entry = 0; entry < entries; entry++) {
            size_t id_size = version < 1 ? 2 : 4;
            if ((size_t)(end - at) < id_size + 1) return 0;
            uint32_t item = version < 1 ? (uint32_t)at[0] << 8 | at[1] : be32(at);
            at += id_size;
            int associations = *at++;
            size_t needed = (size_t)associations * (wide_index ? 2 : 1);
            if ((size_t)(end - at) < needed) return 0;
            for (int index = 0; index < associations; index++) {
                int number = wide_index ? ((at[0] & 0x7F) << 8 | at[1]) : (at[0] & 0x7F);
                at += wide_index ? 2 : 1;
                if (item != primary || number == 0) continue;
                if (number > count) return 0;
                uint32_t type = types[number - 1];
                if (type == FOURCC('i', 'r', 'o', 't')) {
                    quarters = (quarters + (first_bytes[number - 1] & 3)) % 4;
                } else if (type == FOURCC('i', 'm', 'i', 'r') || type == FOURCC('c', 'l', 'a', 'p')) {
                    return 0;
                }
                found = 1;
            }
        }
    }
    if (!found) return 0;
    // irot turns anticlockwise by quarters; the EXIF orientation names what makes it upright.
    static const int orientation[4] = {1, 8, 3, 6};
    return orientation[quarters];
}

/// Whether the file's HEVC configurations (every `hvcC` property: the tiles', the
/// thumbnail's, an iPhone's monochrome gain map's) are 8-bit 4:2:0 or monochrome and none is
/// AV1's, so libheif's 4:2:0 planes of the primary image lose no chroma the decoder made. 0
/// when there is none (AVIF) or the boxes cannot be read. (libheif 1.15 cannot say a stream's
/// chroma before decoding, and asked for an undefined layout it returns RGB.)
static int hevc_is_420_8bit(const uint8_t *data, size_t size) {
    Box file = {0, data, size}, meta, iprp, ipco;
    if (!find_child(&file, 0, FOURCC('m', 'e', 't', 'a'), &meta) ||
        !find_child(&meta, 4, FOURCC('i', 'p', 'r', 'p'), &iprp) ||
        !find_child(&iprp, 0, FOURCC('i', 'p', 'c', 'o'), &ipco))
        return 0;
    const uint8_t *bytes = ipco.payload;
    size_t left = ipco.length;
    Box property;
    int configurations = 0;
    while (next_box(&bytes, &left, &property)) {
        // An AV1 picture (an AVIF, perhaps with an HEVC thumbnail) would be converted to 4:2:0.
        if (property.type == FOURCC('a', 'v', '1', 'C')) return 0;
        if (property.type != FOURCC('h', 'v', 'c', 'C')) continue;
        // HEVCDecoderConfigurationRecord: chromaFormat in byte 16, the bit depths in 17 and 18.
        if (property.length < 19 || (property.payload[16] & 3) > 1 || (property.payload[17] & 7) != 0 ||
            (property.payload[18] & 7) != 0)
            return 0;
        configurations++;
    }
    return configurations > 0;
}
