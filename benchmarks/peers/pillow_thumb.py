"""Pillow as a user would write it: draft() for JPEG DCT scaling, then a Lanczos resize.
usage: python3 pillow_thumb.py INPUT OUTPUT WIDTH"""
import sys

from PIL import Image, ImageOps

source, output, width = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Image.open(source) as image:
    image.draft("RGB", (width * 2, width * 2))
    image = ImageOps.exif_transpose(image)
    height = max(1, round(image.height * width / image.width))
    image.resize((width, height), Image.LANCZOS).save(output, "PNG")
