// Encodes binary PPM images as PNG with libpng at each zlib level and row-filter set the fast
// path could use, and prints total bytes and median time per set (benchmarks/png-settings.sh).
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { int width, height; unsigned char *pixels; } image;
typedef struct { unsigned char *bytes; size_t size, capacity; } sink;

static void on_write(png_structp png, png_bytep data, size_t length) {
    sink *out = png_get_io_ptr(png);
    if (out->size + length > out->capacity) {
        out->capacity = (out->size + length) * 2;
        out->bytes = realloc(out->bytes, out->capacity);
        if (!out->bytes) abort();
    }
    memcpy(out->bytes + out->size, data, length);
    out->size += length;
}
static void on_flush(png_structp png) { (void)png; }

static size_t encode(const image *im, int level, int filters, sink *out) {
    out->size = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) abort();
    png_set_write_fn(png, out, on_write, on_flush);
    png_set_IHDR(png, info, im->width, im->height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    png_write_info(png, info);
    for (int y = 0; y < im->height; y++) png_write_row(png, im->pixels + (size_t)y * im->width * 3);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return out->size;
}

/// The next number of a PPM header, skipping white space and `#` comments.
static int header_number(FILE *f) {
    int c = fgetc(f);
    while (c == '#' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        if (c == '#') while (c != '\n' && c != EOF) c = fgetc(f);
        c = fgetc(f);
    }
    int value = 0;
    while (c >= '0' && c <= '9') { value = value * 10 + (c - '0'); c = fgetc(f); }
    return value;  // the one white-space byte after it is consumed
}

static int read_ppm(const char *path, image *im) {
    FILE *f = fopen(path, "rb");
    if (!f || fgetc(f) != 'P' || fgetc(f) != '6') return -1;
    im->width = header_number(f);
    im->height = header_number(f);
    if (header_number(f) != 255 || im->width <= 0 || im->height <= 0) return -1;
    size_t n = (size_t)im->width * im->height * 3;
    im->pixels = malloc(n);
    int ok = fread(im->pixels, 1, n, f) == n;
    fclose(f);
    return ok ? 0 : -1;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int count = argc - 1;
    image *images = calloc(count, sizeof(image));
    for (int i = 0; i < count; i++)
        if (read_ppm(argv[i + 1], &images[i])) { fprintf(stderr, "cannot read %s\n", argv[i + 1]); return 1; }
    const int levels[] = {1, 3, 6, 9};
    const struct { const char *name; int flags; } sets[] = {
        {"none", PNG_FILTER_NONE}, {"sub", PNG_FILTER_SUB}, {"paeth", PNG_FILTER_PAETH}, {"all (adaptive)", PNG_ALL_FILTERS}};
    sink out = {0};
    printf("| zlib level | filters | bytes (%d images) | median ms per set | vs level 6 none (bytes, time) |\n", count);
    printf("| ---: | --- | ---: | ---: | ---: |\n");
    size_t base_bytes = 0;
    double base_time = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int l = 0; l < 4; l++)
            for (int s = 0; s < 4; s++) {
                if ((pass == 0) != (levels[l] == 6 && sets[s].flags == PNG_FILTER_NONE)) continue;
                double times[15];
                size_t bytes = 0;
                for (int run = 0; run < 15; run++) {
                    double start = now();
                    bytes = 0;
                    for (int i = 0; i < count; i++) bytes += encode(&images[i], levels[l], sets[s].flags, &out);
                    times[run] = now() - start;
                }
                qsort(times, 15, sizeof(double), compare);
                double median = times[7] * 1000;
                if (pass == 0) { base_bytes = bytes; base_time = median; }
                printf("| %d | %s | %zu | %.2f | %.2fx, %.2fx |\n", levels[l], sets[s].name, bytes, median,
                       (double)bytes / base_bytes, median / base_time);
            }
    return 0;
}
