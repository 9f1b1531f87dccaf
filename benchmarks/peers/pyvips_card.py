"""The postcard work with pyvips (the same libvips), two worker processes: thumbnail with
centre crop to 1748x1240 (shrink-on-load, auto-orient), sepia recomb, frame composite,
JPEG q90 (libvips uses 4:4:4 from q90). usage: python3 pyvips_card.py FRAME.png OUTDIR PHOTO..."""
import os
import sys
from multiprocessing import Pool

import pyvips

SEPIA = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
frame = None


def start(path):
    global frame
    pyvips.cache_set_max(0)
    frame = pyvips.Image.new_from_file(path).copy_memory()


def card(path):
    image = pyvips.Image.thumbnail(path, 1748, height=1240, crop="centre")
    image = image.colourspace("srgb")[:3].recomb(pyvips.Image.new_from_array(SEPIA)).cast("uchar")
    image = image.composite2(frame, "over").flatten()
    name = os.path.splitext(os.path.basename(path))[0]
    image.jpegsave(os.path.join(sys.argv[2], name + ".jpg"), Q=90, strip=True)


if __name__ == "__main__":
    with Pool(2, initializer=start, initargs=(sys.argv[1],)) as pool:
        pool.map(card, sys.argv[3:], chunksize=1)
