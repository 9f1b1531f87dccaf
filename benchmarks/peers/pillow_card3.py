"""The three files of a card front with Pillow-SIMD (or Pillow), a pool of two processes,
as cardrender writes them: auto-orient, cover-crop to the print (1748x1240 either way
round, draft() for JPEG DCT scaling, Lanczos), sepia, frame composite; print JPEG q90 4:4:4
at 300 dpi; sample 800 px from the print, q85 4:2:0 optimised; small 200 px PNG from the
sample.
usage: python3 pillow_card3.py FRAME.png OUTDIR PHOTO..."""
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageOps

SEPIA = (0.393, 0.769, 0.189, 0, 0.349, 0.686, 0.168, 0, 0.272, 0.534, 0.131, 0)
frames = {}


def start(path):
    frame = Image.open(path).convert("RGBA")
    frames["landscape"] = frame
    frames["portrait"] = frame.rotate(90, expand=True)


def card(path):
    with Image.open(path) as image:
        image.draft("RGB", (1748, 1748))
        image = ImageOps.exif_transpose(image).convert("RGB")
        frame = frames["landscape" if image.width >= image.height else "portrait"]
        image = ImageOps.fit(image, frame.size, Image.LANCZOS)
        image = image.convert("RGB", SEPIA)
        image = Image.alpha_composite(image.convert("RGBA"), frame).convert("RGB")
        name = os.path.join(sys.argv[2], os.path.splitext(os.path.basename(path))[0])
        image.save(name + ".print.jpg", "JPEG", quality=90, subsampling=0, dpi=(300, 300))
        scale = 800 / max(image.size)
        sample = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
        sample.save(name + ".sample.jpg", "JPEG", quality=85, subsampling=2, optimize=True)
        small = sample.resize((200, max(1, round(sample.height * 200 / sample.width))), Image.LANCZOS)
        small.save(name + ".small.png", "PNG")


if __name__ == "__main__":
    with Pool(2, initializer=start, initargs=(sys.argv[1],)) as pool:
        pool.map(card, sys.argv[3:], chunksize=1)
