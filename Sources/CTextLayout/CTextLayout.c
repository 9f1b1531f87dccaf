#include "CTextLayout.h"

#include <pango/pangocairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangofc-fontmap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
// Made once, under `lock`, and kept for the process: a font map over a fontconfig
// configuration of our own. Adding the message fonts to it never touches the process's
// default configuration, which libvips and librsvg read from other threads.
static PangoFontMap *font_map;
static FcConfig *config;

/// The font map and its configuration, made on first use; call under `lock`.
static int ensure_font_map(void) {
    if (font_map) return 0;
    config = FcInitLoadConfigAndFonts();
    if (!config) return -1;
    font_map = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT);
    if (!font_map) return -1;
    pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(font_map), config);
    return 0;
}

int CTextLayout_add_font_file(const char *path) {
    pthread_mutex_lock(&lock);
    // Adding one twice is harmless but rescans the file, so remember what was added.
    static char *added[64];
    static int count;
    int result = ensure_font_map(), known = 0;
    for (int index = 0; index < count; index++)
        if (strcmp(added[index], path) == 0) known = 1;
    if (result == 0 && !known) {
        if (!FcConfigAppFontAddFile(config, (const FcChar8 *)path)) {
            result = -1;
        } else {
            pango_fc_font_map_config_changed(PANGO_FC_FONT_MAP(font_map));
            if (count < 64) added[count++] = strdup(path);
        }
    }
    pthread_mutex_unlock(&lock);
    return result;
}

static void set_error(char *error, size_t size, const char *text) {
    if (size) snprintf(error, size, "%s", text);
}

/// The first character of `layout` drawn as an unknown glyph (0: none). Pango stores the
/// character's code point in such a glyph, behind PANGO_GLYPH_UNKNOWN_FLAG.
static uint32_t first_unknown(PangoLayout *layout) {
    uint32_t found = 0;
    PangoLayoutIter *iter = pango_layout_get_iter(layout);
    do {
        PangoLayoutRun *run = pango_layout_iter_get_run_readonly(iter);
        if (!run) continue;
        for (int index = 0; index < run->glyphs->num_glyphs && !found; index++) {
            PangoGlyph glyph = run->glyphs->glyphs[index].glyph;
            if (glyph & PANGO_GLYPH_UNKNOWN_FLAG) found = glyph & ~PANGO_GLYPH_UNKNOWN_FLAG;
        }
    } while (!found && pango_layout_iter_next_run(iter));
    pango_layout_iter_free(iter);
    return found;
}

/// Draws `layout` into a new straight-RGBA buffer; fills the result's surface fields.
static int draw_layout(PangoLayout *layout, int wrap_width, const double rgb[3],
                       CTextLayout_Result *result, char *error, size_t error_size) {
    PangoRectangle ink, logical;
    pango_layout_get_pixel_extents(layout, &ink, &logical);
    if (wrap_width > 0) {
        // The block is the whole wrap width: lines sit in it as aligned.
        logical.x = 0;
        logical.width = wrap_width;
    }
    int left = ink.width > 0 && ink.x < logical.x ? ink.x : logical.x;
    int top = ink.height > 0 && ink.y < logical.y ? ink.y : logical.y;
    int right = logical.x + logical.width, bottom = logical.y + logical.height;
    if (ink.width > 0 && ink.x + ink.width > right) right = ink.x + ink.width;
    if (ink.height > 0 && ink.y + ink.height > bottom) bottom = ink.y + ink.height;
    int width = right - left, height = bottom - top;
    if (width < 1) width = 1;
    if (height < 1) height = 1;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        set_error(error, error_size, "cairo could not make the text surface");
        return -1;
    }
    cairo_t *cr = cairo_create(surface);
    cairo_set_source_rgb(cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
    cairo_move_to(cr, -left, -top);
    pango_cairo_show_layout(cr, layout);
    cairo_destroy(cr);
    cairo_surface_flush(surface);

    unsigned char *pixels = malloc((size_t)width * height * 4);
    if (!pixels) {
        cairo_surface_destroy(surface);
        set_error(error, error_size, "out of memory for the text surface");
        return -1;
    }
    const unsigned char *data = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    for (int y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * stride);
        unsigned char *out = pixels + (size_t)y * width * 4;
        for (int x = 0; x < width; x++) {
            // cairo's ARGB32 is premultiplied, one native-endian word per pixel.
            uint32_t pixel = row[x];
            unsigned alpha = pixel >> 24;
            unsigned red = (pixel >> 16) & 0xff, green = (pixel >> 8) & 0xff, blue = pixel & 0xff;
            if (alpha && alpha < 255) {
                red = (red * 255 + alpha / 2) / alpha;
                green = (green * 255 + alpha / 2) / alpha;
                blue = (blue * 255 + alpha / 2) / alpha;
            }
            out[4 * x] = red > 255 ? 255 : red;
            out[4 * x + 1] = green > 255 ? 255 : green;
            out[4 * x + 2] = blue > 255 ? 255 : blue;
            out[4 * x + 3] = alpha;
        }
    }
    cairo_surface_destroy(surface);
    result->pixels = pixels;
    result->width = width;
    result->height = height;
    result->origin_x = logical.x - left;
    result->origin_y = logical.y - top;
    return 0;
}

