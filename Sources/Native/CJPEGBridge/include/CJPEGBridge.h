// CJPEGBridge: JPEG decode and encode straight through libjpeg-turbo, for the fast path.
//
// Why this exists: libvips 8.14 costs a card ~40 ms more than libjpeg-turbo alone would
// (benchmarks/RESULTS.md), and libjpeg's API is setjmp/longjmp-based, which Swift cannot
// call safely: its default error handler calls exit(), which would kill a whole batch or
// server for one damaged photo. Every function here installs an error manager that
// longjmps back into the function, which then frees what it made and returns -1 with
// libjpeg's message. Nothing else: no policy, no pixels touched but libjpeg's.
#ifndef CJPEGBRIDGE_H
#define CJPEGBRIDGE_H

#include <stddef.h>
#include <stdint.h>

/// What a JPEG's header says, read without decoding any pixel.
typedef struct {
    int width;       ///< stored width
    int height;      ///< stored height
    int components;  ///< 1 (grey), 3 (YCbCr or RGB) or 4 (CMYK, YCCK)
    int color_space; ///< libjpeg's J_COLOR_SPACE of the file
    int orientation; ///< EXIF orientation 1...8 (1 when absent or unreadable)
    int progressive; ///< 1 for progressive (multi-scan) files
    int has_icc;     ///< 1 when an ICC profile is embedded
    int icc_is_srgb; ///< 1 when that profile describes itself as sRGB
    int icc_is_rgb;  ///< 1 when that profile's colour space is RGB (header bytes 16-19)
} CJPEGBridge_info;

/// Reads the header (markers included) of `size` bytes at `data`.
/// Returns 0, or -1 with libjpeg's message in `message` (`message_size` bytes).
int CJPEGBridge_read_info(const uint8_t *data, size_t size, CJPEGBridge_info *info, char *message, size_t message_size);

/// The embedded ICC profile (APP2 chunks joined) of `size` bytes at `data`, malloc'd into
/// `*icc` (free it with free()), `*icc_size` long; `*icc` NULL when there is none.
/// Returns 0, or -1 with libjpeg's message.
int CJPEGBridge_read_icc(const uint8_t *data, size_t size, uint8_t **icc, unsigned *icc_size, char *message,
                         size_t message_size);

/// Decodes to 8-bit RGB at 1/`scale_denom` of the stored size (1, 2, 4 or 8: libjpeg's
/// scaled IDCT), stored orientation, rows `first_row` ..< `first_row + row_count` of the
/// scaled image (row_count 0: to the end). The pixels are malloc'd into `*pixels` (free them
/// with free()), `*width` x `*height` x 3, rows packed.
///
/// `strict` 1: any libjpeg warning (truncation, corrupt data) is an error; the rows after
/// the last wanted one are still read (entropy-decoded, not IDCT'd) so that damage anywhere
/// is found, as a full decode would. `strict` 0: warnings are counted in `*warnings` and
/// the first one's text is left in `message`.
/// Returns 0, or -1 with libjpeg's message.
int CJPEGBridge_decode_rgb(const uint8_t *data, size_t size, int scale_denom, int strict, int first_row, int row_count,
                           uint8_t **pixels, int *width, int *height, int *warnings, char *message,
                           size_t message_size);

/// Encodes 8-bit RGB (`stride` bytes a row) as a baseline JPEG at `quality`, chroma 4:4:4
/// when `full_chroma` else 4:2:0, optimised Huffman tables when `optimize`, with a JFIF
/// header giving `dpi` dots per inch (0: no density, aspect 1:1). The bytes are malloc'd
/// into `*output` (free with free()), `*output_size` long.
/// Returns 0, or -1 with libjpeg's message.
/// `limit` bounds the output in bytes (0: none): an encode that would pass it fails with an
/// error, after its buffer has grown (what the tests use to reach that error path).
int CJPEGBridge_encode_rgb(const uint8_t *pixels, int width, int height, size_t stride, int quality, int full_chroma,
                           int optimize, int dpi, size_t limit, uint8_t **output, size_t *output_size, char *message,
                           size_t message_size);

