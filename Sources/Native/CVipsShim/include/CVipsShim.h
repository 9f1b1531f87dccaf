// CVipsShim: fixed-arity wrappers of variadic libvips calls.
//
// Why this exists: libvips takes optional arguments as NULL-terminated C varargs
// (`vips_thumbnail(in, &out, width, "height", h, NULL)`), and Swift cannot call C
// variadic functions. Each wrapper here calls one libvips operation with a fixed set of
// arguments. Besides the call, a wrapper only packages arguments: a C array of doubles
// becomes the `VipsArrayDouble` or matrix image the operation takes, an interpolator's name
// the `VipsInterpolate` (each made before the call and released after it). Where a wrapper fixes an option, its comment
// says so (TIFF: deflate, resolution in inches). Functions are named `CVipsShim_<libvips nickname>`, with a suffix
// where one operation is wrapped in a fixed form (`copy_resolution`, `ifthenelse_blend`); each returns what libvips
// returns (0 or a pointer on success, -1 or NULL with the error buffer set), and Swift turns failure into a `VipsError`
// tagged with the operation and the file (VipsKit's `vipsCall` and `takeVipsError`).
#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H

#include <vips/vips.h>

/// Opens libvips (once per process; see CLazyLibraries.h): 0, or -1 with `*error` naming
/// the file and the cause. VipsKit calls it before any other libvips call, so a missing
/// libvips is reported as such instead of stopping the process inside an operation.
int CVipsShim_load(const char **error);

/// Whether libvips has been opened (asking opens nothing).
int CVipsShim_is_loaded(void);

/// vips_image_new_from_source with `access` and `fail_on` (NULL on failure).
VipsImage *CVipsShim_image_new_from_source(VipsSource *source, const char *options, VipsAccess access,
                                           VipsFailOn fail_on);

/// vips_thumbnail_source to width x height under `size`, EXIF auto-rotate. Load options
/// (e.g. "[fail_on=warning]") go in `option_string`: libvips 8.14's thumbnail_source
/// does not pass its own `fail_on` argument on to the loader.
int CVipsShim_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height, VipsSize size,
                               const char *option_string);

/// vips_copy: a new image header over the same pixels (metadata may then be edited).
int CVipsShim_copy(VipsImage *in, VipsImage **out);

/// vips_autorot: apply the EXIF orientation and drop the tag.
int CVipsShim_autorot(VipsImage *in, VipsImage **out);

/// vips_colourspace to `space`.
int CVipsShim_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space);

/// vips_icc_transform to a named or file profile; the embedded profile is used when
/// present, `input_profile` otherwise.
int CVipsShim_icc_transform(VipsImage *in, VipsImage **out, const char *output_profile, const char *input_profile,
                            VipsIntent intent);

/// vips_cast to `format`.
int CVipsShim_cast(VipsImage *in, VipsImage **out, VipsBandFormat format);

/// vips_flatten onto a background of `n` values.
int CVipsShim_flatten(VipsImage *in, VipsImage **out, const double *background, int n);

/// vips_subtract.
int CVipsShim_subtract(VipsImage *left, VipsImage *right, VipsImage **out);

/// vips_abs.
int CVipsShim_abs(VipsImage *in, VipsImage **out);

/// vips_avg.
int CVipsShim_avg(VipsImage *in, double *out);

/// vips_getpoint: `*vector` is g_malloc'd, free it with g_free.
int CVipsShim_getpoint(VipsImage *in, double **vector, int *n, int x, int y);

/// vips_resize with Lanczos3 (the default kernel), separate vertical scale.
int CVipsShim_resize(VipsImage *in, VipsImage **out, double scale, double vscale);

/// vips_affine by the matrix `matrix` (a, b, c, d: output = matrix x (input + (idx, idy)) +
/// (odx, ody), pixel centres at whole coordinates), computing only the output box `area`
/// (left, top, width, height); bicubic (else bilinear) interpolation; outside the input, the
/// `n` values of `background`, or the nearest edge pixel when `background` is NULL.
int CVipsShim_affine_area(VipsImage *in, VipsImage **out, const double *matrix, double idx, double idy, double odx,
                          double ody, const int *area, int bicubic, const double *background, int n);

/// vips_affine scaling by `a` across and `d` down, input displaced by `idx`, `idy`, with the
/// bicubic interpolator and edges extended by copying (fixed: bicubic, extend=copy).
int CVipsShim_affine_bicubic(VipsImage *in, VipsImage **out, double a, double d, double idx, double idy);

/// vips_reduce by `hshrink` across and `vshrink` down with Lanczos3 (the default kernel).
int CVipsShim_reduce(VipsImage *in, VipsImage **out, double hshrink, double vshrink);

/// vips_extract_band: `n` bands from `band`.
int CVipsShim_extract_band(VipsImage *in, VipsImage **out, int band, int n);

