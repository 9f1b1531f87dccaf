// An HEIF photo's primary image through libheif; see CHEIFBridge.h.
#include "CHEIFBridge.h"

#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CSharedLibraries.h"

/// Copies libheif's message (or `fallback`) into the caller's buffer; returns -1.
static int fail(const char *text, char *message, size_t message_size) {
    if (message && message_size) snprintf(message, message_size, "%s", text && *text ? text : "libheif failed");
    return -1;
}

int CHEIFBridge_available(char *message, size_t message_size) {
    const char *error = NULL;
    // No heif_init: libvips's HEIF module, which shares this libheif, does not call it either
    // (libheif asks that the two are not mixed), and Debian's decoders are built in.
    if (CSharedLibraries_load(CSharedLibraries_heif, &error) != 0) return fail(error, message, message_size);
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
        heif_context_free(*context);
        *context = NULL;
        return fail(error.message, message, message_size);
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

int CHEIFBridge_decode(const uint8_t *data, size_t size, uint8_t *pixels, int width, int height, size_t stride,
                       char *message, size_t message_size) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    if (open_primary(data, size, &context, &handle, message, message_size) != 0) return -1;
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) {
        close_primary(context, handle);
        return fail("out of memory", message, message_size);
    }
    options->ignore_transformations = 0;  // rotated and mirrored as `irot`/`imir` say, as libvips gets it
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
            for (int y = 0; y < height; y++)
                memcpy(pixels + (size_t)y * stride, plane + (size_t)y * source_stride, (size_t)width * 3);
        }
    }
    if (image) heif_image_release(image);
    close_primary(context, handle);
    return result;
}
