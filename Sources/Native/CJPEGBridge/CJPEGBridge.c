// JPEG through libjpeg-turbo with errors that come back: see CJPEGBridge.h.
#include "CJPEGBridge.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/// libjpeg's error manager, extended with where to jump and what happened.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    int strict;
    int warnings;
    char *message;
    size_t message_size;
} bridge_error;

static void keep_message(j_common_ptr cinfo) {
    bridge_error *error = (bridge_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (error->message && error->message_size > 0) snprintf(error->message, error->message_size, "%s", text);
}

/// Replaces libjpeg's exit(): jump back into the bridge function.
static void bridge_error_exit(j_common_ptr cinfo) {
    keep_message(cinfo);
    longjmp(((bridge_error *)cinfo->err)->jump, 1);
}

/// Warnings (level -1): counted; fatal when strict. Trace messages (level >= 0): ignored.
static void bridge_emit_message(j_common_ptr cinfo, int level) {
    bridge_error *error = (bridge_error *)cinfo->err;
    if (level >= 0) return;
    error->warnings += 1;
    if (error->warnings == 1) keep_message(cinfo);
    if (error->strict) longjmp(error->jump, 1);
}

/// Never print: the caller reports.
static void bridge_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void install(bridge_error *error, int strict, char *message, size_t message_size) {
    jpeg_std_error(&error->base);
    error->base.error_exit = bridge_error_exit;
    error->base.emit_message = bridge_emit_message;
    error->base.output_message = bridge_output_message;
    error->strict = strict;
    error->warnings = 0;
    error->message = message;
    error->message_size = message_size;
    if (message && message_size > 0) message[0] = 0;
}

static unsigned read16(const uint8_t *p, int big) { return big ? (p[0] << 8 | p[1]) : (p[1] << 8 | p[0]); }
static uint32_t read32(const uint8_t *p, int big) {
    return big ? ((uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3])
               : ((uint32_t)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0]);
}

/// The orientation tag (0x0112) of IFD0 in an APP1 "Exif" segment, 1 when absent or malformed.
static int exif_orientation(const uint8_t *segment, unsigned length) {
    if (length < 14 || memcmp(segment, "Exif\0\0", 6) != 0) return 1;
    const uint8_t *tiff = segment + 6;
    unsigned size = length - 6;
    int big;
    if (tiff[0] == 'M' && tiff[1] == 'M')
        big = 1;
    else if (tiff[0] == 'I' && tiff[1] == 'I')
        big = 0;
    else
        return 1;
    uint32_t ifd = read32(tiff + 4, big);
    if (ifd > size - 2) return 1;
    unsigned count = read16(tiff + ifd, big);
    for (unsigned i = 0; i < count; i++) {
        uint32_t entry = ifd + 2 + 12 * i;
        if (entry + 12 > size) return 1;
        if (read16(tiff + entry, big) == 0x0112) {
            // The standard stores it as SHORT (type 3); some writers use LONG (4) or the
            // signed forms (8, 9). Read each by its type, in the file's byte order, as
            // libvips (libexif) does, so the two paths turn such a photo alike. Any other
            // type is malformed: no turn.
            unsigned type = read16(tiff + entry + 2, big);
            uint32_t value;
            if (type == 3 || type == 8)
                value = read16(tiff + entry + 8, big);
            else if (type == 4 || type == 9)
                value = read32(tiff + entry + 8, big);
            else
                return 1;
            return value >= 1 && value <= 8 ? (int)value : 1;
        }
    }
    return 1;
}

/// Whether an ICC profile's description ('desc' tag, v2 text or v4 'mluc') names sRGB.
static int icc_says_srgb(const uint8_t *icc, unsigned size) {
    if (size < 132) return 0;
    uint32_t tags = read32(icc + 128, 1);
    for (uint32_t i = 0; i < tags && 132 + 12 * (i + 1) <= size; i++) {
        const uint8_t *tag = icc + 132 + 12 * i;
        if (memcmp(tag, "desc", 4) != 0) continue;
        uint32_t offset = read32(tag + 4, 1), length = read32(tag + 8, 1);
        if (offset > size || length > size - offset || length < 12) return 0;
        const uint8_t *text = icc + offset;
        // Search the tag's bytes for "sRGB", in ASCII (v2 'desc') or UTF-16BE (v4 'mluc').
        for (uint32_t j = 0; j + 4 <= length; j++)
            if (memcmp(text + j, "sRGB", 4) == 0) return 1;
        for (uint32_t j = 0; j + 8 <= length; j++)
            if (memcmp(text + j, "\0s\0R\0G\0B", 8) == 0) return 1;
        return 0;
    }
    return 0;
}