/// Encodes `width` x `height` CMYK pixels (4 bytes each, rows packed; 0 is no ink, 255 full
/// ink) as a baseline JPEG at full resolution in every plane, stored the way Adobe's
/// programs store CMYK (inverted: 255 no ink, with the Adobe marker), so a PDF places it
/// with `/Decode [1 0 1 0 1 0 1 0]`. No density is written (it lives in the JFIF header,
/// which a CMYK JPEG has not; a PDF places the image by its own matrix). Standard Huffman
/// tables, as the RGB print (optimised ones cost 2 to 3 times the encode time). Returns 0, or -1 with libjpeg's
/// message.
int CJPEGBridge_encode_cmyk(const uint8_t *pixels, int width, int height, int quality, uint8_t **output,
                            size_t *output_size, char *message, size_t message_size);

/// Decodes a 4-component (CMYK or YCCK) JPEG to its CMYK samples as stored, 4 bytes a
/// pixel, no inversion (a PDF's `/Decode` says how to read them; Adobe's programs store
/// 255 as no ink), at 1/`scale_denom` (1, 2, 4 or 8: libjpeg's DCT scaling, each pixel
/// then close to the mean of its block). Strict: any corrupt-data warning fails it.
/// Refuses more than `max_pixels` pixels (full size) before allocating. The pixels are
/// malloc'd (free with free()). Returns 0, or -1 with libjpeg's message.
int CJPEGBridge_decode_cmyk(const uint8_t *data, size_t size, int scale_denom, size_t max_pixels, uint8_t **pixels,
                            int *width, int *height, char *message, size_t message_size);

/// A decode in progress, row by row (the fast executor's streaming path): open, read or
/// skip rows in order, finish, close. After any call returns -1, only close is valid; the
/// error text is in `CJPEGBridge_decoder_message`.
typedef struct CJPEGBridge_decoder CJPEGBridge_decoder;

/// Starts decoding `size` bytes at `data` (kept by the caller until close) to 8-bit RGB at
/// 1/`scale_denom`, `strict` as for `CJPEGBridge_decode_rgb`. Sets the scaled size.
/// Returns the decoder (close it even when `*failed`), or NULL when out of memory; `*failed`
/// is 1 when libjpeg refused the data (the message says why).
CJPEGBridge_decoder *CJPEGBridge_decoder_open(const uint8_t *data, size_t size, int scale_denom, int strict, int *width,
                                              int *height, int *failed);

/// Reads the next `count` rows into `rows` (`stride` bytes apart). Returns the rows read
/// (fewer at the end of the image), or -1.
int CJPEGBridge_decoder_read(CJPEGBridge_decoder *decoder, uint8_t *rows, size_t stride, int count);

/// Skips the next `count` rows (entropy-decoded, not IDCT'd). Returns 0, or -1.
int CJPEGBridge_decoder_skip(CJPEGBridge_decoder *decoder, int count);

/// Ends the decode: strict, the rows left are read too (damage anywhere fails, as a whole
/// decode would). Sets the warnings counted. Returns 0, or -1.
int CJPEGBridge_decoder_finish(CJPEGBridge_decoder *decoder, int *warnings);

/// libjpeg's first warning or its error, NUL-terminated ("" when none).
const char *CJPEGBridge_decoder_message(const CJPEGBridge_decoder *decoder);

/// Frees the decoder.
void CJPEGBridge_decoder_close(CJPEGBridge_decoder *decoder);

/// An encode in progress, row by row: open, write rows in order, finish, close. After any
/// call returns -1, only close is valid.
typedef struct CJPEGBridge_encoder CJPEGBridge_encoder;

/// Starts a baseline JPEG of `width` x `height` RGB, settings as `CJPEGBridge_encode_rgb`.
/// Returns the encoder (close it even when `*failed`), or NULL when out of memory.
CJPEGBridge_encoder *CJPEGBridge_encoder_open(int width, int height, int quality, int full_chroma, int optimize,
                                              int dpi, size_t limit, int *failed);

/// Writes the next `count` rows from `rows` (`stride` bytes apart). Returns 0, or -1.
int CJPEGBridge_encoder_write(CJPEGBridge_encoder *encoder, const uint8_t *rows, size_t stride, int count);

/// Ends the encode and hands over the bytes (malloc'd: free them with free()). Returns 0, or -1.
int CJPEGBridge_encoder_finish(CJPEGBridge_encoder *encoder, uint8_t **output, size_t *output_size);

/// libjpeg's error, NUL-terminated ("" when none).
const char *CJPEGBridge_encoder_message(const CJPEGBridge_encoder *encoder);

/// Frees the encoder (and its bytes, unless finish handed them over).
void CJPEGBridge_encoder_close(CJPEGBridge_encoder *encoder);

#endif
