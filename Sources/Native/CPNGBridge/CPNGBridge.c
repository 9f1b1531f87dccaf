// libpng with errors that return: see CPNGBridge.h.
#include "CPNGBridge.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The growing output buffer and the error text, reached from libpng's callbacks.
typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    char *message;
    size_t message_size;
    char warning[160]; ///< libpng's first warning, which often says why the error came
} writer;

static void on_error(png_structp png, png_const_charp text) {
    writer *state = png_get_error_ptr(png);
    if (state->warning[0])
        snprintf(state->message, state->message_size, "%s (%s)", text, state->warning);
    else
        snprintf(state->message, state->message_size, "%s", text);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
    writer *state = png_get_error_ptr(png);
    if (!state->warning[0]) snprintf(state->warning, sizeof state->warning, "%s", text);
}

static void on_write(png_structp png, png_bytep data, size_t length) {
    writer *state = png_get_io_ptr(png);
    if (state->size + length > state->capacity) {
        size_t capacity = state->capacity ? state->capacity : 64 * 1024;
        while (capacity < state->size + length)
            capacity *= 2;
        uint8_t *grown = realloc(state->bytes, capacity);
        if (!grown) png_error(png, "out of memory for the encoded PNG");
        state->bytes = grown;
        state->capacity = capacity;
    }
    memcpy(state->bytes + state->size, data, length);
    state->size += length;
}

static void on_flush(png_structp png) { (void)png; }

int CPNGBridge_encode_rgb(const uint8_t *pixels, int width, int height, size_t stride, int level, int filters,
                          uint8_t **output, size_t *output_size, char *message, size_t message_size) {
    // The state lives outside the setjmp frame (the handler reaches it by pointer), so
    // nothing a longjmp returns to is a local modified after setjmp.
    writer state = {NULL, 0, 0, message, message_size, {0}};
    *output = NULL;
    *output_size = 0;
    if (message_size > 0) message[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
    if (!png) {
        snprintf(message, message_size, "libpng could not start (out of memory?)");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(message, message_size, "libpng could not start (out of memory?)");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(state.bytes);
        return -1;
    }
    png_set_write_fn(png, &state, on_write, on_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    png_write_info(png, info);
    for (int y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)(pixels + stride * (size_t)y));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *output = state.bytes;
    *output_size = state.size;
    return 0;
}
