/* Times one HEIC decode through libheif 1.15 (issue 20, part 2: where an iPhone HEIC's time
 * goes), to choose the fast path's HEIC decoder:
 *   heic_decode FILE DECODER THREADS TRANSFORMS OUTPUT
 *     DECODER     de265 (libheif's own plugin) or avcodec (the plugin below: libavcodec's
 *                 HEVC decoder, one context per grid tile, registered above libde265)
 *     THREADS     libheif's tile threads (heif_context_set_max_decoding_threads)
 *     TRANSFORMS  apply (libheif rotates/mirrors as irot/imir say) or ignore
 *     OUTPUT      rgb (libheif's YCbCr->RGB) or yuv (the decoder's planes)
 * Prints the milliseconds from reading the file to the decoded picture, and one pixel so
 * the decoders can be compared. A measuring tool only: not part of cardrender. */
#include <libavcodec/avcodec.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tile {
    uint8_t *data;
    size_t size, capacity;
};

static const struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static struct heif_error failure(const char *message) {
    struct heif_error error = {heif_error_Decoder_plugin_error, heif_suberror_Unspecified, message};
    return error;
}
static const char *plugin_name(void) { return "libavcodec HEVC (measurement)"; }
static void plugin_nothing(void) {}
static int plugin_supports(enum heif_compression_format format) { return format == heif_compression_HEVC ? 200 : 0; }
static struct heif_error plugin_new(void **decoder) {
    *decoder = calloc(1, sizeof(struct tile));
    return *decoder ? ok : failure("out of memory");
}
static void plugin_free(void *decoder) {
    free(((struct tile *)decoder)->data);
    free(decoder);
}

/* libheif pushes NAL units with 4-byte big-endian sizes; libavcodec's parser-less decode
 * wants Annex B start codes. */
static struct heif_error plugin_push(void *decoder, const void *data, size_t size) {
    struct tile *tile = decoder;
    const uint8_t *bytes = data;
    size_t at = 0;
    while (at + 4 <= size) {
        size_t length = ((size_t)bytes[at] << 24) | ((size_t)bytes[at + 1] << 16) | ((size_t)bytes[at + 2] << 8) | bytes[at + 3];
        at += 4;
        if (length > size - at) return failure("NAL unit past the end of the data");
        size_t needed = tile->size + 4 + length + AV_INPUT_BUFFER_PADDING_SIZE;
        if (needed > tile->capacity) {
            uint8_t *grown = realloc(tile->data, needed * 2);
            if (!grown) return failure("out of memory");
            tile->data = grown;
            tile->capacity = needed * 2;
        }
        memcpy(tile->data + tile->size, "\0\0\0\1", 4);
        memcpy(tile->data + tile->size + 4, bytes + at, length);
        tile->size += 4 + length;
        at += length;
    }
    return ok;
}

static struct heif_error plugin_decode(void *decoder, struct heif_image **out) {
    struct tile *tile = decoder;
    if (!tile->data) return failure("no data");
    const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_HEVC);
    AVCodecContext *context = avcodec_alloc_context3(codec);
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    struct heif_error result = ok;
    context->thread_count = 1;
    memset(tile->data + tile->size, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    packet->data = tile->data;
    packet->size = (int)tile->size;
    if (avcodec_open2(context, codec, NULL) < 0 || avcodec_send_packet(context, packet) < 0 ||
        avcodec_send_packet(context, NULL) < 0 || avcodec_receive_frame(context, frame) < 0 ||
        (frame->format != AV_PIX_FMT_YUV420P && frame->format != AV_PIX_FMT_YUVJ420P)) {
        result = failure("libavcodec could not decode the tile (or it is not 8-bit 4:2:0)");
    } else {
        struct heif_image *image = NULL;
        heif_image_create(frame->width, frame->height, heif_colorspace_YCbCr, heif_chroma_420, &image);
        const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
        for (int plane = 0; plane < 3; plane++) {
            int width = plane ? (frame->width + 1) / 2 : frame->width;
            int height = plane ? (frame->height + 1) / 2 : frame->height;
            heif_image_add_plane(image, channels[plane], width, height, 8);
            int stride;
            uint8_t *target = heif_image_get_plane(image, channels[plane], &stride);
            for (int y = 0; y < height; y++)
                memcpy(target + (size_t)y * stride, frame->data[plane] + (size_t)y * frame->linesize[plane], width);
        }
        *out = image;
    }
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&context);
    return result;
}
static void plugin_strict(void *decoder, int flag) { (void)decoder, (void)flag; }

static const struct heif_decoder_plugin avcodec_plugin = {
    .plugin_api_version = 3, .get_plugin_name = plugin_name, .init_plugin = plugin_nothing,
    .deinit_plugin = plugin_nothing, .does_support_format = plugin_supports, .new_decoder = plugin_new,
    .free_decoder = plugin_free, .push_data = plugin_push, .decode_image = plugin_decode,
    .set_strict_decoding = plugin_strict, .id_name = "avcodec-measurement"};

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: heic_decode FILE de265|avcodec THREADS apply|ignore rgb|yuv\n");
        return 64;
    }
    if (strcmp(argv[2], "avcodec") == 0) heif_register_decoder_plugin(&avcodec_plugin);
    int rgb = strcmp(argv[5], "rgb") == 0;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    struct heif_context *context = heif_context_alloc();
    heif_context_set_max_decoding_threads(context, atoi(argv[3]));
    struct heif_error error = heif_context_read_from_file(context, argv[1], NULL);
    struct heif_image_handle *handle = NULL;
    if (!error.code) error = heif_context_get_primary_image_handle(context, &handle);
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    options->ignore_transformations = strcmp(argv[4], "ignore") == 0;
    struct heif_image *image = NULL;
    if (!error.code)
        error = heif_decode_image(handle, &image, rgb ? heif_colorspace_RGB : heif_colorspace_YCbCr,
                                  rgb ? heif_chroma_interleaved_RGB : heif_chroma_420, options);
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (error.code) {
        fprintf(stderr, "heic_decode: %s\n", error.message);
        return 1;
    }
    enum heif_channel channel = rgb ? heif_channel_interleaved : heif_channel_Y;
    int stride = 0;
    const uint8_t *pixels = heif_image_get_plane_readonly(image, channel, &stride);
    printf("%.1f ms  %dx%d  first value %d\n", (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6,
           heif_image_get_width(image, channel), heif_image_get_height(image, channel), pixels ? pixels[0] : -1);
    return 0;
}
