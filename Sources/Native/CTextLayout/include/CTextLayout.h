#ifndef CTEXTLAYOUT_H
#define CTEXTLAYOUT_H

// Text layout and rasterisation with Pango and cairo, for the message side of a card.
//
// Why not libvips's `text`: a card must never print a box where a character should be,
// and only Pango knows which characters it could not draw (unknown glyphs carry their
// code point); libvips's `text` does not say. One layout here is measured, checked and
// drawn, so the line count, the coverage and the pixels all come from the same object.
// Every call holds one process-wide lock: a Pango font map is not safe to share between
// threads, and the messages are small. The fonts live in a fontconfig configuration of
// this target's own, so registering the message fonts never changes the process's default
// configuration while libvips or librsvg read it on another thread.

#include <stddef.h>
#include <stdint.h>

/// What a layout made (and, when drawn, the pixels).
typedef struct CTextLayout_Result {
    /// Lines as laid out: the text's own breaks plus wrapping.
    int lines;
    /// Characters drawn as Pango's hex box because no font of the chain has them.
    int unknown_glyphs;
    /// The first such character's code point (0 when none).
    uint32_t first_unknown;
    /// The byte offset and length in the text of the first line wider than the wrap
    /// width (a word that cannot be wrapped), or -1.
    int overflow_start, overflow_length;
    /// The logical size of the block in pixels (the wrap width when wrapping).
    int logical_width, logical_height;
    /// The drawn surface: the union of the ink and logical rectangles, so that swashes
    /// that overhang the logical box are never clipped.
    int width, height;
    /// Where the layout's origin (top left of the logical box) lies in the surface.
    int origin_x, origin_y;
    /// Straight (not premultiplied) RGBA, width * height * 4 bytes, malloc'd; NULL when
    /// the call only measured. Free with CTextLayout_free.
    unsigned char *pixels;
} CTextLayout_Result;

/// Registers a font file with this target's fontconfig configuration (once per file;
/// repeated calls are free). Returns 0, or -1 when fontconfig cannot read it.
int CTextLayout_add_font_file(const char *path);

/// Opens Pango, cairo and fontconfig (CLazyLibraries), once per process: 0, or -1 with
/// `*error` naming the library, or the function missing, and the cause.
int CTextLayout_load(const char **error);

/// Lays out `text` (UTF-8, plain text: never markup) in `font` (a Pango description: a
/// comma-separated family chain then a size in points) at `dpi`, wrapped by words at
/// `wrap_width` pixels (-1: no wrapping), lines aligned `align` (0 left, 1 centre, 2
/// right; mirrored for right-to-left paragraphs, as Pango does), paragraph directions
/// found from the text. With `draw`, renders it in `rgb` (0-255; colour glyphs such as
/// emoji keep their own colours). Returns 0, or -1 with a sentence in `error`.
int CTextLayout_run(const char *text, const char *font, int dpi, int wrap_width, int align, const double rgb[3],
                    int draw, CTextLayout_Result *result, char *error, size_t error_size);

/// A run of colour glyphs (emoji) drawn as an image, where no outline exists.
typedef struct CTextLayout_Image {
    /// The image's top left in the layout, in pixels (the layout's logical top left is 0, 0).
    double x, y;
    int width, height;
    /// Straight RGBA, width * height * 4 bytes.
    unsigned char *pixels;
} CTextLayout_Image;

/// A layout as outlines: what a PDF fills with one ink, plus the colour glyphs as images.
typedef struct CTextLayout_Outline {
    /// What the layout measured, as CTextLayout_run gives it (no pixels).
    CTextLayout_Result measures;
    /// Every glyph that has an outline, as PDF path-construction operators (`m`, `l`, `c`,
    /// `h`) in pixels, y down, the layout's logical top left at 0, 0; NULL when none.
    char *path;
    size_t path_length;
    /// The runs of colour glyphs, drawn.
    CTextLayout_Image *images;
    int image_count;
} CTextLayout_Outline;

/// Lays out `text` as CTextLayout_run does (same arguments, same layout, same checks) and
/// gives its glyphs as outlines instead of pixels. Returns 0, or -1 with a sentence in
/// `error`. Free with CTextLayout_free_outline.
int CTextLayout_outline(const char *text, const char *font, int dpi, int wrap_width, int align,
                        CTextLayout_Outline *outline, char *error, size_t error_size);

/// Frees an outline's path and images.
void CTextLayout_free_outline(CTextLayout_Outline *outline);

/// Frees the pixels of a result.
void CTextLayout_free(CTextLayout_Result *result);

#endif
