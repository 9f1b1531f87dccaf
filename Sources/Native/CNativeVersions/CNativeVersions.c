#include "CNativeVersions.h"

#include <stdio.h> // jpeglib.h needs FILE

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <hb.h>
#include <jpeglib.h>
#include <lcms2.h>
#include <libheif/heif_version.h>
#include <pango/pango.h>
#include <png.h>
#include <qpdf/DLL.h>
#include <zlib.h>
// librsvg (which draws the frames' SVG art inside libvips) allows only rsvg.h, which needs
// GdkPixbuf's headers: its version header alone, as rsvg.h would include it.
#define __RSVG_RSVG_H_INSIDE__
#include <librsvg/rsvg-version.h>

#define TEXT(value) #value
#define STRING(value) TEXT(value)

const char *CNativeVersions_string(void) {
    return "libjpeg-turbo " STRING(
        LIBJPEG_TURBO_VERSION) " libpng " PNG_LIBPNG_VER_STRING " zlib " ZLIB_VERSION
                               " lcms2 " STRING(
                                   LCMS_VERSION) " libheif " LIBHEIF_VERSION " pango " PANGO_VERSION_STRING
                                                 " cairo " CAIRO_VERSION_STRING " harfbuzz " HB_VERSION_STRING
                                                 " fontconfig " STRING(FC_MAJOR) "." STRING(FC_MINOR) "." STRING(
                                                     FC_REVISION) " librsvg " LIBRSVG_VERSION " libqpdf " QPDF_VERSION;
}
