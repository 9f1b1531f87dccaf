#include "CColourTransform.h"

#include <lcms2.h>
#include <lcms2_plugin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct CColourTransform {
    /// lcms2's transform: always made, used for every profile that is not matrix-shaper.
    cmsHTRANSFORM transform;
    /// 1 when both profiles are matrix-shaper and the tables below replace `transform`.
    int matrix_shaper;
    /// For sRGB -> CMYK: the most total ink allowed, in units of 1/255 of 100 % (0: not CMYK).
    int ink_limit;
    /// The input's tone curves: 8-bit code -> linear light, 0...1.
    float to_linear[3][256];
    /// Linear input RGB -> linear sRGB: the output's inverse matrix times the input's.
    float matrix[3][3];
    /// Linear sRGB in 1/16383 steps -> 8-bit sRGB code (16 KB: it stays in L1 beside the
    /// input tables; 14 bits keep sRGB's first steps, 0.00015 apart, two entries wide).
    uint8_t to_code[16384];
};

/// The tables of a matrix-shaper transform, made from lcms2's reading of both profiles: the
/// input's curves and colorants (its RGB -> XYZ D50 matrix), the output's matrix inverted and
/// its curves reversed. Relative colorimetric between two matrix-shaper profiles is exactly
/// this (both colorant sets are adapted to D50), which is what lcms2 itself computes.
///
/// Why by hand: lcms2 applies such a transform through its general per-pixel machinery
/// (unpack, evaluate, pack: 12 ns a pixel here, 23 % of a Display P3 card, perf); the same
/// arithmetic as three lookups, nine multiply-adds and three lookups is a few ns.
/// Returns 0, or -1 when either profile is not matrix-shaper or a tag is missing.
static int make_matrix_shaper(CColourTransform *made, cmsHPROFILE input, cmsHPROFILE output) {
    if (!cmsIsMatrixShaper(input) || !cmsIsMatrixShaper(output)) return -1;
    static const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    static const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    cmsMAT3 in_matrix, out_matrix, out_inverse, combined;
    for (int channel = 0; channel < 3; channel++) {
        const cmsCIEXYZ *in_xyz = cmsReadTag(input, colorants[channel]);
        const cmsCIEXYZ *out_xyz = cmsReadTag(output, colorants[channel]);
        const cmsToneCurve *curve = cmsReadTag(input, curves[channel]);
        if (!in_xyz || !out_xyz || !curve) return -1;
        in_matrix.v[0].n[channel] = in_xyz->X;
        in_matrix.v[1].n[channel] = in_xyz->Y;
        in_matrix.v[2].n[channel] = in_xyz->Z;
        out_matrix.v[0].n[channel] = out_xyz->X;
        out_matrix.v[1].n[channel] = out_xyz->Y;
        out_matrix.v[2].n[channel] = out_xyz->Z;
        for (int code = 0; code < 256; code++)
            made->to_linear[channel][code] = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)(code / 255.0));
    }
    if (!_cmsMAT3inverse(&out_matrix, &out_inverse)) return -1;
    _cmsMAT3per(&combined, &out_inverse, &in_matrix);
    for (int row = 0; row < 3; row++)
        for (int column = 0; column < 3; column++)
            made->matrix[row][column] = (float)combined.v[row].n[column];
    // The output is lcms2's sRGB, whose three curves are one: the red one serves all three.
    // Code c covers the linear values between the curve at c - 0.5 and at c + 0.5, so the
    // table is filled from 256 evaluations of the curve (not 16384 of its inverse).
    const cmsToneCurve *out_curve = cmsReadTag(output, cmsSigRedTRCTag);
    if (!out_curve) return -1;
    int step = 0;
    for (int code = 0; code < 256; code++) {
        float upper = code == 255 ? 2.0f : cmsEvalToneCurveFloat(out_curve, (cmsFloat32Number)((code + 0.5) / 255.0));
        for (; step < 16384 && step / 16383.0f < upper; step++)
            made->to_code[step] = (uint8_t)code;
    }
    made->matrix_shaper = 1;
    return 0;
}

/// Where lcms2's error text goes while a transform is made on this thread (the profile is
/// parsed under the caller's lcms2 context, whose logger writes here).
static _Thread_local char *error_text;
static _Thread_local size_t error_size;

static void log_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    if (error_text && error_size && !error_text[0]) snprintf(error_text, error_size, "%s", text);
}