/// Reads the header of `size` bytes at `data` into `info`; the embedded ICC profile is
/// handed to the caller in `*icc_out` when it is not NULL (else freed here).
static int read_header(const uint8_t *data, size_t size, CJPEGBridge_info *info, uint8_t **icc_out,
                       unsigned *icc_size_out, char *message, size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    bridge_error error;
    install(&error, 0, message, message_size);
    cinfo.err = &error.base;
    JOCTET *icc = NULL;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(icc);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    memset(info, 0, sizeof(*info));
    info->width = (int)cinfo.image_width;
    info->height = (int)cinfo.image_height;
    info->components = cinfo.num_components;
    info->color_space = (int)cinfo.jpeg_color_space;
    info->progressive = jpeg_has_multiple_scans(&cinfo) ? 1 : 0;
    info->orientation = 1;
    for (jpeg_saved_marker_ptr marker = cinfo.marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1) {
            int orientation = exif_orientation(marker->data, marker->data_length);
            if (orientation != 1) {
                info->orientation = orientation;
                break;
            }
        }
    }
    unsigned icc_size = 0;
    if (jpeg_read_icc_profile(&cinfo, &icc, &icc_size)) {
        info->has_icc = 1;
        info->icc_is_srgb = icc_says_srgb(icc, icc_size);
        info->icc_is_rgb = icc_size >= 20 && memcmp(icc + 16, "RGB ", 4) == 0;
    }
    jpeg_destroy_decompress(&cinfo);
    if (icc_out) {
        *icc_out = icc;
        *icc_size_out = icc ? icc_size : 0;
    } else {
        free(icc);
    }
    return 0;
}

int CJPEGBridge_read_info(const uint8_t *data, size_t size, CJPEGBridge_info *info, char *message,
                          size_t message_size) {
    return read_header(data, size, info, NULL, NULL, message, message_size);
}

int CJPEGBridge_read_icc(const uint8_t *data, size_t size, uint8_t **icc, unsigned *icc_size, char *message,
                         size_t message_size) {
    CJPEGBridge_info info;
    *icc = NULL;
    *icc_size = 0;
    return read_header(data, size, &info, icc, icc_size, message, message_size);
}

/// A destination that owns its buffer: libjpeg-turbo's memory destination frees its first
/// buffer when it grows but reports the live one only at the end, so an error after a
/// growth left the caller holding a freed pointer (double free) and leaked the live one.
/// Here the live buffer is always in `buffer`, grown by realloc, freed once by the caller.
typedef struct {
    struct jpeg_destination_mgr pub;
    unsigned char *buffer;
    size_t size;
    size_t limit; // 0: none
} growing_destination;

static void growing_init(j_compress_ptr cinfo) {
    growing_destination *dest = (growing_destination *)cinfo->dest;
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->size;
}

static boolean growing_empty(j_compress_ptr cinfo) {
    // Called with the whole buffer full.
    growing_destination *dest = (growing_destination *)cinfo->dest;
    size_t used = dest->size, next = dest->size * 2;
    if (dest->limit && next > dest->limit) next = dest->limit;
    unsigned char *grown = next > used ? realloc(dest->buffer, next) : NULL;
    if (!grown) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 20);
    dest->buffer = grown;
    dest->size = next;
    dest->pub.next_output_byte = grown + used;
    dest->pub.free_in_buffer = next - used;
    return TRUE;
}

static void growing_term(j_compress_ptr cinfo) { (void)cinfo; }

// MARK: row by row

/// Each function below re-arms the jump at its entry: a longjmp may only land in a frame
/// still running, so the one armed by an earlier call that returned is never used.
struct CJPEGBridge_decoder {
    struct jpeg_decompress_struct cinfo;
    bridge_error error;
    char message[JMSG_LENGTH_MAX];
    int created;
};

