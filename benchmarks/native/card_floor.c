// The card floor: what no renderer can skip, in process. For each JPEG: decode with
// libjpeg-turbo at the smallest DCT scale that still covers the print (1748 x 1240, either
// way round), encode a print-sized region (q90 4:4:4, 300 dpi) and a sample-sized one
// (800 px, q85 4:2:0, optimised tables). No resampling, effect, frame or PNG.
// usage: card_floor OUTDIR PHOTO.jpg...     (benchmarks/cards.sh and targets.sh build it)
#include <stdio.h>
#include <jpeglib.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(*size);
    if (fread(bytes, 1, *size, f) != *size) { free(bytes); bytes = NULL; }
    fclose(f);
    return bytes;
}

static void encode(const char *path, const unsigned char *pixels, int stride, int width, int height, int quality,
                   int full_chroma, int optimise, int dpi) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    unsigned char *out = NULL;
    unsigned long out_size = 0;
    jpeg_mem_dest(&c, &out, &out_size);
    c.image_width = width;
    c.image_height = height;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    if (full_chroma) c.comp_info[0].h_samp_factor = c.comp_info[0].v_samp_factor = 1;
    c.optimize_coding = optimise;
    if (dpi) { c.density_unit = 1; c.X_density = c.Y_density = dpi; }
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)c.next_scanline * stride);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    FILE *f = fopen(path, "wb");
    fwrite(out, 1, out_size, f);
    fclose(f);
    free(out);
}

int main(int argc, char **argv) {
    for (int i = 2; i < argc; i++) {
        size_t size;
        unsigned char *bytes = read_all(argv[i], &size);
        if (!bytes) { fprintf(stderr, "cannot read %s\n", argv[i]); return 1; }
        struct jpeg_decompress_struct d;
        struct jpeg_error_mgr e;
        d.err = jpeg_std_error(&e);
        jpeg_create_decompress(&d);
        jpeg_mem_src(&d, bytes, size);
        jpeg_read_header(&d, TRUE);
        int long_side = d.image_width > d.image_height ? d.image_width : d.image_height;
        int short_side = d.image_width > d.image_height ? d.image_height : d.image_width;
        int denom = 1;
        while (denom < 8 && long_side / (denom * 2) >= 1748 && short_side / (denom * 2) >= 1240) denom *= 2;
        d.scale_num = 1;
        d.scale_denom = denom;
        d.out_color_space = JCS_RGB;
        jpeg_start_decompress(&d);
        int width = d.output_width, height = d.output_height, stride = width * 3;
        unsigned char *pixels = malloc((size_t)stride * height);
        while (d.output_scanline < d.output_height) {
            JSAMPROW row = pixels + (size_t)d.output_scanline * stride;
            jpeg_read_scanlines(&d, &row, 1);
        }
        jpeg_finish_decompress(&d);
        jpeg_destroy_decompress(&d);
        const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        char path[4096];
        int print_w = width < 1748 ? width : 1748, print_h = height < 1240 ? height : 1240;
        snprintf(path, sizeof path, "%s/%s.print.jpg", argv[1], base);
        encode(path, pixels, stride, print_w, print_h, 90, 1, 0, 300);
        int sample_w = width < 800 ? width : 800, sample_h = height < 567 ? height : 567;
        snprintf(path, sizeof path, "%s/%s.sample.jpg", argv[1], base);
        encode(path, pixels, stride, sample_w, sample_h, 85, 0, 1, 0);
        free(pixels);
        free(bytes);
    }
    return 0;
}
