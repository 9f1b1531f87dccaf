#!/usr/bin/env bash
# Issue 21's cost row: one postcard (framed photo side, a message, one recipient), a whole
# process with no cache, as today's RGB JPEG print (at the same size and 3 mm bleed) and as
# the press PDFs (eu-a6-fogra39: PDF/X-1a; gelato-a6: PDF/X-4, 4 mm bleed). Each PDF is
# separated to CMYK, written with its vector back and preflighted before it is written.
# Prints medians and the ratio to the JPEG postcard (target: <= 1.3x).
# usage: bash benchmarks/press.sh      (needs ../shared/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
photo="$corpus/photos/phone-4032x3024.jpg"
for kind in rgb pdf; do
  mkdir -p "$work/$kind"
  cp "$photo" "$work/$kind/card.jpg"
  card='{"version": 1, "frame": "travel/airmail", "effect": "sepia",
    "message": {"text": "Bonjour de Paris ! Wish you were here.", "font": "serif", "size": 14},
    "recipients": [{"name": "Ada Lovelace", "address1": "12 rue de la Paix", "postcode": "75002",
      "city": "Paris", "country": "fr"}]'
  if [[ $kind == rgb ]]; then card="$card, \"card\": {\"size\": \"a6\", \"bleed\": 3}"; fi
  echo "$card}" >"$work/$kind/card.card.json"
done
run() { echo "$ours render $work/$1 --out $work/out-$2 --quiet --no-cache $3"; }
hyperfine -N --warmup 2 --runs 15 --export-json "$work/press.json" \
  -n "postcard: RGB JPEG print (today)" "$(run rgb jpeg "--press rgb-jpeg")" \
  -n "postcard: eu-a6-fogra39 (PDF/X-1a)" "$(run pdf x1a "--press eu-a6-fogra39")" \
  -n "postcard: gelato-a6 (PDF/X-4)" "$(run pdf x4 "--press gelato-a6")" >&2
python3 - "$work/press.json" <<'PY'
import json, sys
runs = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
base = runs["postcard: RGB JPEG print (today)"]
print("| one postcard, whole process | median (ms) | vs the RGB JPEG postcard |")
print("| --- | ---: | ---: |")
for command, ms in runs.items():
    print(f"| {command} | {ms:.1f} | {ms / base:.2f}x |")
PY