CJPEGBridge_decoder *CJPEGBridge_decoder_open(const uint8_t *data, size_t size, int scale_denom, int strict, int *width,
                                              int *height, int *failed) {
    CJPEGBridge_decoder *decoder = calloc(1, sizeof *decoder);
    *failed = 0;
    if (!decoder) return NULL;
    install(&decoder->error, strict, decoder->message, sizeof decoder->message);
    decoder->cinfo.err = &decoder->error.base;
    if (setjmp(decoder->error.jump)) {
        *failed = 1;
        return decoder;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->created = 1;
    jpeg_mem_src(&decoder->cinfo, data, (unsigned long)size);
    jpeg_read_header(&decoder->cinfo, TRUE);
    decoder->cinfo.scale_num = 1;
    decoder->cinfo.scale_denom = (unsigned)scale_denom;
    decoder->cinfo.out_color_space = JCS_RGB;
    decoder->cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&decoder->cinfo);
    *width = (int)decoder->cinfo.output_width;
    *height = (int)decoder->cinfo.output_height;
    return decoder;
}

int CJPEGBridge_decoder_read(CJPEGBridge_decoder *decoder, uint8_t *rows, size_t stride, int count) {
    if (setjmp(decoder->error.jump)) return -1;
    int done = 0;
    while (done < count && decoder->cinfo.output_scanline < decoder->cinfo.output_height) {
        JSAMPROW row = rows + stride * (size_t)done;
        JDIMENSION got = jpeg_read_scanlines(&decoder->cinfo, &row, 1);
        if (got == 0) break;
        done += (int)got;
    }
    return done;
}

int CJPEGBridge_decoder_skip(CJPEGBridge_decoder *decoder, int count) {
    if (setjmp(decoder->error.jump)) return -1;
    JDIMENSION left = decoder->cinfo.output_height - decoder->cinfo.output_scanline;
    if (count > 0) jpeg_skip_scanlines(&decoder->cinfo, (JDIMENSION)count < left ? (JDIMENSION)count : left);
    return 0;
}

int CJPEGBridge_decoder_finish(CJPEGBridge_decoder *decoder, int *warnings) {
    *warnings = decoder->error.warnings;
    if (setjmp(decoder->error.jump)) {
        *warnings = decoder->error.warnings;
        return -1;
    }
    if (decoder->error.strict) {
        JDIMENSION left = decoder->cinfo.output_height - decoder->cinfo.output_scanline;
        if (left > 0) jpeg_skip_scanlines(&decoder->cinfo, left);
        jpeg_finish_decompress(&decoder->cinfo);
    } else {
        jpeg_abort_decompress(&decoder->cinfo);
    }
    *warnings = decoder->error.warnings;
    return 0;
}

const char *CJPEGBridge_decoder_message(const CJPEGBridge_decoder *decoder) { return decoder->message; }

