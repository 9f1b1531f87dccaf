// Fixed-arity wrappers of variadic libvips calls: see CVipsShim.h for why.
#include "CVipsShim.h"

#include <stdlib.h>

#include "CLazyLibraries.h"

/// A variadic libvips operation, through the pointer CLazyLibraries looks up (libvips is
/// opened on first use, not linked); `name` must be listed in CLazyLibraries.inc.
#define LIBVIPS(name) CLAZY_VARIADIC(name)

int CVipsShim_load(const char **error) { return CLazyLibraries_load(CLazyLibraries_libvips, error); }

int CVipsShim_is_loaded(void) { return CLazyLibraries_is_loaded(CLazyLibraries_libvips); }

_Static_assert(VIPS_MAJOR_VERSION == 8 && VIPS_MINOR_VERSION >= 14,
               "cardrender needs libvips 8.14 or later in the 8.x series");

VipsImage *CVipsShim_image_new_from_source(VipsSource *source, const char *options, VipsAccess access,
                                           VipsFailOn fail_on) {
    return LIBVIPS(vips_image_new_from_source)(source, options, "access", access, "fail_on", fail_on, NULL);
}

int CVipsShim_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height, VipsSize size,
                               const char *option_string) {
    return LIBVIPS(vips_thumbnail_source)(source, out, width, "height", height, "size", size, "option_string",
                                          option_string, NULL);
}

int CVipsShim_copy(VipsImage *in, VipsImage **out) { return LIBVIPS(vips_copy)(in, out, NULL); }

int CVipsShim_autorot(VipsImage *in, VipsImage **out) { return LIBVIPS(vips_autorot)(in, out, NULL); }

int CVipsShim_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return LIBVIPS(vips_colourspace)(in, out, space, NULL);
}

int CVipsShim_icc_transform(VipsImage *in, VipsImage **out, const char *output_profile, const char *input_profile,
                            VipsIntent intent) {
    return LIBVIPS(vips_icc_transform)(in, out, output_profile, "input_profile", input_profile, "intent", intent,
                                       "embedded", TRUE, NULL);
}

int CVipsShim_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return LIBVIPS(vips_cast)(in, out, format, NULL);
}

int CVipsShim_flatten(VipsImage *in, VipsImage **out, const double *background, int n) {
    VipsArrayDouble *array = vips_array_double_new(background, n);
    int result = LIBVIPS(vips_flatten)(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

int CVipsShim_subtract(VipsImage *left, VipsImage *right, VipsImage **out) {
    return LIBVIPS(vips_subtract)(left, right, out, NULL);
}

int CVipsShim_abs(VipsImage *in, VipsImage **out) { return LIBVIPS(vips_abs)(in, out, NULL); }

int CVipsShim_avg(VipsImage *in, double *out) { return LIBVIPS(vips_avg)(in, out, NULL); }

int CVipsShim_getpoint(VipsImage *in, double **vector, int *n, int x, int y) {
    return LIBVIPS(vips_getpoint)(in, vector, n, x, y, NULL);
}

int CVipsShim_resize(VipsImage *in, VipsImage **out, double scale, double vscale) {
    return LIBVIPS(vips_resize)(in, out, scale, "vscale", vscale, NULL);
}

int CVipsShim_extract_band(VipsImage *in, VipsImage **out, int band, int n) {
    return LIBVIPS(vips_extract_band)(in, out, band, "n", n, NULL);
}

int CVipsShim_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, gboolean interlace,
                              VipsForeignSubsample subsample, gboolean optimize_coding, gboolean strip) {
    return LIBVIPS(vips_jpegsave_buffer)(in, buf, len, "Q", quality, "interlace", interlace, "subsample_mode",
                                         subsample, "optimize_coding", optimize_coding, "strip", strip, NULL);
}

int CVipsShim_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression, gboolean palette, int quality,
                             gboolean strip) {
    VipsForeignPngFilter filter = palette ? VIPS_FOREIGN_PNG_FILTER_NONE : VIPS_FOREIGN_PNG_FILTER_PAETH;
    return LIBVIPS(vips_pngsave_buffer)(in, buf, len, "compression", compression, "palette", palette, "Q", quality,
                                        "filter", filter, "strip", strip, NULL);
}

