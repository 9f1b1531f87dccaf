// The functions cardrender calls in GLib, libvips, Pango/cairo/fontconfig, libheif and libqpdf, each opening
// its library on first use; see CSharedLibraries.h. Each definition has the prototype of
// the library's own header, so a mismatch is a compile error. The list is what our objects
// leave undefined against those libraries (`nm -u`); a function missing here makes the
// link fail (the libraries are not linked), never a silent fallback.
//
// Every definition here is hidden: not exported, so never preferred over the library's own.
#pragma GCC visibility push(hidden)

#include <fontconfig/fontconfig.h>
#include <gmodule.h>
#include <libheif/heif.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-font.h>
#include <pango/pangofc-fontmap.h>
#include <qpdf/qpdf-c.h>
#include <stdatomic.h>
#include <vips/vips.h>

#include "CSharedLibraries.h"

/// The address of `name`, looked up once and kept in `slot`.
#define RESOLVED(group, name, slot)                                                                \
    __typeof__(&name) function = atomic_load_explicit(&slot, memory_order_acquire);                \
    if (!function) {                                                                               \
        function = (__typeof__(&name))CSharedLibraries_symbol(CSharedLibraries_##group, #name);    \
        atomic_store_explicit(&slot, function, memory_order_release);                              \
    }

/// A function returning `type`.
#define FUNCTION(group, type, name, parameters, arguments)                                         \
    type name parameters {                                                                         \
        static _Atomic(__typeof__(&name)) slot;                                                    \
        RESOLVED(group, name, slot)                                                                \
        return function arguments;                                                                 \
    }

/// A function returning nothing.
#define PROCEDURE(group, name, parameters, arguments)                                              \
    void name parameters {                                                                         \
        static _Atomic(__typeof__(&name)) slot;                                                    \
        RESOLVED(group, name, slot)                                                                \
        function arguments;                                                                        \
    }

// GLib, GObject, GModule
PROCEDURE(glib, g_free, (gpointer mem), (mem))
FUNCTION(glib, guint, g_log_set_handler, (const gchar *log_domain, GLogLevelFlags log_levels, GLogFunc log_func, gpointer user_data), (log_domain, log_levels, log_func, user_data))
FUNCTION(glib, const gchar *, g_module_error, (void), ())
FUNCTION(glib, GModule*, g_module_open, (const gchar *file_name, GModuleFlags flags), (file_name, flags))
PROCEDURE(glib, g_object_unref, (gpointer object), (object))
PROCEDURE(glib, g_strfreev, (gchar **str_array), (str_array))
FUNCTION(glib, GTypeInstance*, g_type_check_instance_cast, (GTypeInstance *instance, GType iface_type), (instance, iface_type))
FUNCTION(glib, gboolean, g_type_check_instance_is_a, (GTypeInstance *instance, GType iface_type), (instance, iface_type))
FUNCTION(glib, gboolean, g_utf8_validate, (const gchar *str, gssize max_len, const gchar **end), (str, max_len, end))
// libvips
PROCEDURE(libvips, vips_area_unref, (VipsArea *area), (area))
FUNCTION(libvips, VipsArrayDouble *, vips_array_double_new, (const double *array, int n), (array, n))
FUNCTION(libvips, VipsArrayInt *, vips_array_int_new, (const int *array, int n), (array, n))
FUNCTION(libvips, VipsBlob *, vips_blob_new, (VipsCallbackFn free_fn, const void *data, size_t length), (free_fn, data, length))
PROCEDURE(libvips, vips_block_untrusted_set, (gboolean state), (state))
PROCEDURE(libvips, vips_cache_set_max, (int max), (max))
PROCEDURE(libvips, vips_cache_set_max_files, (int max_files), (max_files))
PROCEDURE(libvips, vips_cache_set_max_mem, (size_t max_mem), (max_mem))
FUNCTION(libvips, int, vips_concurrency_get, (void), ())
PROCEDURE(libvips, vips_concurrency_set, (int concurrency), (concurrency))
FUNCTION(libvips, char *, vips_error_buffer_copy, (void), ())
FUNCTION(libvips, const char *, vips_foreign_find_load_source, (VipsSource *source), (source))
FUNCTION(libvips, VipsImage *, vips_image_copy_memory, (VipsImage *image), (image))
FUNCTION(libvips, int, vips_image_get_bands, (const VipsImage *image), (image))
FUNCTION(libvips, gchar **, vips_image_get_fields, (VipsImage *image), (image))
FUNCTION(libvips, VipsBandFormat, vips_image_get_format, (const VipsImage *image), (image))
FUNCTION(libvips, int, vips_image_get_height, (const VipsImage *image), (image))
FUNCTION(libvips, VipsInterpretation, vips_image_get_interpretation, (const VipsImage *image), (image))
FUNCTION(libvips, int, vips_image_get_orientation, (VipsImage *image), (image))
FUNCTION(libvips, GType, vips_image_get_typeof, (const VipsImage *image, const char *name), (image, name))
FUNCTION(libvips, int, vips_image_get_width, (const VipsImage *image), (image))
FUNCTION(libvips, double, vips_image_get_xres, (const VipsImage *image), (image))
FUNCTION(libvips, double, vips_image_get_yres, (const VipsImage *image), (image))
FUNCTION(libvips, gboolean, vips_image_hasalpha, (VipsImage *image), (image))
FUNCTION(libvips, VipsImage *, vips_image_new_from_memory_copy, (const void *data, size_t size, int width, int height, int bands, VipsBandFormat format), (data, size, width, height, bands, format))
FUNCTION(libvips, VipsImage *, vips_image_new_matrix_from_array, (int width, int height, const double *array, int size), (width, height, array, size))
FUNCTION(libvips, gboolean, vips_image_remove, (VipsImage *image, const char *name), (image, name))
FUNCTION(libvips, void *, vips_image_write_to_memory, (VipsImage *in, size_t *size), (in, size))
FUNCTION(libvips, int, vips_init, (const char *argv0), (argv0))
FUNCTION(libvips, VipsInterpolate *, vips_interpolate_new, (const char *nickname), (nickname))
PROCEDURE(libvips, vips_operation_block_set, (const char *name, gboolean state), (name, state))
FUNCTION(libvips, VipsSource *, vips_source_new_from_blob, (VipsBlob *blob), (blob))
PROCEDURE(libvips, vips_thread_shutdown, (void), ())
FUNCTION(libvips, const char *, vips_version_string, (void), ())
// Pango, PangoCairo, PangoFT2, cairo, fontconfig
FUNCTION(text, FcBool, FcConfigAppFontAddFile, (FcConfig *config, const FcChar8 *file), (config, file))
FUNCTION(text, FcConfig *, FcInitLoadConfigAndFonts, (void), ())
FUNCTION(text, cairo_t *, cairo_create, (cairo_surface_t *target), (target))
PROCEDURE(text, cairo_destroy, (cairo_t *cr), (cr))
FUNCTION(text, cairo_font_options_t *, cairo_font_options_create, (void), ())
PROCEDURE(text, cairo_font_options_destroy, (cairo_font_options_t *options), (options))
PROCEDURE(text, cairo_font_options_set_antialias, (cairo_font_options_t *options, cairo_antialias_t antialias), (options, antialias))
PROCEDURE(text, cairo_font_options_set_hint_metrics, (cairo_font_options_t *options, cairo_hint_metrics_t hint_metrics), (options, hint_metrics))
PROCEDURE(text, cairo_font_options_set_hint_style, (cairo_font_options_t *options, cairo_hint_style_t hint_style), (options, hint_style))
FUNCTION(text, cairo_surface_t *, cairo_image_surface_create, (cairo_format_t format, int width, int height), (format, width, height))
FUNCTION(text, unsigned char *, cairo_image_surface_get_data, (cairo_surface_t *surface), (surface))
FUNCTION(text, int, cairo_image_surface_get_stride, (cairo_surface_t *surface), (surface))
PROCEDURE(text, cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y))
PROCEDURE(text, cairo_set_source_rgb, (cairo_t *cr, double red, double green, double blue), (cr, red, green, blue))
PROCEDURE(text, cairo_surface_destroy, (cairo_surface_t *surface), (surface))
PROCEDURE(text, cairo_surface_flush, (cairo_surface_t *surface), (surface))
FUNCTION(text, cairo_status_t, cairo_surface_status, (cairo_surface_t *surface), (surface))
PROCEDURE(text, pango_cairo_context_set_font_options, (PangoContext *context, const cairo_font_options_t *options), (context, options))
PROCEDURE(text, pango_cairo_context_set_resolution, (PangoContext *context, double dpi), (context, dpi))
FUNCTION(text, PangoFontMap *, pango_cairo_font_map_new_for_font_type, (cairo_font_type_t fonttype), (fonttype))
PROCEDURE(text, pango_cairo_show_layout, (cairo_t *cr, PangoLayout *layout), (cr, layout))
PROCEDURE(text, pango_fc_font_map_config_changed, (PangoFcFontMap *fcfontmap), (fcfontmap))
FUNCTION(text, GType, pango_fc_font_map_get_type, (void), ())
PROCEDURE(text, pango_fc_font_map_set_config, (PangoFcFontMap *fcfontmap, FcConfig *fcconfig), (fcfontmap, fcconfig))
PROCEDURE(text, pango_font_description_free, (PangoFontDescription *desc), (desc))
FUNCTION(text, PangoFontDescription *, pango_font_description_from_string, (const char *str), (str))
FUNCTION(text, PangoContext *, pango_font_map_create_context, (PangoFontMap *fontmap), (fontmap))
FUNCTION(text, PangoLayoutIter *, pango_layout_get_iter, (PangoLayout *layout), (layout))
FUNCTION(text, int, pango_layout_get_line_count, (PangoLayout *layout), (layout))
FUNCTION(text, PangoLayoutLine *, pango_layout_get_line_readonly, (PangoLayout *layout, int line), (layout, line))
PROCEDURE(text, pango_layout_get_pixel_extents, (PangoLayout *layout, PangoRectangle *ink_rect, PangoRectangle *logical_rect), (layout, ink_rect, logical_rect))
FUNCTION(text, int, pango_layout_get_unknown_glyphs_count, (PangoLayout *layout), (layout))
PROCEDURE(text, pango_layout_iter_free, (PangoLayoutIter *iter), (iter))
FUNCTION(text, PangoLayoutRun *, pango_layout_iter_get_run_readonly, (PangoLayoutIter *iter), (iter))
FUNCTION(text, gboolean, pango_layout_iter_next_run, (PangoLayoutIter *iter), (iter))
PROCEDURE(text, pango_layout_line_get_pixel_extents, (PangoLayoutLine *layout_line, PangoRectangle *ink_rect, PangoRectangle *logical_rect), (layout_line, ink_rect, logical_rect))
FUNCTION(text, PangoLayout *, pango_layout_new, (PangoContext *context), (context))
PROCEDURE(text, pango_layout_set_alignment, (PangoLayout *layout, PangoAlignment alignment), (layout, alignment))
PROCEDURE(text, pango_layout_set_auto_dir, (PangoLayout *layout, gboolean auto_dir), (layout, auto_dir))
PROCEDURE(text, pango_layout_set_font_description, (PangoLayout *layout, const PangoFontDescription *desc), (layout, desc))
PROCEDURE(text, pango_layout_set_text, (PangoLayout *layout, const char *text, int length), (layout, text, length))
PROCEDURE(text, pango_layout_set_width, (PangoLayout *layout, int width), (layout, width))
PROCEDURE(text, pango_layout_set_wrap, (PangoLayout *layout, PangoWrapMode wrap), (layout, wrap))

