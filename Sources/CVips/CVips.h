// The libvips C API as one module for Swift (flags come from pkg-config `vips`).
#include <vips/vips.h>
