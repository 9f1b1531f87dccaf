// CColourTransform: an embedded RGB colour profile to sRGB with lcms2, 8 bits in and out,
// for the fast path (Display P3 and other RGB profiles of phone photos); and sRGB to a
// press's CMYK output profile with its total ink held to the condition's limit.
//
// Why this exists: libvips converts such photos through floating-point Lab, image by image;
// lcms2's 8-bit transform (a matrix-shaper pipeline for P3) is made once per profile and
// applied to each decoded row. The error handling of lcms2 goes to a logger that this
// target keeps per thread, so a broken profile gives a message, not a line on stderr.
#ifndef CCOLOURTRANSFORM_H
#define CCOLOURTRANSFORM_H

#include <stddef.h>
#include <stdint.h>

/// A transform from one RGB profile to sRGB. Immutable once made and safe to apply from
/// several threads at once (made without lcms2's one-pixel cache).
typedef struct CColourTransform CColourTransform;

/// Makes the transform from the ICC profile `icc` (`size` bytes, an RGB input or display
/// profile) to lcms2's sRGB, relative colorimetric without black point compensation (what
/// libvips's `icc_transform` does). Returns NULL when lcms2 cannot read the profile or it is
/// not an RGB profile, with the reason in `message` (`message_size` bytes).
CColourTransform *CColourTransform_make_to_srgb(const uint8_t *icc, size_t size, char *message, size_t message_size);

/// Makes the transform from sRGB to the CMYK output profile `icc` (`size` bytes: a press
/// condition such as FOGRA39), relative colorimetric with black point compensation (what a
/// print shop's RIP does with RGB artwork), whose output's total ink (C + M + Y + K) is held
/// at `ink_limit` percent at most (`CColourTransform_apply_cmyk`). Returns NULL when lcms2
/// cannot read the profile or it is not a CMYK output profile, with the reason in `message`.
CColourTransform *CColourTransform_make_srgb_to_cmyk(const uint8_t *icc, size_t size, int ink_limit, char *message,
                                                     size_t message_size);

/// Converts `pixels` sRGB pixels (3 bytes each) at `input` to CMYK at `output` (4 bytes
/// each, 0 no ink to 255 full ink) through a transform of `CColourTransform_make_srgb_to_cmyk`.
/// A pixel whose total ink the profile's tables put above the limit (their interpolation
/// can overshoot by a few percent) has its cyan, magenta and yellow reduced in proportion
/// until it is within the limit; black is kept.
void CColourTransform_apply_cmyk(const CColourTransform *transform, const uint8_t *input, uint8_t *output,
                                 size_t pixels);

/// Converts `pixels` 8-bit RGB pixels from `input` to `output` (they may be the same).
void CColourTransform_apply(const CColourTransform *transform, const uint8_t *input, uint8_t *output, size_t pixels);

/// Whether the transform runs on its own matrix-shaper tables (both profiles matrix-shaper,
/// as Display P3 and sRGB are) rather than through lcms2's per-pixel pipeline.
int CColourTransform_is_matrix_shaper(const CColourTransform *transform);

/// Converts as `CColourTransform_apply`, always through lcms2 (what the tables are checked
/// against).
void CColourTransform_apply_lcms2(const CColourTransform *transform, const uint8_t *input, uint8_t *output,
                                  size_t pixels);

/// Frees the transform.
void CColourTransform_free(CColourTransform *transform);

#endif
