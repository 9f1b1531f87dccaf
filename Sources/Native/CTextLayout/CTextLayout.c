#include "CTextLayout.h"

#include "CLazyLibraries.h"

#include <pango/pangocairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangofc-fontmap.h>
#include <pango/pangofc-font.h>
#include <stdarg.h>
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

int CTextLayout_load(const char **error) { return CLazyLibraries_load(CLazyLibraries_text, error); }

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

/// The pixels of an ARGB32 `surface` as straight (not premultiplied) RGBA, malloc'd; NULL
/// when out of memory.
static unsigned char *straight_rgba(cairo_surface_t *surface, int width, int height) {
    unsigned char *pixels = malloc((size_t)width * height * 4);
    if (!pixels) return NULL;
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
    return pixels;
}

/// Draws `layout` into a new straight-RGBA buffer; fills the result's surface fields.
static int draw_layout(PangoLayout *layout, int wrap_width, const double rgb[3], CTextLayout_Result *result,
                       char *error, size_t error_size) {
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

    unsigned char *pixels = straight_rgba(surface, width, height);
    if (!pixels) {
        cairo_surface_destroy(surface);
        set_error(error, error_size, "out of memory for the text surface");
        return -1;
    }
    cairo_surface_destroy(surface);
    result->pixels = pixels;
    result->width = width;
    result->height = height;
    result->origin_x = logical.x - left;
    result->origin_y = logical.y - top;
    return 0;
}

/// A layout of `text` in its own context, set up as CTextLayout_run describes; call under
/// `lock`, after ensure_font_map. Unref the layout and `*context` when done.
static PangoLayout *make_layout(const char *text, const char *font, int dpi, int wrap_width, int align,
                                PangoContext **context_out) {
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
    *context_out = context;
    return layout;
}

/// Fills the result's counts and logical size from `layout`.
static void measure(PangoLayout *layout, int wrap_width, CTextLayout_Result *result) {
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
}

/// Starts a call: checks the text, takes `lock`, makes the font map. Returns 0 (lock held)
/// or -1 with the error set (lock released).
static int begin(const char *text, CTextLayout_Result *result, char *error, size_t error_size) {
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
    return 0;
}

int CTextLayout_run(const char *text, const char *font, int dpi, int wrap_width, int align, const double rgb[3],
                    int draw, CTextLayout_Result *result, char *error, size_t error_size) {
    if (begin(text, result, error, error_size) != 0) return -1;
    PangoContext *context;
    PangoLayout *layout = make_layout(text, font, dpi, wrap_width, align, &context);
    measure(layout, wrap_width, result);
    int status = draw ? draw_layout(layout, wrap_width, rgb, result, error, error_size) : 0;
    g_object_unref(layout);
    g_object_unref(context);
    pthread_mutex_unlock(&lock);
    return status;
}

// MARK: outlines

/// A growing text buffer for path operators.
typedef struct Operators {
    char *text;
    size_t length, capacity;
    int failed;
} Operators;

static void append(Operators *operators, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void append(Operators *operators, const char *format, ...) {
    if (operators->failed) return;
    char line[160];
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    if (length < 0 || (size_t)length >= sizeof line) {
        operators->failed = 1;
        return;
    }
    if (operators->length + (size_t)length + 1 > operators->capacity) {
        size_t capacity = operators->capacity ? operators->capacity * 2 : 65536;
        char *grown = realloc(operators->text, capacity);
        if (!grown) {
            operators->failed = 1;
            return;
        }
        operators->text = grown;
        operators->capacity = capacity;
    }
    memcpy(operators->text + operators->length, line, (size_t)length + 1);
    operators->length += (size_t)length;
}

/// Appends cairo's current path as PDF path-construction operators (m, l, c, h).
static void append_path(Operators *operators, cairo_t *cr) {
    cairo_path_t *path = cairo_copy_path(cr);
    if (path->status != CAIRO_STATUS_SUCCESS) operators->failed = 1;
    for (int index = 0; index < path->num_data && !operators->failed; index += path->data[index].header.length) {
        const cairo_path_data_t *data = &path->data[index];
        switch (data->header.type) {
        case CAIRO_PATH_MOVE_TO:
            append(operators, "%.2f %.2f m\n", data[1].point.x, data[1].point.y);
            break;
        case CAIRO_PATH_LINE_TO:
            append(operators, "%.2f %.2f l\n", data[1].point.x, data[1].point.y);
            break;
        case CAIRO_PATH_CURVE_TO:
            append(operators, "%.2f %.2f %.2f %.2f %.2f %.2f c\n", data[1].point.x, data[1].point.y, data[2].point.x,
                   data[2].point.y, data[3].point.x, data[3].point.y);
            break;
        case CAIRO_PATH_CLOSE_PATH:
            append(operators, "h\n");
            break;
        }
    }
    cairo_path_destroy(path);
}

/// Whether `font` draws colour glyphs (emoji): bitmaps or colour layers, which have no
/// outline to fill with one ink. Fontconfig says so in the font's pattern (FC_COLOR).
/// (Asking cairo for the FreeType face instead, with cairo_ft_scaled_font_lock_face, left
/// the next run's glyphs without outlines.)
static int is_colour_font(PangoFont *font) {
    if (!PANGO_IS_FC_FONT(font)) return 0;
    FcBool colour = FcFalse;
    FcPattern *pattern = pango_fc_font_get_pattern(PANGO_FC_FONT(font));
    return pattern && FcPatternGetBool(pattern, FC_COLOR, 0, &colour) == FcResultMatch && colour;
}

/// Draws one run of colour glyphs, whose baseline origin is at (`x`, `y`), into a new image.
static int draw_colour_run(PangoFont *font, PangoGlyphString *glyphs, double x, double y, CTextLayout_Image *image) {
    PangoRectangle ink;
    pango_glyph_string_extents(glyphs, font, &ink, NULL);
    pango_extents_to_pixels(&ink, NULL); // inclusive: the whole ink in whole pixels
    int width = ink.width > 0 ? ink.width : 1, height = ink.height > 0 ? ink.height : 1;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        return -1;
    }
    cairo_t *cr = cairo_create(surface);
    cairo_move_to(cr, -ink.x, -ink.y);
    pango_cairo_show_glyph_string(cr, font, glyphs);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    image->pixels = straight_rgba(surface, width, height);
    cairo_surface_destroy(surface);
    if (!image->pixels) return -1;
    image->x = x + ink.x;
    image->y = y + ink.y;
    image->width = width;
    image->height = height;
    return 0;
}

