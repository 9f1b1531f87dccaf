"""Photographs card backs badly, as a phone or a cheap scanner would, for the scan tests.

  python3 degrade.py SEED OUTPUT_DIR BACK.png...

Each 300 dpi back is brought down to 150 dpi, laid on a grey table, turned by up to 10
degrees either way, seen at an angle (a perspective: each corner moved by up to 6 % of the
picture, a view up to about 20 degrees off square), blurred (a Gaussian of radius 0.25 to 0.7
pixels at 150 dpi, 0.5 to 1.4 at 300), lit unevenly and saved as JPEG at quality 40, all at
once. Written with Pillow (an
encoder and resampler that is not libvips), with one seeded random generator, so a run makes
the same pictures. Prints one line per picture: its name and what was done to it.
"""

import os
import random
import sys

from PIL import Image, ImageDraw, ImageFilter


def perspective_coefficients(source, target):
    """The 8 coefficients Pillow's PERSPECTIVE transform takes: for each output pixel (in
    `target`'s quadrilateral) the input pixel (in `source`'s)."""
    matrix = []
    vector = []
    for (x, y), (u, v) in zip(target, source):
        matrix.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        matrix.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        vector += [u, v]
    return solve(matrix, vector)


def solve(matrix, vector):
    """Gaussian elimination with partial pivoting (8 x 8)."""
    size = len(vector)
    rows = [row[:] + [value] for row, value in zip(matrix, vector)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(size):
            if r != column:
                factor = rows[r][column] / rows[column][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column])]
    return [rows[r][size] / rows[r][r] for r in range(size)]


def degrade(path, output, generator):
    card = Image.open(path).convert("RGB")
    card = card.resize((card.width // 2, card.height // 2), Image.Resampling.BICUBIC)
    width, height = card.size
    margin = int(width * 0.12)
    table = Image.new("RGB", (width + 2 * margin, height + 2 * margin), (96, 92, 88))
    table.paste(card, (margin, margin))
    angle = generator.uniform(-10, 10)
    turned = table.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=(96, 92, 88))
    w, h = turned.size
    reach = 0.06
    corners = [(0, 0), (w, 0), (w, h), (0, h)]
    moved = [(x + generator.uniform(-reach, reach) * w, y + generator.uniform(-reach, reach) * h) for x, y in corners]
    seen = turned.transform(
        (w, h), Image.Transform.PERSPECTIVE, perspective_coefficients(moved, corners),
        resample=Image.Resampling.BICUBIC, fillcolor=(96, 92, 88))
    radius = generator.uniform(0.25, 0.7)
    blurred = seen.filter(ImageFilter.GaussianBlur(radius))
    # Uneven light: darker towards one side, by up to a quarter.
    shade = Image.linear_gradient("L").resize((w, h)).rotate(generator.uniform(0, 360))
    darkening = generator.uniform(0.0, 0.25)
    shade = shade.point(lambda value: int(255 - darkening * value))
    lit = Image.composite(blurred, Image.new("RGB", (w, h), (0, 0, 0)), shade)
    name = os.path.splitext(os.path.basename(path))[0] + ".jpg"
    lit.save(os.path.join(output, name), "JPEG", quality=40)
    print(f"{name}\tturned {angle:.1f} deg, corners moved up to {reach:.0%}, blur {radius:.2f} px at 150 dpi, "
          f"shade {darkening:.2f}, JPEG q40")


def main():
    seed, output, paths = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    generator = random.Random(seed)
    os.makedirs(output, exist_ok=True)
    for path in paths:
        degrade(path, output, generator)


if __name__ == "__main__":
    main()