// the message side as outlines (the press PDF)
FUNCTION(text, cairo_path_t *, cairo_copy_path, (cairo_t *cr), (cr))
FUNCTION(text, cairo_surface_t *, cairo_recording_surface_create, (cairo_content_t content, const cairo_rectangle_t *extents), (content, extents))
PROCEDURE(text, cairo_path_destroy, (cairo_path_t *path), (path))
PROCEDURE(text, cairo_new_path, (cairo_t *cr), (cr))
FUNCTION(text, GType, pango_fc_font_get_type, (void), ())
FUNCTION(text, FcPattern *, pango_fc_font_get_pattern, (PangoFcFont *font), (font))
FUNCTION(text, FcResult, FcPatternGetBool, (const FcPattern *p, const char *object, int n, FcBool *b), (p, object, n, b))
PROCEDURE(text, pango_cairo_glyph_string_path, (cairo_t *cr, PangoFont *font, PangoGlyphString *glyphs), (cr, font, glyphs))
PROCEDURE(text, pango_cairo_show_glyph_string, (cairo_t *cr, PangoFont *font, PangoGlyphString *glyphs), (cr, font, glyphs))
PROCEDURE(text, pango_glyph_string_extents, (PangoGlyphString *glyphs, PangoFont *font, PangoRectangle *ink_rect, PangoRectangle *logical_rect), (glyphs, font, ink_rect, logical_rect))
PROCEDURE(text, pango_extents_to_pixels, (PangoRectangle *inclusive, PangoRectangle *nearest), (inclusive, nearest))
PROCEDURE(text, pango_layout_iter_get_run_extents, (PangoLayoutIter *iter, PangoRectangle *ink_rect, PangoRectangle *logical_rect), (iter, ink_rect, logical_rect))
FUNCTION(text, int, pango_layout_iter_get_baseline, (PangoLayoutIter *iter), (iter))

