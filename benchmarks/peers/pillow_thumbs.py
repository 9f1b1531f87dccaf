"""A directory of thumbnails with Pillow (or Pillow-SIMD, same code), two worker processes:
draft() for JPEG DCT scaling, EXIF orientation, Lanczos resize to WIDTH, PNG.
usage: python3 pillow_thumbs.py OUTDIR WIDTH PHOTO..."""
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageOps


def thumb(path):
    width = int(sys.argv[2])
    with Image.open(path) as image:
        image.draft("RGB", (width * 2, width * 2))
        image = ImageOps.exif_transpose(image)
        height = max(1, round(image.height * width / image.width))
        name = os.path.splitext(os.path.basename(path))[0]
        image.resize((width, height), Image.LANCZOS).save(os.path.join(sys.argv[1], name + ".png"), "PNG")


if __name__ == "__main__":
    with Pool(2) as pool:
        pool.map(thumb, sys.argv[3:], chunksize=1)
