#!/usr/bin/env bash
# Postcards per second: cardrender on the corpus (photos + orientation examples; print +
# sample + small, sepia, one frame) at 1 and 2 jobs, and the same postcard work (cover-crop
# to 1748x1240, sepia matrix, frame composite, JPEG q90 4:4:4) with ImageMagick, Pillow,
# Pillow-SIMD, pyvips and PHP GD, two workers each, in the same run (the peers write the
# print file only, except "Pillow-SIMD, same three files"; cardrender writes print + sample
# + small), and the floor (benchmarks/native/card_floor.c: decode + the two encodes, no
# pixel work). Prints Markdown tables.
# usage: bash benchmarks/cards.sh      (needs ../shared/corpus; installs the peers)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
mkdir -p "$work/in" "$work/jpeg"
cp "$corpus"/photos/* "$corpus"/orientation/*.jpg "$work/in/"
cp "$corpus"/photos/*.jpg "$corpus"/orientation/*.jpg "$work/jpeg/"   # the peers cannot all read HEIC
count=$(ls "$work/in" | wc -l)
jpegs=$(ls "$work/jpeg" | wc -l)
# The frame, as the peers get it: our airmail art rendered once to a PNG.
vips svgload frames/travel/airmail.svg "$work/frame.png"
im=convert-im6.q16
cc -O2 -o "$work/card_floor" benchmarks/native/card_floor.c -ljpeg

im_one="$im"' "$1" -auto-orient -resize 1748x1240^ -gravity center -extent 1748x1240 -color-matrix "0.393 0.769 0.189 0.349 0.686 0.168 0.272 0.534 0.131" '"$work/frame.png"' -composite -sampling-factor 1x1 -quality 90 "$0/$(basename "$1" .jpg).jpg"'
gd_one="php $peers_dir/gd_card.php $work/frame.png"' "$0" "$1"'

hyperfine -N --warmup 1 --runs 5 --export-json "$work/cards.json" \
  --prepare "bash -c 'rm -rf $work/out && mkdir -p $work/out'" \
  -n "cardrender render --jobs 2 ($count photos)" "$ours render $work/in --out $work/out --frame travel/airmail --effect sepia --quality 90 --jobs 2 --quiet --no-cache" \
  -n "cardrender render --jobs 1 ($count photos)" "$ours render $work/in --out $work/out --frame travel/airmail --effect sepia --quality 90 --jobs 1 --quiet --no-cache" \
  -n "cardrender render --jobs 2 ($jpegs JPEGs)" "$ours render $work/jpeg --out $work/out --frame travel/airmail --effect sepia --quality 90 --jobs 2 --quiet --no-cache" \
  -n "pyvips, 2 processes ($jpegs JPEGs)" "env VIPS_CONCURRENCY=1 python3 $peers_dir/pyvips_card.py $work/frame.png $work/out $(ls -d $work/jpeg/* | tr '\n' ' ')" \
  -n "cardrender render --jobs 2 --engine general ($jpegs JPEGs)" "$ours render $work/jpeg --out $work/out --frame travel/airmail --effect sepia --quality 90 --jobs 2 --quiet --no-cache --engine general" \
  -n "Pillow, 2 processes ($jpegs JPEGs)" "python3 $peers_dir/pillow_card.py $work/frame.png $work/out $(ls -d $work/jpeg/* | tr '\n' ' ')" \
  -n "Pillow-SIMD, 2 processes ($jpegs JPEGs)" "$pillow_simd $peers_dir/pillow_card.py $work/frame.png $work/out $(ls -d $work/jpeg/* | tr '\n' ' ')" \
  -n "Pillow-SIMD, same three files, pool of 2 ($jpegs JPEGs)" "$pillow_simd $peers_dir/pillow_card3.py $work/frame.png $work/out $(ls -d $work/jpeg/* | tr '\n' ' ')" \
  -n "floor: libjpeg-turbo decode at the covering DCT scale + print and sample encodes, 2 processes ($jpegs JPEGs)" "bash -c 'ls $work/jpeg/*.jpg | xargs -P 2 -n 1 $work/card_floor $work/out'" \
  -n "djpeg + cjpeg q90 4:4:4, xargs -P 2 ($jpegs JPEGs, floor: no resize, effect or frame)" "bash -c 'ls $work/jpeg/*.jpg | xargs -P 2 -n 1 sh -c '\''djpeg \"\$1\" | cjpeg -quality 90 -sample 1x1 > \"\$0/\$(basename \"\$1\")\"'\'' $work/out'" \
  -n "ImageMagick, xargs -P 2 ($jpegs JPEGs)" "bash -c 'ls $work/jpeg/*.jpg | xargs -P 2 -n 1 sh -c '\''$im_one'\'' $work/out'" \
  -n "PHP GD, xargs -P 2 ($jpegs JPEGs)" "bash -c 'ls $work/jpeg/*.jpg | xargs -P 2 -n 1 sh -c '\''$gd_one'\'' $work/out'" >&2

/usr/bin/time -f "%M" -o "$work/rss" "$ours" render "$work/in" --out "$work/rss-out" --frame travel/airmail --effect sepia --jobs 2 --quiet --no-cache 2>/dev/null
python3 - "$work/cards.json" "$(tail -1 "$work/rss")" <<'PY'
import json, re, sys
results = json.load(open(sys.argv[1]))["results"]
print(f"## Postcards, {__import__('datetime').date.today()}, peak RSS of cardrender --jobs 2: {int(sys.argv[2]) / 1024:.0f} MiB\n")
print("| run | median (s) | cards/s | vs cardrender --jobs 2 (same JPEGs) |")
print("| --- | ---: | ---: | ---: |")
ours = next(r for r in results if r["command"].startswith("cardrender render --jobs 2") and "JPEGs" in r["command"])
ours_rate = int(re.search(r"\((\d+)", ours["command"]).group(1)) / ours["median"]
for r in results:
    n = int(re.search(r"\((\d+)", r["command"]).group(1))
    rate = n / r["median"]
    print(f"| {r['command']} | {r['median']:.2f} | {rate:.1f} | {ours_rate / rate:.2f}x |")
PY