// libheif
FUNCTION(heif, struct heif_context *, heif_context_alloc, (void), ())
PROCEDURE(heif, heif_context_free, (struct heif_context *context), (context))
FUNCTION(heif, struct heif_error, heif_context_get_primary_image_handle, (struct heif_context *ctx, struct heif_image_handle **handle), (ctx, handle))
FUNCTION(heif, struct heif_error, heif_context_read_from_memory_without_copy, (struct heif_context *context, const void *mem, size_t size, const struct heif_reading_options *options), (context, mem, size, options))
FUNCTION(heif, struct heif_error, heif_decode_image, (const struct heif_image_handle *in_handle, struct heif_image **out_img, enum heif_colorspace colorspace, enum heif_chroma chroma, const struct heif_decoding_options *options), (in_handle, out_img, colorspace, chroma, options))
FUNCTION(heif, struct heif_decoding_options *, heif_decoding_options_alloc, (void), ())
PROCEDURE(heif, heif_decoding_options_free, (struct heif_decoding_options *options), (options))
FUNCTION(heif, enum heif_color_profile_type, heif_image_handle_get_color_profile_type, (const struct heif_image_handle *handle), (handle))
FUNCTION(heif, int, heif_image_handle_get_height, (const struct heif_image_handle *handle), (handle))
FUNCTION(heif, int, heif_image_handle_get_luma_bits_per_pixel, (const struct heif_image_handle *handle), (handle))
FUNCTION(heif, struct heif_error, heif_image_handle_get_raw_color_profile, (const struct heif_image_handle *handle, void *out_data), (handle, out_data))
FUNCTION(heif, size_t, heif_image_handle_get_raw_color_profile_size, (const struct heif_image_handle *handle), (handle))
FUNCTION(heif, int, heif_image_handle_get_width, (const struct heif_image_handle *handle), (handle))
FUNCTION(heif, int, heif_image_handle_has_alpha_channel, (const struct heif_image_handle *handle), (handle))
PROCEDURE(heif, heif_image_handle_release, (const struct heif_image_handle *handle), (handle))
FUNCTION(heif, int, heif_image_get_height, (const struct heif_image *image, enum heif_channel channel), (image, channel))
FUNCTION(heif, const uint8_t *, heif_image_get_plane_readonly, (const struct heif_image *image, enum heif_channel channel, int *out_stride), (image, channel, out_stride))
FUNCTION(heif, int, heif_image_get_width, (const struct heif_image *image, enum heif_channel channel), (image, channel))
PROCEDURE(heif, heif_image_release, (const struct heif_image *image), (image))

