// Pango, cairo and fontconfig as one system module (flags from pkg-config `pangocairo
// fontconfig`, apt `libpango1.0-dev`): the C target CTextLayout lays out text with them.
#include <pango/pangocairo.h>
#include <fontconfig/fontconfig.h>
