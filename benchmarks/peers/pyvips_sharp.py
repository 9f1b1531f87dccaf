"""sharp's published workload with pyvips (same libvips, Python in front), in process:
decode 2725x2225 JPEG from memory, resize to 720x588 (Lanczos3), encode JPEG q80
(optimised Huffman coding and no metadata, as cardrender and sharp write by default).
Prints operations per second over SECONDS. usage: python3 pyvips_sharp.py INPUT SECONDS"""
import sys
import time

import pyvips

pyvips.cache_set_max(0)
data = open(sys.argv[1], "rb").read()
seconds = float(sys.argv[2])
count = 0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    image = pyvips.Image.thumbnail_buffer(data, 720, height=588, size="force")
    # The same encode as cardrender (and sharp) by default: optimised Huffman tables, no metadata.
    image.write_to_buffer(".jpg", Q=80, optimize_coding=True, strip=True)
    count += 1
elapsed = time.perf_counter() - start
print(f"{count / elapsed:.1f}")