int CTextLayout_run(const char *text, const char *font, int dpi, int wrap_width, int align,
                    const double rgb[3], int draw, CTextLayout_Result *result, char *error,
                    size_t error_size) {
    memset(result, 0, sizeof *result);
    result->overflow_start = result->overflow_length = -1;
    if (!g_utf8_validate(text, -1, NULL)) {
        set_error(error, error_size, "the text is not valid UTF-8");
        return -1;
    }
    pthread_mutex_lock(&lock);
    if (ensure_font_map() != 0) {
        pthread_mutex_unlock(&lock);
        set_error(error, error_size, "fontconfig could not load its configuration");
        return -1;
    }
    PangoContext *context = pango_font_map_create_context(font_map);
    pango_cairo_context_set_resolution(context, dpi);
    // Outlines without hinting: the same shapes and advances whatever the machine's
    // fontconfig settings, so a card's bytes do not depend on them.
    cairo_font_options_t *options = cairo_font_options_create();
    cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
    pango_cairo_context_set_font_options(context, options);
    cairo_font_options_destroy(options);

    PangoLayout *layout = pango_layout_new(context);
    PangoFontDescription *description = pango_font_description_from_string(font);
    pango_layout_set_font_description(layout, description);
    pango_font_description_free(description);
    pango_layout_set_auto_dir(layout, TRUE);
    pango_layout_set_alignment(layout, align == 1   ? PANGO_ALIGN_CENTER
                                       : align == 2 ? PANGO_ALIGN_RIGHT
                                                    : PANGO_ALIGN_LEFT);
    if (wrap_width > 0) {
        pango_layout_set_width(layout, wrap_width * PANGO_SCALE);
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD);
    }
    pango_layout_set_text(layout, text, -1);

    result->lines = pango_layout_get_line_count(layout);
    result->unknown_glyphs = pango_layout_get_unknown_glyphs_count(layout);
    if (result->unknown_glyphs > 0) result->first_unknown = first_unknown(layout);
    PangoRectangle logical;
    pango_layout_get_pixel_extents(layout, NULL, &logical);
    result->logical_width = wrap_width > 0 ? wrap_width : logical.width;
    result->logical_height = logical.height;
    if (wrap_width > 0) {
        for (int index = 0; index < result->lines; index++) {
            PangoLayoutLine *line = pango_layout_get_line_readonly(layout, index);
            PangoRectangle extent;
            pango_layout_line_get_pixel_extents(line, NULL, &extent);
            if (extent.width > wrap_width) {
                result->overflow_start = line->start_index;
                result->overflow_length = line->length;
                break;
            }
        }
    }
    int status = draw ? draw_layout(layout, wrap_width, rgb, result, error, error_size) : 0;
    g_object_unref(layout);
    g_object_unref(context);
    pthread_mutex_unlock(&lock);
    return status;
}

void CTextLayout_free(CTextLayout_Result *result) {
    free(result->pixels);
    result->pixels = NULL;
}
