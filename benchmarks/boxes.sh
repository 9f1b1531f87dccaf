#!/usr/bin/env bash
# Issue 31's work against the peers, in one run, on this machine: 400x300 `cover`
# thumbnails of the 24 corpus JPEGs against Pillow-SIMD doing the same crop; `dpr=2` and
# `placeholder=thumbhash` against plain widths; an animated GIF against ImageMagick's
# `-coalesce -resize`. Prints Markdown tables of medians and ratios.
# usage: bash benchmarks/boxes.sh   (needs ../shared/corpus; installs the peers)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
mkdir -p "$work/in"
cp "$corpus"/photos/*.jpg "$corpus"/orientation/*.jpg "$work/in/"
count=$(ls "$work/in" | wc -l)
im=convert-im6.q16
gif="$PWD/Tests/animated/animated-loop-3.gif"
echo "files: $count" >&2
fresh="bash -c 'rm -rf $work/d && mkdir -p $work/d'"

# 1. The cover crop, a directory, both cores, no cache.
hyperfine -N --warmup 1 --runs 10 --export-json "$work/cover.json" --prepare "$fresh" \
  -n "cardrender cover 400x300" "$ours thumb $work/in --width 400 --height 300 --fit cover --format jpeg --out $work/d --jobs 2 --quiet --no-cache" \
  -n "cardrender cover 400x300 --engine general" "$ours thumb $work/in --width 400 --height 300 --fit cover --format jpeg --out $work/d --jobs 2 --quiet --no-cache --engine general" \
  -n "Pillow-SIMD ImageOps.fit (2 processes)" "$pillow_simd $peers_dir/pillow_cover.py $work/d 400 300 $(ls -d $work/in/* | tr '\n' ' ')" >&2

# 2. Density and placeholders against the plain width they stand beside.
hyperfine -N --warmup 1 --runs 10 --export-json "$work/rates.json" --prepare "$fresh" \
  -n "width=400" "$ours thumb $work/in --width 400 --format jpeg --out $work/d --jobs 2 --quiet --no-cache" \
  -n "width=400 dpr=2" "$ours thumb $work/in --width 400 --dpr 2 --format jpeg --out $work/d --jobs 2 --quiet --no-cache" \
  -n "placeholder=thumbhash" "$ours thumb $work/in --width 400 --placeholder thumbhash --out $work/d --jobs 2 --quiet --no-cache" \
  -n "placeholder=blur" "$ours thumb $work/in --width 400 --placeholder blur --out $work/d --jobs 2 --quiet --no-cache" >&2

# 3. An animated GIF (370x285, 10 frames) to 200 px wide.
hyperfine -N --warmup 3 --runs 30 --export-json "$work/gif.json" \
  -n "cardrender GIF to GIF" "$ours thumb $gif --width 200 --format gif -o $work/a.gif --no-cache" \
  -n "cardrender GIF to animated WebP" "$ours thumb $gif --width 200 --format webp -o $work/a.webp --no-cache" \
  -n "ImageMagick -coalesce -resize (GIF)" "$im $gif -coalesce -resize 200x $work/im.gif" \
  -n "ImageMagick -coalesce -resize (WebP)" "$im $gif -coalesce -resize 200x $work/im.webp" >&2

echo "## Boxes, placeholders, animation: $(date -u +%Y-%m-%d), $(nproc) cores, libvips $(vips --version | cut -d- -f2)"
python3 - "$work" "$count" <<'PY'
import json, sys
work, count = sys.argv[1], int(sys.argv[2])
def table(name, title, per_file):
    results = json.load(open(f"{work}/{name}.json"))["results"]
    base = results[0]["median"]
    print(f"\n### {title}\n")
    print("| command | median | " + ("per file | " if per_file else "") + "ratio to the first |")
    print("| --- | ---: | " + ("---: | " if per_file else "") + "---: |")
    for result in results:
        median = result["median"]
        cells = [result["command"], f"{median * 1000:.0f} ms"]
        if per_file:
            cells.append(f"{median / count * 1000:.1f} ms")
        cells.append(f"{median / base:.2f}x")
        print("| " + " | ".join(cells) + " |")
table("cover", f"400x300 cover, {count} JPEGs, 2 jobs", True)
table("rates", f"dpr and placeholders against the plain width, {count} JPEGs, 2 jobs", True)
table("gif", "animated-loop-3.gif (370x285, 10 frames) to 200 px", False)
PY
