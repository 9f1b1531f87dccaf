"""400x300 `cover` thumbnails with Pillow (or Pillow-SIMD, same code), two worker processes:
draft() for JPEG DCT scaling, EXIF orientation, ImageOps.fit (centre crop + Lanczos), JPEG q85.
usage: python3 pillow_cover.py OUTDIR WIDTH HEIGHT PHOTO..."""
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageOps


def thumb(path):
    width, height = int(sys.argv[2]), int(sys.argv[3])
    with Image.open(path) as image:
        image.draft("RGB", (width * 2, height * 2))
        image = ImageOps.exif_transpose(image)
        name = os.path.splitext(os.path.basename(path))[0]
        ImageOps.fit(image, (width, height), Image.LANCZOS).save(
            os.path.join(sys.argv[1], name + ".jpg"), "JPEG", quality=85)


if __name__ == "__main__":
    with Pool(2) as pool:
        pool.map(thumb, sys.argv[4:], chunksize=1)
