#!/usr/bin/env bash
# Issue 19's targets in one run, each row beside its floor or peer: cards and thumbnails
# against Pillow-SIMD and the decode + encode floors, one photo's whole process against
# GraphicsMagick, start-up against a C program, a framed card against a frameless one (art
# cached), and peak RSS. Prints a Markdown table of medians and ratios.
# usage: bash benchmarks/targets.sh      (needs ../shared/corpus; installs the peers)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
mkdir -p "$work/jpeg" "$work/out" "$work/floor"
cp "$corpus"/photos/*.jpg "$corpus"/orientation/*.jpg "$work/jpeg/"
count=$(ls "$work/jpeg" | wc -l)
photo="$corpus/photos/phone-4032x3024.jpg"
vips svgload frames/travel/airmail.svg "$work/frame.png"
cc -O2 -o "$work/card_floor" benchmarks/native/card_floor.c -ljpeg
cc -O2 -o "$work/version_floor" benchmarks/native/version_floor.c -ljpeg
# djpeg at the DCT scale cardrender's thumbnailer picks for 200 px (a reduction of 2 left).
python3 - "$work/jpeg" >"$work/scales" <<'PY'
import os, sys
from PIL import Image
for name in sorted(os.listdir(sys.argv[1])):
    path = os.path.join(sys.argv[1], name)
    with Image.open(path) as image:
        width, height = image.size
        turned = image.getexif().get(0x0112, 1) >= 5
    upright_w, upright_h = (height, width) if turned else (width, height)
    want_w = min(200, upright_w)
    want_h = max(1, (2 * upright_h * want_w + upright_w) // (2 * upright_w))
    need_w, need_h = (want_h, want_w) if turned else (want_w, want_h)
    shrink = 1
    while shrink < 8 and width // (shrink * 2) >= need_w * 2 and height // (shrink * 2) >= need_h * 2:
        shrink *= 2
    print(shrink, path)
PY
# A cache holding only the airmail art (a card of another photo made it), copied fresh per run.
"$ours" render "$corpus/orientation/Landscape_1.jpg" --out "$work/warm" --frame travel/airmail --effect sepia \
  --quiet --cache "$work/artcache" >/dev/null 2>&1
# The card floor runs one process per core, as cardrender does (one process per photo paid
# 24 process starts: 298 ms against 241 ms over the same files, issue 28): the photos dealt
# largest first to the two, alternately.
ls -S "$work"/jpeg/*.jpg | awk 'NR % 2 == 1' >"$work/half1"
ls -S "$work"/jpeg/*.jpg | awk 'NR % 2 == 0' >"$work/half2"
one_card() { echo "$ours render $photo --out $work/one --effect sepia --quality 90 --quiet --cache $work/c1 $1"; }

hyperfine -N --warmup 1 --runs 7 --export-json "$work/batch.json" \
  --prepare "bash -c 'rm -rf $work/out $work/floor && mkdir -p $work/out $work/floor'" \
  -n "cards: cardrender render --jobs 2" "$ours render $work/jpeg --out $work/out --frame travel/airmail --effect sepia --quality 90 --jobs 2 --quiet --no-cache" \
  -n "cards: Pillow-SIMD, same three files, pool of 2" "$pillow_simd benchmarks/peers/pillow_card3.py $work/frame.png $work/out $(ls -d $work/jpeg/* | tr '\n' ' ')" \
  -n "cards: floor (libjpeg-turbo decode + print and sample encodes, one process per core)" "bash -c '$work/card_floor $work/floor \$(cat $work/half1) & $work/card_floor $work/floor \$(cat $work/half2); wait'" \
  -n "thumbs: cardrender thumb --jobs 2" "$ours thumb $work/jpeg --width 200 --out $work/out --jobs 2 --quiet --no-cache" \
  -n "thumbs: Pillow-SIMD, pool of 2" "$pillow_simd benchmarks/peers/pillow_thumbs.py $work/out 200 $(ls -d $work/jpeg/* | tr '\n' ' ')" \
  -n "thumbs: djpeg at the same DCT scales, 2 at a time" "bash -c 'xargs -P 2 -L 1 sh -c '\''djpeg -scale 1/\$0 -outfile /dev/null \$1'\'' < $work/scales'" >&2
hyperfine -N --warmup 3 --runs 30 --export-json "$work/single.json" \
  -n "one 12 MP JPEG -> 200 px PNG: cardrender thumb" "$ours thumb $photo --width 200 -o $work/one.png --no-cache" \
  -n "one 12 MP JPEG -> 200 px PNG: GraphicsMagick -size" "gm convert -size 400x300 $photo -resize 200x $work/gm.png" \
  -n "start-up: cardrender --version" "$ours --version" \
  -n "start-up: C program linking libjpeg" "$work/version_floor" >&2
hyperfine -N --warmup 1 --runs 15 --export-json "$work/frame.json" \
  --prepare "bash -c 'rm -rf $work/c1 $work/one && cp -a $work/artcache $work/c1'" \
  -n "one card, airmail frame (art cached)" "$(one_card "--frame travel/airmail")" \
  -n "one card, no frame" "$(one_card "")" >&2
/usr/bin/time -f "%M" -o "$work/rss" "$ours" render "$work/jpeg" --out "$work/rss-out" --frame travel/airmail \
  --effect sepia --quality 90 --jobs 2 --quiet --no-cache
python3 - "$work" "$(tail -1 "$work/rss")" "$count" <<'PY'
import json, os, sys
work, rss, count = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs = {}
for name in ("batch", "single", "frame"):
    for r in json.load(open(os.path.join(work, name + ".json")))["results"]:
        runs[r["command"]] = r["median"] * 1000
print(f"| run ({count} JPEGs where a directory) | median (ms) |")
print("| --- | ---: |")
for command, ms in runs.items():
    print(f"| {command} | {ms:.1f} |")
def ratio(a, b):
    return runs[a] / runs[b]
print()
print("| target | measured |")
print("| --- | ---: |")
print(f"| cards vs the floor | {ratio('cards: cardrender render --jobs 2', 'cards: floor (libjpeg-turbo decode + print and sample encodes, one process per core)'):.2f}x |")
print(f"| Pillow-SIMD (same three files) vs cards | {ratio('cards: Pillow-SIMD, same three files, pool of 2', 'cards: cardrender render --jobs 2'):.2f}x |")
print(f"| Pillow-SIMD thumbnails vs ours | {ratio('thumbs: Pillow-SIMD, pool of 2', 'thumbs: cardrender thumb --jobs 2'):.2f}x |")
print(f"| thumbnails vs djpeg at the same scales | {ratio('thumbs: cardrender thumb --jobs 2', 'thumbs: djpeg at the same DCT scales, 2 at a time'):.2f}x |")
print(f"| one 12 MP -> 200 px PNG vs GraphicsMagick | {ratio('one 12 MP JPEG -> 200 px PNG: cardrender thumb', 'one 12 MP JPEG -> 200 px PNG: GraphicsMagick -size'):.2f}x its time |")
print(f"| --version vs a C program linking libjpeg | {ratio('start-up: cardrender --version', 'start-up: C program linking libjpeg'):.1f}x |")
print(f"| framed card vs frameless (art cached), whole process | {ratio('one card, airmail frame (art cached)', 'one card, no frame'):.2f}x |")
print(f"| peak RSS, render --jobs 2 | {rss / 1024:.0f} MiB |")
PY