void CJPEGBridge_decoder_close(CJPEGBridge_decoder *decoder) {
    if (!decoder) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

struct CJPEGBridge_encoder {
    struct jpeg_compress_struct cinfo;
    bridge_error error;
    growing_destination dest;
    char message[JMSG_LENGTH_MAX];
    int created;
};

/// An encoder of `components` (3: RGB, 4: CMYK) per pixel; see CJPEGBridge_encoder_open.
static CJPEGBridge_encoder *open_encoder(int width, int height, int components, int quality, int full_chroma,
                                         int optimize, int dpi, size_t limit, int *failed) {
    CJPEGBridge_encoder *encoder = calloc(1, sizeof *encoder);
    *failed = 0;
    if (!encoder) return NULL;
    install(&encoder->error, 0, encoder->message, sizeof encoder->message);
    encoder->cinfo.err = &encoder->error.base;
    growing_destination *dest = &encoder->dest;
    dest->pub.init_destination = growing_init;
    dest->pub.empty_output_buffer = growing_empty;
    dest->pub.term_destination = growing_term;
    dest->limit = limit;
    dest->size = (size_t)width * (size_t)height * (size_t)components / 10;
    if (dest->size < 16384) dest->size = 16384;
    if (limit && dest->size > limit) dest->size = limit;
    dest->buffer = malloc(dest->size);
    if (!dest->buffer) {
        snprintf(encoder->message, sizeof encoder->message, "out of memory for the JPEG output");
        *failed = 1;
        return encoder;
    }
    if (setjmp(encoder->error.jump)) {
        *failed = 1;
        return encoder;
    }
    jpeg_create_compress(&encoder->cinfo);
    encoder->created = 1;
    j_compress_ptr cinfo = &encoder->cinfo;
    cinfo->dest = &dest->pub;
    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->input_components = components;
    cinfo->in_color_space = components == 4 ? JCS_CMYK : JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    if (components == 4) {
        // Four planes at full resolution, no colour transform; libjpeg writes the Adobe
        // marker that says so (and no JFIF header, which is for YCbCr and grey only).
        jpeg_set_colorspace(cinfo, JCS_CMYK);
    } else {
        int sampling = full_chroma ? 1 : 2;
        cinfo->comp_info[0].h_samp_factor = sampling;
        cinfo->comp_info[0].v_samp_factor = sampling;
        cinfo->write_JFIF_header = TRUE;
    }
    cinfo->optimize_coding = optimize ? TRUE : FALSE;
    cinfo->dct_method = JDCT_ISLOW;
    if (dpi > 0) {
        cinfo->density_unit = 1;
        cinfo->X_density = (UINT16)dpi;
        cinfo->Y_density = (UINT16)dpi;
    }
    jpeg_start_compress(cinfo, TRUE);
    return encoder;
}

CJPEGBridge_encoder *CJPEGBridge_encoder_open(int width, int height, int quality, int full_chroma, int optimize,
                                              int dpi, size_t limit, int *failed) {
    return open_encoder(width, height, 3, quality, full_chroma, optimize, dpi, limit, failed);
}

int CJPEGBridge_encoder_write(CJPEGBridge_encoder *encoder, const uint8_t *rows, size_t stride, int count) {
    if (setjmp(encoder->error.jump)) return -1;
    for (int done = 0; done < count && encoder->cinfo.next_scanline < encoder->cinfo.image_height; done++) {
        JSAMPROW row = (JSAMPROW)(rows + stride * (size_t)done);
        jpeg_write_scanlines(&encoder->cinfo, &row, 1);
    }
    return 0;
}

int CJPEGBridge_encoder_finish(CJPEGBridge_encoder *encoder, uint8_t **output, size_t *output_size) {
    *output = NULL;
    *output_size = 0;
    if (setjmp(encoder->error.jump)) return -1;
    jpeg_finish_compress(&encoder->cinfo);
    *output_size = encoder->dest.size - encoder->dest.pub.free_in_buffer;
    *output = encoder->dest.buffer;
    encoder->dest.buffer = NULL; // handed over
    return 0;
}

const char *CJPEGBridge_encoder_message(const CJPEGBridge_encoder *encoder) { return encoder->message; }

void CJPEGBridge_encoder_close(CJPEGBridge_encoder *encoder) {
    if (!encoder) return;
    if (encoder->created) jpeg_destroy_compress(&encoder->cinfo);
    free(encoder->dest.buffer);
    free(encoder);
}

// MARK: in one call, over the row-by-row objects

int CJPEGBridge_decode_rgb(const uint8_t *data, size_t size, int scale_denom, int strict, int first_row, int row_count,
                           uint8_t **pixels, int *width, int *height, int *warnings, char *message,
                           size_t message_size) {
    *pixels = NULL;
    *warnings = 0;
    if (message_size > 0) message[0] = 0;
    int out_width = 0, full_height = 0, failed = 0;
    CJPEGBridge_decoder *decoder =
        CJPEGBridge_decoder_open(data, size, scale_denom, strict, &out_width, &full_height, &failed);
    if (!decoder) {
        snprintf(message, message_size, "out of memory for a JPEG decoder");
        return -1;
    }
    uint8_t *buffer = NULL;
    int status = failed ? -1 : 0;
    int rows = 0;
    if (status == 0) {
        if (first_row < 0 || first_row > full_height) first_row = full_height;
        rows = row_count <= 0 ? full_height - first_row : row_count;
        if (first_row + rows > full_height) rows = full_height - first_row;
        size_t stride = (size_t)out_width * 3;
        buffer = malloc(stride * (size_t)(rows > 0 ? rows : 1));
        if (!buffer) {
            snprintf(message, message_size, "out of memory for %d x %d pixels", out_width, rows);
            CJPEGBridge_decoder_close(decoder);
            return -1;
        }
        if (first_row > 0) status = CJPEGBridge_decoder_skip(decoder, first_row);
        if (status == 0 && CJPEGBridge_decoder_read(decoder, buffer, stride, rows) < 0) status = -1;
        if (status == 0) status = CJPEGBridge_decoder_finish(decoder, warnings);
    }
    if (status != 0) *warnings = decoder->error.warnings;
    snprintf(message, message_size, "%s", decoder->message);
    CJPEGBridge_decoder_close(decoder);
    if (status != 0) {
        free(buffer);
        return -1;
    }
    *pixels = buffer;
    *width = out_width;
    *height = rows;
    return 0;
}

int CJPEGBridge_encode_rgb(const uint8_t *pixels, int width, int height, size_t stride, int quality, int full_chroma,
                           int optimize, int dpi, size_t limit, uint8_t **output, size_t *output_size, char *message,
                           size_t message_size) {
    *output = NULL;
    *output_size = 0;
    if (message_size > 0) message[0] = 0;
    int failed = 0;
    CJPEGBridge_encoder *encoder =
        CJPEGBridge_encoder_open(width, height, quality, full_chroma, optimize, dpi, limit, &failed);
    if (!encoder) {
        snprintf(message, message_size, "out of memory for a JPEG encoder");
        return -1;
    }
    int status = failed ? -1 : CJPEGBridge_encoder_write(encoder, pixels, stride, height);
    if (status == 0) status = CJPEGBridge_encoder_finish(encoder, output, output_size);
    if (status != 0) snprintf(message, message_size, "%s", encoder->message);
    CJPEGBridge_encoder_close(encoder);
    return status;
}

int CJPEGBridge_encode_cmyk(const uint8_t *pixels, int width, int height, int quality, uint8_t **output,
                            size_t *output_size, char *message, size_t message_size) {
    *output = NULL;
    *output_size = 0;
    if (message_size > 0) message[0] = 0;
    int failed = 0;
    CJPEGBridge_encoder *encoder = open_encoder(width, height, 4, quality, 1, 0, 0, 0, &failed);
    size_t stride = (size_t)width * 4;
    uint8_t *row = malloc(stride ? stride : 1);
    if (!encoder || !row) {
        CJPEGBridge_encoder_close(encoder);
        free(row);
        snprintf(message, message_size, "out of memory for a JPEG encoder");
        return -1;
    }
    int status = failed ? -1 : 0;
    for (int y = 0; status == 0 && y < height; y++) {
        // Adobe's convention for CMYK JPEGs: 255 is no ink.
        const uint8_t *in = pixels + stride * (size_t)y;
        for (size_t index = 0; index < stride; index++)
            row[index] = (uint8_t)(255 - in[index]);
        status = CJPEGBridge_encoder_write(encoder, row, stride, 1);
    }
    free(row);
    if (status == 0) status = CJPEGBridge_encoder_finish(encoder, output, output_size);
    if (status != 0) snprintf(message, message_size, "%s", encoder->message);
    CJPEGBridge_encoder_close(encoder);
    return status;
}

int CJPEGBridge_decode_cmyk(const uint8_t *data, size_t size, int scale_denom, size_t max_pixels, uint8_t **pixels,
                            int *width, int *height, char *message, size_t message_size) {
    *pixels = NULL;
    *width = *height = 0;
    struct jpeg_decompress_struct cinfo;
    bridge_error error;
    install(&error, 1, message, message_size);
    cinfo.err = &error.base;
    // volatile: assigned between setjmp and a longjmp that may return to it.
    uint8_t *volatile buffer = NULL;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.num_components != 4) {
        snprintf(message, message_size, "a %d-component JPEG, not CMYK", cinfo.num_components);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    if ((size_t)cinfo.image_width * cinfo.image_height > max_pixels) {
        snprintf(message, message_size, "%u x %u pixels, over the limit", cinfo.image_width, cinfo.image_height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    cinfo.out_color_space = JCS_CMYK; // YCCK is turned back into CMYK by libjpeg
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)(scale_denom >= 1 && scale_denom <= 8 ? scale_denom : 1);
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 4;
    buffer = malloc(stride * cinfo.output_height);
    if (!buffer) {
        snprintf(message, message_size, "out of memory for %u x %u pixels", cinfo.output_width, cinfo.output_height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = buffer + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    *pixels = buffer;
    return 0;
}
