#!/usr/bin/env bash
# Issue 20's iPhone rows in one run: one card (sepia, q90, no cache) of the corpus iPhone 13
# photo as its HEIC, as a Display P3 JPEG (what "Most Compatible" saves: libvips keeps the
# P3 profile and pixels) and as the same photo converted to an sRGB JPEG, each a whole
# process; the P3 JPEG also with --engine general. Prints medians and the ratios to the
# sRGB JPEG card. The HEIC too with --engine general (libvips's heifload and pipeline).
# usage: bash benchmarks/iphone.sh      (needs ../shared/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
heic="$corpus/photos/iphone13-3024x4032.heic"
vips copy "$heic" "$work/p3.jpg[Q=92]"
vips icc_transform "$heic" "$work/srgb.jpg[Q=92]" srgb
card() { echo "$ours render $1 --out $work/out-$2 --effect sepia --quality 90 --quiet --no-cache ${3:-}"; }
hyperfine -N --warmup 2 --runs 20 --export-json "$work/iphone.json" \
  -n "card: sRGB JPEG" "$(card "$work/srgb.jpg" srgb)" \
  -n "card: Display P3 JPEG" "$(card "$work/p3.jpg" p3)" \
  -n "card: Display P3 JPEG, --engine general" "$(card "$work/p3.jpg" p3g "--engine general")" \
  -n "card: HEIC" "$(card "$heic" heic)" \
  -n "card: HEIC, --engine general" "$(card "$heic" heicg "--engine general")" >&2
python3 - "$work/iphone.json" <<'PY'
import json, sys
runs = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
base = runs["card: sRGB JPEG"]
print("| one card, whole process | median (ms) | vs the sRGB JPEG card |")
print("| --- | ---: | ---: |")
for command, ms in runs.items():
    print(f"| {command} | {ms:.1f} | {ms / base:.2f}x |")
PY