/// vips_jpegsave_buffer.
int CVipsShim_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, gboolean interlace,
                              VipsForeignSubsample subsample, gboolean optimize_coding, gboolean strip);

/// vips_pngsave_buffer; the Paeth row filter unless `palette` (the filter the fast path's
/// libpng encoder uses too).
int CVipsShim_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression, gboolean palette, int quality,
                             gboolean strip);

/// vips_webpsave_buffer.
int CVipsShim_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, gboolean lossless, int effort,
                              gboolean strip);

/// vips_heifsave_buffer with AV1 compression (AVIF).
int CVipsShim_heifsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, int effort, gboolean strip);

/// vips_extract_area.
int CVipsShim_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height);

/// vips_embed with `extend` and a background of `n` values.
int CVipsShim_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height, VipsExtend extend,
                    const double *background, int n);

/// vips_rotate by any angle (degrees, clockwise), new pixels from `background`.
int CVipsShim_rotate(VipsImage *in, VipsImage **out, double angle, const double *background, int n);

/// vips_rot: an exact quarter, half or three-quarter turn (`angle` a VipsAngle).
int CVipsShim_rot(VipsImage *in, VipsImage **out, VipsAngle angle);

/// vips_recomb with a `rows` x `columns` matrix given row by row.
int CVipsShim_recomb(VipsImage *in, VipsImage **out, const double *matrix, int rows, int columns);

/// vips_linear: out = a * in + b per band (`n` values each); uchar output when asked.
int CVipsShim_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n, gboolean uchar);

/// vips_xyz: a two-band image whose pixels hold their own coordinates.
int CVipsShim_xyz(VipsImage **out, int width, int height);

/// vips_multiply.
int CVipsShim_multiply(VipsImage *left, VipsImage *right, VipsImage **out);

/// vips_bandmean.
int CVipsShim_bandmean(VipsImage *in, VipsImage **out);
/// Where vips_smartcrop's attention measure centres a `width` x `height` crop of `in`: the
/// centre of attention in `in`'s pixels (the crop itself is dropped).
int CVipsShim_attention_centre(VipsImage *in, int width, int height, int *x, int *y);

/// vips_copy setting the resolution (pixels per millimetre).
int CVipsShim_copy_resolution(VipsImage *in, VipsImage **out, double xres, double yres);

/// vips_svgload_buffer at `scale` (trusted input only: our own frame art).
int CVipsShim_svgload_buffer(void *buf, size_t len, VipsImage **out, double scale);

/// vips_tiffsave_buffer with deflate compression and resolution in inches.
int CVipsShim_tiffsave_buffer(VipsImage *in, void **buf, size_t *len, gboolean strip);

/// vips_ifthenelse with `blend`: in1 x c/255 + in2 x (1 - c/255) per pixel (8-bit fast path).
int CVipsShim_ifthenelse_blend(VipsImage *cond, VipsImage *in1, VipsImage *in2, VipsImage **out);

/// vips_black: `bands` bands of zeros.
int CVipsShim_black(VipsImage **out, int width, int height, int bands);

/// vips_draw_rect filled with `ink` (`n` values): draws into `image` in place.
int CVipsShim_draw_rect(VipsImage *image, const double *ink, int n, int left, int top, int width, int height);

/// vips_find_trim: the bounding box of pixels differing from `background` by more than
/// `threshold`.
int CVipsShim_find_trim(VipsImage *in, int *left, int *top, int *width, int *height, const double *background, int n,
                        double threshold);

/// vips_bandjoin_const1: one more band of `value` (an opaque alpha band: 255).
int CVipsShim_bandjoin_const1(VipsImage *in, VipsImage **out, double value);

/// vips_gaussblur with standard deviation `sigma`.
int CVipsShim_gaussblur(VipsImage *in, VipsImage **out, double sigma);

/// vips_gifsave_buffer (cgif): every page of an animation, its delays and loop count.
int CVipsShim_gifsave_buffer(VipsImage *in, void **buf, size_t *len, int effort, gboolean strip);

/// vips_image_get_n_pages: the pages (frames) the file holds (1 for a still image).
int CVipsShim_n_pages(VipsImage *image);

/// vips_image_get_page_height: the height of one page of a multi-page image.
int CVipsShim_page_height(VipsImage *image);

/// Each of the `pages` pages (`page_height` rows each) of `in` cut to the box (`left`, `top`,
/// `width`, `height`), placed at (`x`, `y`) on a `canvas_width` x `canvas_height` canvas of
/// `background` (`n` values; no canvas when it is the box's size), joined again as pages
/// (vips_extract_area, vips_embed, vips_arrayjoin; `page-height` set).
int CVipsShim_reframe_pages(VipsImage *in, VipsImage **out, int pages, int page_height, int left, int top, int width,
                            int height, int x, int y, int canvas_width, int canvas_height, const double *background,
                            int n);

#endif