int CVipsShim_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, gboolean lossless, int effort,
                              gboolean strip) {
    return LIBVIPS(vips_webpsave_buffer)(in, buf, len, "Q", quality, "lossless", lossless, "effort", effort, "strip",
                                         strip, NULL);
}

int CVipsShim_heifsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, int effort, gboolean strip) {
    return LIBVIPS(vips_heifsave_buffer)(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                         "effort", effort, "strip", strip, NULL);
}

int CVipsShim_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return LIBVIPS(vips_extract_area)(in, out, left, top, width, height, NULL);
}

int CVipsShim_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height, VipsExtend extend,
                    const double *background, int n) {
    VipsArrayDouble *array = vips_array_double_new(background, n);
    int result = LIBVIPS(vips_embed)(in, out, x, y, width, height, "extend", extend, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

int CVipsShim_rotate(VipsImage *in, VipsImage **out, double angle, const double *background, int n) {
    VipsArrayDouble *array = vips_array_double_new(background, n);
    int result = LIBVIPS(vips_rotate)(in, out, angle, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

int CVipsShim_affine_bicubic(VipsImage *in, VipsImage **out, double a, double d, double idx, double idy) {
    VipsInterpolate *bicubic = vips_interpolate_new("bicubic");
    if (!bicubic) return -1;
    int result = LIBVIPS(vips_affine)(in, out, a, 0.0, 0.0, d, "interpolate", bicubic, "extend", VIPS_EXTEND_COPY,
                                      "idx", idx, "idy", idy, NULL);
    g_object_unref(bicubic);
    return result;
}

int CVipsShim_affine_area(VipsImage *in, VipsImage **out, const double *matrix, double idx, double idy, double odx,
                          double ody, const int *area, int bicubic, const double *background, int n) {
    VipsInterpolate *interpolate = vips_interpolate_new(bicubic ? "bicubic" : "bilinear");
    if (!interpolate) return -1;
    VipsArrayInt *oarea = vips_array_int_new(area, 4);
    int result;
    if (background) {
        VipsArrayDouble *array = vips_array_double_new(background, n);
        result = LIBVIPS(vips_affine)(in, out, matrix[0], matrix[1], matrix[2], matrix[3], "interpolate", interpolate,
                                      "oarea", oarea, "idx", idx, "idy", idy, "odx", odx, "ody", ody, "extend",
                                      VIPS_EXTEND_BACKGROUND, "background", array, NULL);
        vips_area_unref(VIPS_AREA(array));
    } else {
        result = LIBVIPS(vips_affine)(in, out, matrix[0], matrix[1], matrix[2], matrix[3], "interpolate", interpolate,
                                      "oarea", oarea, "idx", idx, "idy", idy, "odx", odx, "ody", ody, "extend",
                                      VIPS_EXTEND_COPY, NULL);
    }
    vips_area_unref(VIPS_AREA(oarea));
    g_object_unref(interpolate);
    return result;
}

int CVipsShim_reduce(VipsImage *in, VipsImage **out, double hshrink, double vshrink) {
    return LIBVIPS(vips_reduce)(in, out, hshrink, vshrink, NULL);
}

int CVipsShim_rot(VipsImage *in, VipsImage **out, VipsAngle angle) { return LIBVIPS(vips_rot)(in, out, angle, NULL); }

int CVipsShim_recomb(VipsImage *in, VipsImage **out, const double *matrix, int rows, int columns) {
    VipsImage *m = vips_image_new_matrix_from_array(columns, rows, matrix, rows * columns);
    if (!m) return -1;
    int result = LIBVIPS(vips_recomb)(in, out, m, NULL);
    g_object_unref(m);
    return result;
}

int CVipsShim_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n, gboolean uchar) {
    return LIBVIPS(vips_linear)(in, out, a, b, n, "uchar", uchar, NULL);
}

int CVipsShim_xyz(VipsImage **out, int width, int height) { return LIBVIPS(vips_xyz)(out, width, height, NULL); }

int CVipsShim_multiply(VipsImage *left, VipsImage *right, VipsImage **out) {
    return LIBVIPS(vips_multiply)(left, right, out, NULL);
}

int CVipsShim_bandmean(VipsImage *in, VipsImage **out) { return LIBVIPS(vips_bandmean)(in, out, NULL); }

int CVipsShim_attention_centre(VipsImage *in, int width, int height, int *x, int *y) {
    VipsImage *out = NULL;
    int status = LIBVIPS(vips_smartcrop)(in, &out, width, height, "interesting", VIPS_INTERESTING_ATTENTION,
                                         "attention_x", x, "attention_y", y, NULL);
    if (out) g_object_unref(out);
    return status;
}

int CVipsShim_copy_resolution(VipsImage *in, VipsImage **out, double xres, double yres) {
    return LIBVIPS(vips_copy)(in, out, "xres", xres, "yres", yres, NULL);
}

int CVipsShim_svgload_buffer(void *buf, size_t len, VipsImage **out, double scale) {
    return LIBVIPS(vips_svgload_buffer)(buf, len, out, "scale", scale, NULL);
}

int CVipsShim_tiffsave_buffer(VipsImage *in, void **buf, size_t *len, gboolean strip) {
    return LIBVIPS(vips_tiffsave_buffer)(in, buf, len, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, "resunit",
                                         VIPS_FOREIGN_TIFF_RESUNIT_INCH, "strip", strip, NULL);
}

int CVipsShim_ifthenelse_blend(VipsImage *cond, VipsImage *in1, VipsImage *in2, VipsImage **out) {
    return LIBVIPS(vips_ifthenelse)(cond, in1, in2, out, "blend", TRUE, NULL);
}

int CVipsShim_black(VipsImage **out, int width, int height, int bands) {
    return LIBVIPS(vips_black)(out, width, height, "bands", bands, NULL);
}

int CVipsShim_draw_rect(VipsImage *image, const double *ink, int n, int left, int top, int width, int height) {
    // vips_draw_rect only reads `ink`; its prototype lacks the const.
    return LIBVIPS(vips_draw_rect)(image, (double *)ink, n, left, top, width, height, "fill", TRUE, NULL);
}

int CVipsShim_find_trim(VipsImage *in, int *left, int *top, int *width, int *height, const double *background, int n,
                        double threshold) {
    VipsArrayDouble *array = vips_array_double_new(background, n);
    int result =
        LIBVIPS(vips_find_trim)(in, left, top, width, height, "background", array, "threshold", threshold, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

int CVipsShim_bandjoin_const1(VipsImage *in, VipsImage **out, double value) {
    return LIBVIPS(vips_bandjoin_const1)(in, out, value, NULL);
}

int CVipsShim_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    return LIBVIPS(vips_gaussblur)(in, out, sigma, NULL);
}

int CVipsShim_gifsave_buffer(VipsImage *in, void **buf, size_t *len, int effort, gboolean strip) {
    return LIBVIPS(vips_gifsave_buffer)(in, buf, len, "effort", effort, "strip", strip, NULL);
}

int CVipsShim_n_pages(VipsImage *image) { return vips_image_get_n_pages(image); }

int CVipsShim_page_height(VipsImage *image) { return vips_image_get_page_height(image); }

int CVipsShim_reframe_pages(VipsImage *in, VipsImage **out, int pages, int page_height, int left, int top, int width,
                            int height, int x, int y, int canvas_width, int canvas_height, const double *background,
                            int n) {
    // The caller passes the frames it read (1 to --max-frames); anything else is its bug.
    if (pages < 1 || pages > 100000) return -1;
    VipsImage **frames = calloc((size_t)pages, sizeof(VipsImage *));
    if (!frames) return -1;
    int status = 0;
    for (int page = 0; page < pages && status == 0; page++) {
        VipsImage *cut = NULL;
        status = LIBVIPS(vips_extract_area)(in, &cut, left, page * page_height + top, width, height, NULL);
        if (status == 0 && (x != 0 || y != 0 || canvas_width != width || canvas_height != height)) {
            VipsArrayDouble *array = vips_array_double_new(background, n);
            status = LIBVIPS(vips_embed)(cut, &frames[page], x, y, canvas_width, canvas_height, "extend",
                                         VIPS_EXTEND_BACKGROUND, "background", array, NULL);
            vips_area_unref(VIPS_AREA(array));
            g_object_unref(cut);
        } else {
            frames[page] = cut;
        }
    }
    if (status == 0) status = LIBVIPS(vips_arrayjoin)(frames, out, pages, "across", 1, NULL);
    for (int page = 0; page < pages; page++) {
        if (frames[page]) g_object_unref(frames[page]);
    }
    free(frames);
    if (status == 0) vips_image_set_int(*out, "page-height", canvas_height);
    return status;
}
