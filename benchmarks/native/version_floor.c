// The start-up floor: a C program linking only libjpeg, printing its version (what
// `cardrender --version` is compared with in benchmarks/targets.sh).
#include <stdio.h>
#include <jpeglib.h>

int main(void) {
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr e;
    d.err = jpeg_std_error(&e);
    jpeg_create_decompress(&d);
    printf("libjpeg %d\n", JPEG_LIB_VERSION);
    jpeg_destroy_decompress(&d);
    return 0;
}