/// Makes a transform between the profile `icc` and lcms2's sRGB: from it to sRGB (an RGB
/// profile, relative colorimetric, with the matrix-shaper tables when both allow), or, with
/// `ink_limit` (percent, above 0), from sRGB to it (a CMYK output profile, relative
/// colorimetric with black point compensation). NULL with the reason in `message`.
static CColourTransform *make(const uint8_t *icc, size_t size, int ink_limit, char *message, size_t message_size) {
    if (message_size) message[0] = 0;
    const int to_cmyk = ink_limit > 0;
    error_text = message;
    error_size = message_size;
    cmsContext context = cmsCreateContext(NULL, NULL);
    CColourTransform *made = NULL;
    cmsHPROFILE given = NULL, srgb = NULL;
    if (!context) {
        snprintf(message, message_size, "lcms2: out of memory");
        goto done;
    }
    cmsSetLogErrorHandlerTHR(context, log_error);
    given = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)size);
    if (!given) {
        if (message_size && !message[0]) snprintf(message, message_size, "lcms2 cannot read the profile");
        goto done;
    }
    if (!to_cmyk && cmsGetColorSpace(given) != cmsSigRgbData) {
        snprintf(message, message_size, "not an RGB profile");
        goto done;
    }
    if (to_cmyk && (cmsGetColorSpace(given) != cmsSigCmykData || cmsGetDeviceClass(given) != cmsSigOutputClass)) {
        snprintf(message, message_size, "not a CMYK output (printer) profile");
        goto done;
    }
    srgb = cmsCreate_sRGBProfileTHR(context);
    // The transform copies what it needs of the profiles (closed below); it keeps the
    // context, which is freed with it.
    cmsHTRANSFORM transform =
        to_cmyk ? cmsCreateTransformTHR(context, srgb, TYPE_RGB_8, given, TYPE_CMYK_8, INTENT_RELATIVE_COLORIMETRIC,
                                        cmsFLAGS_NOCACHE | cmsFLAGS_BLACKPOINTCOMPENSATION)
                : cmsCreateTransformTHR(context, given, TYPE_RGB_8, srgb, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC,
                                        cmsFLAGS_NOCACHE);
    if (!transform) {
        if (message_size && !message[0]) snprintf(message, message_size, "lcms2 cannot make the transform");
        goto done;
    }
    made = calloc(1, sizeof *made);
    if (!made) {
        cmsDeleteTransform(transform);
        snprintf(message, message_size, "out of memory");
        goto done;
    }
    made->transform = transform;
    made->ink_limit = to_cmyk ? (ink_limit * 255) / 100 : 0;
    if (!to_cmyk) make_matrix_shaper(made, given, srgb);
    context = NULL; // owned by the transform from here on (freed in CColourTransform_free)
done:
    if (given) cmsCloseProfile(given);
    if (srgb) cmsCloseProfile(srgb);
    if (context) cmsDeleteContext(context);
    error_text = NULL;
    error_size = 0;
    return made;
}

CColourTransform *CColourTransform_make_to_srgb(const uint8_t *icc, size_t size, char *message, size_t message_size) {
    return make(icc, size, 0, message, message_size);
}

void CColourTransform_apply(const CColourTransform *transform, const uint8_t *input, uint8_t *output, size_t pixels) {
    if (!transform->matrix_shaper) {
        cmsDoTransform(transform->transform, input, output, (cmsUInt32Number)pixels);
        return;
    }
    // Everything the loop reads of `transform` is copied to locals first: `output` is a byte
    // pointer, which may alias anything, so the compiler would reload them after every store.
    const float m00 = transform->matrix[0][0], m01 = transform->matrix[0][1], m02 = transform->matrix[0][2];
    const float m10 = transform->matrix[1][0], m11 = transform->matrix[1][1], m12 = transform->matrix[1][2];
    const float m20 = transform->matrix[2][0], m21 = transform->matrix[2][1], m22 = transform->matrix[2][2];
    const float *red = transform->to_linear[0], *green = transform->to_linear[1], *blue = transform->to_linear[2];
    const uint8_t *code = transform->to_code;
    for (size_t index = 0; index < pixels; index++, input += 3, output += 3) {
        const float r = red[input[0]], g = green[input[1]], b = blue[input[2]];
        const int i0 = (int)fminf(fmaxf((m00 * r + m01 * g + m02 * b) * 16383.0f + 0.5f, 0.0f), 16383.0f);
        const int i1 = (int)fminf(fmaxf((m10 * r + m11 * g + m12 * b) * 16383.0f + 0.5f, 0.0f), 16383.0f);
        const int i2 = (int)fminf(fmaxf((m20 * r + m21 * g + m22 * b) * 16383.0f + 0.5f, 0.0f), 16383.0f);
        const uint8_t o0 = code[i0], o1 = code[i1], o2 = code[i2];
        output[0] = o0;
        output[1] = o1;
        output[2] = o2;
    }
}

int CColourTransform_is_matrix_shaper(const CColourTransform *transform) { return transform->matrix_shaper; }

void CColourTransform_apply_lcms2(const CColourTransform *transform, const uint8_t *input, uint8_t *output,
                                  size_t pixels) {
    cmsDoTransform(transform->transform, input, output, (cmsUInt32Number)pixels);
}

CColourTransform *CColourTransform_make_srgb_to_cmyk(const uint8_t *icc, size_t size, int ink_limit, char *message,
                                                     size_t message_size) {
    if (ink_limit < 100 || ink_limit > 400) {
        if (message_size)
            snprintf(message, message_size, "an ink limit of %d %% is not between 100 and 400 %%", ink_limit);
        return NULL;
    }
    return make(icc, size, ink_limit, message, message_size);
}

void CColourTransform_apply_cmyk(const CColourTransform *transform, const uint8_t *input, uint8_t *output,
                                 size_t pixels) {
    cmsDoTransform(transform->transform, input, output, (cmsUInt32Number)pixels);
    const int limit = transform->ink_limit;
    for (size_t index = 0; index < pixels; index++, output += 4) {
        const int colour = output[0] + output[1] + output[2], black = output[3];
        if (colour + black <= limit) continue;
        // Cyan, magenta and yellow scaled by what the limit leaves them, rounded down, so the
        // total is within the limit; black, which carries the picture's shadows, is kept.
        const int room = limit - black > 0 ? limit - black : 0;
        for (int channel = 0; channel < 3; channel++)
            output[channel] = (uint8_t)(output[channel] * room / colour);
    }
}

void CColourTransform_free(CColourTransform *transform) {
    if (!transform) return;
    cmsContext context = cmsGetTransformContextID(transform->transform);
    cmsDeleteTransform(transform->transform);
    cmsDeleteContext(context);
    free(transform);
}