int CTextLayout_outline(const char *text, const char *font, int dpi, int wrap_width, int align,
                        CTextLayout_Outline *outline, char *error, size_t error_size) {
    memset(outline, 0, sizeof *outline);
    if (begin(text, &outline->measures, error, error_size) != 0) return -1;
    PangoContext *context;
    PangoLayout *layout = make_layout(text, font, dpi, wrap_width, align, &context);
    measure(layout, wrap_width, &outline->measures);

    // A path needs a context; the surface is never drawn on. An unbounded (recording)
    // surface: cairo drops glyphs that lie well outside a bounded target's extents even
    // from paths, which lost the end of long lines on a 1 x 1 image surface.
    cairo_surface_t *surface = cairo_recording_surface_create(CAIRO_CONTENT_ALPHA, NULL);
    cairo_t *cr = cairo_create(surface);
    Operators operators = {0};
    int status = 0, capacity = 0;
    PangoLayoutIter *iter = pango_layout_get_iter(layout);
    do {
        PangoLayoutRun *run = pango_layout_iter_get_run_readonly(iter);
        if (!run) continue;
        PangoRectangle logical;
        pango_layout_iter_get_run_extents(iter, NULL, &logical);
        double x = (double)logical.x / PANGO_SCALE;
        double y = (double)pango_layout_iter_get_baseline(iter) / PANGO_SCALE;
        if (is_colour_font(run->item->analysis.font)) {
            if (outline->image_count == capacity) {
                capacity = capacity ? capacity * 2 : 8;
                CTextLayout_Image *grown = realloc(outline->images, (size_t)capacity * sizeof *grown);
                if (!grown) {
                    status = -1;
                    break;
                }
                outline->images = grown;
            }
            CTextLayout_Image *image = &outline->images[outline->image_count];
            memset(image, 0, sizeof *image);
            if (draw_colour_run(run->item->analysis.font, run->glyphs, x, y, image) != 0) {
                status = -1;
                break;
            }
            outline->image_count++;
        } else {
            cairo_new_path(cr);
            cairo_move_to(cr, x, y);
            pango_cairo_glyph_string_path(cr, run->item->analysis.font, run->glyphs);
            append_path(&operators, cr);
        }
    } while (pango_layout_iter_next_run(iter));
    pango_layout_iter_free(iter);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    g_object_unref(layout);
    g_object_unref(context);
    pthread_mutex_unlock(&lock);
    if (status != 0 || operators.failed) {
        free(operators.text);
        CTextLayout_free_outline(outline);
        set_error(error, error_size, "out of memory for the text's outlines");
        return -1;
    }
    outline->path = operators.text;
    outline->path_length = operators.length;
    return 0;
}

void CTextLayout_free_outline(CTextLayout_Outline *outline) {
    free(outline->path);
    outline->path = NULL;
    for (int index = 0; index < outline->image_count; index++)
        free(outline->images[index].pixels);
    free(outline->images);
    outline->images = NULL;
    outline->image_count = 0;
}

void CTextLayout_free(CTextLayout_Result *result) {
    free(result->pixels);
    result->pixels = NULL;
}