// libqpdf (its C API): the press PDFs are written and read with it
FUNCTION(qpdf, qpdf_data, qpdf_init, (void), ())
PROCEDURE(qpdf, qpdf_cleanup, (qpdf_data *qpdf), (qpdf))
PROCEDURE(qpdf, qpdf_silence_errors, (qpdf_data qpdf), (qpdf))
PROCEDURE(qpdf, qpdf_set_suppress_warnings, (qpdf_data qpdf, QPDF_BOOL value), (qpdf, value))
FUNCTION(qpdf, QPDF_BOOL, qpdf_has_error, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, qpdf_error, qpdf_get_error, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, QPDF_BOOL, qpdf_more_warnings, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, qpdf_error, qpdf_next_warning, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, char const *, qpdf_get_error_full_text, (qpdf_data q, qpdf_error e), (q, e))
FUNCTION(qpdf, QPDF_ERROR_CODE, qpdf_empty_pdf, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, QPDF_ERROR_CODE, qpdf_read_memory, (qpdf_data qpdf, char const *description, char const *buffer, unsigned long long size, char const *password), (qpdf, description, buffer, size, password))
FUNCTION(qpdf, qpdf_oh, qpdf_get_root, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, qpdf_oh, qpdf_get_trailer, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, int, qpdf_get_num_pages, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, qpdf_oh, qpdf_get_page_n, (qpdf_data qpdf, size_t zero_based_index), (qpdf, zero_based_index))
FUNCTION(qpdf, QPDF_ERROR_CODE, qpdf_add_page, (qpdf_data qpdf, qpdf_data newpage_qpdf, qpdf_oh newpage, QPDF_BOOL first), (qpdf, newpage_qpdf, newpage, first))
FUNCTION(qpdf, qpdf_oh, qpdf_oh_parse, (qpdf_data qpdf, char const *object_str), (qpdf, object_str))
FUNCTION(qpdf, qpdf_oh, qpdf_oh_new_array, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, qpdf_oh, qpdf_oh_copy_foreign_object, (qpdf_data qpdf, qpdf_data other_qpdf, qpdf_oh foreign_oh), (qpdf, other_qpdf, foreign_oh))
PROCEDURE(qpdf, qpdf_oh_append_item, (qpdf_data qpdf, qpdf_oh oh, qpdf_oh item), (qpdf, oh, item))
FUNCTION(qpdf, qpdf_oh, qpdf_oh_new_stream, (qpdf_data qpdf), (qpdf))
PROCEDURE(qpdf, qpdf_oh_replace_stream_data, (qpdf_data qpdf, qpdf_oh stream_oh, unsigned char const *buf, size_t len, qpdf_oh filter, qpdf_oh decode_parms), (qpdf, stream_oh, buf, len, filter, decode_parms))
FUNCTION(qpdf, qpdf_oh, qpdf_oh_get_dict, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
PROCEDURE(qpdf, qpdf_oh_replace_key, (qpdf_data qpdf, qpdf_oh oh, char const *key, qpdf_oh item), (qpdf, oh, key, item))
FUNCTION(qpdf, qpdf_oh, qpdf_make_indirect_object, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, qpdf_oh, qpdf_oh_get_key, (qpdf_data qpdf, qpdf_oh oh, char const *key), (qpdf, oh, key))
FUNCTION(qpdf, QPDF_BOOL, qpdf_oh_is_array, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, QPDF_BOOL, qpdf_oh_is_indirect, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, QPDF_BOOL, qpdf_oh_is_dictionary, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, QPDF_BOOL, qpdf_oh_is_name, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, QPDF_BOOL, qpdf_oh_is_number, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, QPDF_BOOL, qpdf_oh_is_stream, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, QPDF_BOOL, qpdf_oh_is_string, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, int, qpdf_oh_get_array_n_items, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, qpdf_oh, qpdf_oh_get_array_item, (qpdf_data qpdf, qpdf_oh oh, int n), (qpdf, oh, n))
FUNCTION(qpdf, double, qpdf_oh_get_numeric_value, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, char const *, qpdf_oh_get_name, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, char const *, qpdf_oh_get_utf8_value, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
PROCEDURE(qpdf, qpdf_oh_begin_dict_key_iter, (qpdf_data qpdf, qpdf_oh dict), (qpdf, dict))
FUNCTION(qpdf, QPDF_BOOL, qpdf_oh_dict_more_keys, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, char const *, qpdf_oh_dict_next_key, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, QPDF_ERROR_CODE, qpdf_oh_get_stream_data, (qpdf_data qpdf, qpdf_oh stream_oh, enum qpdf_stream_decode_level_e decode_level, QPDF_BOOL *filtered, unsigned char **bufp, size_t *len), (qpdf, stream_oh, decode_level, filtered, bufp, len))
FUNCTION(qpdf, char const *, qpdf_oh_unparse, (qpdf_data qpdf, qpdf_oh oh), (qpdf, oh))
FUNCTION(qpdf, QPDF_ERROR_CODE, qpdf_init_write_memory, (qpdf_data qpdf), (qpdf))
PROCEDURE(qpdf, qpdf_set_deterministic_ID, (qpdf_data qpdf, QPDF_BOOL value), (qpdf, value))
PROCEDURE(qpdf, qpdf_force_pdf_version, (qpdf_data qpdf, char const *version), (qpdf, version))
PROCEDURE(qpdf, qpdf_set_object_stream_mode, (qpdf_data qpdf, enum qpdf_object_stream_e mode), (qpdf, mode))
PROCEDURE(qpdf, qpdf_set_compress_streams, (qpdf_data qpdf, QPDF_BOOL value), (qpdf, value))
FUNCTION(qpdf, QPDF_ERROR_CODE, qpdf_write, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, size_t, qpdf_get_buffer_length, (qpdf_data qpdf), (qpdf))
FUNCTION(qpdf, unsigned char const *, qpdf_get_buffer, (qpdf_data qpdf), (qpdf))
