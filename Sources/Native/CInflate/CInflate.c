#include "CInflate.h"

#include <zlib.h>

size_t CInflate_inflated_length(const unsigned char *data, size_t length, size_t limit) {
    unsigned char scratch[64 * 1024];
    z_stream stream = {0};
    // 15 + 32: a zlib or a gzip header, told apart by zlib (a superset of what PDF readers take).
    if (inflateInit2(&stream, 15 + 32) != Z_OK) return limit + 1;
    size_t total = 0;
    size_t left = length;
    stream.next_in = (unsigned char *)data;
    while (total <= limit) {
        // avail_in is 32 bits: feed at most 1 GiB at a time.
        if (stream.avail_in == 0) {
            if (left == 0) break;
            stream.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
            left -= stream.avail_in;
        }
        stream.next_out = scratch;
        stream.avail_out = sizeof scratch;
        int status = inflate(&stream, Z_NO_FLUSH);
        total += sizeof scratch - stream.avail_out;
        if (status == Z_STREAM_END) {
            // Another stream may follow; count it too (an upper bound for any reader).
            if (stream.avail_in == 0 && left == 0) break;
            if (inflateReset(&stream) != Z_OK) break;
        } else if (status == Z_BUF_ERROR && stream.avail_in == 0) {
            continue; // this piece of input used up: the next one, or the end, above
        } else if (status != Z_OK) {
            break; // damage: what came out before it is the count
        }
    }
    inflateEnd(&stream);
    return total > limit ? limit + 1 : total;
}
