"""The postcard work with Pillow, two worker processes: auto-orient, cover-crop to
1748x1240 (Lanczos, draft() for JPEG DCT scaling), sepia matrix, frame composite, JPEG q90 4:4:4.
usage: python3 pillow_card.py FRAME.png OUTDIR PHOTO..."""
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageOps

SEPIA = (0.393, 0.769, 0.189, 0, 0.349, 0.686, 0.168, 0, 0.272, 0.534, 0.131, 0)
frame = None


def start(path):
    global frame
    frame = Image.open(path).convert("RGBA")


def card(path):
    with Image.open(path) as image:
        image.draft("RGB", (1748, 1240))
        image = ImageOps.exif_transpose(image).convert("RGB")
        image = ImageOps.fit(image, frame.size, Image.LANCZOS)
        image = image.convert("RGB", SEPIA)
        image = Image.alpha_composite(image.convert("RGBA"), frame).convert("RGB")
        name = os.path.splitext(os.path.basename(path))[0]
        image.save(os.path.join(sys.argv[2], name + ".jpg"), "JPEG", quality=90, subsampling=0)


if __name__ == "__main__":
    with Pool(2, initializer=start, initargs=(sys.argv[1],)) as pool:
        pool.map(card, sys.argv[3:], chunksize=1)
