#!/usr/bin/env bash
# Two builds of cardrender side by side on the same work, interleaved in one hyperfine run:
# start-up, a directory of thumbnails, a directory of framed cards, one card. For a change that
# must not change speed (a refactor): prints each median and after / before.
# usage: BEFORE_BIN=/path/to/old/cardrender [CARDRENDER_BIN=/path/to/new] bash benchmarks/before-after.sh
#   (the installable artifacts, `scripts/package.sh` in each tree, are what ships; needs ../shared/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x ${BEFORE_BIN:-} ]] || { echo "before-after: BEFORE_BIN must name the build to compare with" >&2; exit 64; }
source benchmarks/prepare.sh
before="$BEFORE_BIN"
mkdir -p "$work/jpeg"
cp "$corpus"/photos/*.jpg "$corpus"/orientation/*.jpg "$work/jpeg/"
photo="$corpus/photos/phone-4032x3024.jpg"
runs=()
for side in before after; do
  binary=$([[ $side == before ]] && echo "$before" || echo "$ours")
  runs+=(-n "$side: --version" "$binary --version")
  runs+=(-n "$side: thumb 24 JPEGs --jobs 2" "$binary thumb $work/jpeg --width 200 --out $work/thumbs-$side --jobs 2 --quiet --no-cache")
  runs+=(-n "$side: render 24 cards --jobs 2" "$binary render $work/jpeg --out $work/cards-$side --frame travel/airmail --effect sepia --quality 90 --jobs 2 --quiet --no-cache")
  runs+=(-n "$side: one card" "$binary render $photo --out $work/one-$side --effect sepia --quality 90 --quiet --no-cache")
done
# Alternating the two sides run by run would be fairer still; hyperfine runs each command's
# runs together, so each pair is measured back to back instead (before, then after).
order=()
for index in 0 1 2 3; do
  order+=("${runs[@]:$((index * 3)):3}" "${runs[@]:$(((index + 4) * 3)):3}")
done
hyperfine -N --warmup 2 --runs 15 --export-json "$work/both.json" \
  --prepare "bash -c 'rm -rf $work/thumbs-* $work/cards-* $work/one-*'" "${order[@]}" >&2
python3 - "$work/both.json" <<'PY'
import json, sys
medians = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
print("| work | before (ms) | after (ms) | after / before |")
print("| --- | ---: | ---: | ---: |")
for name in ("--version", "thumb 24 JPEGs --jobs 2", "render 24 cards --jobs 2", "one card"):
    b, a = medians["before: " + name], medians["after: " + name]
    print(f"| {name} | {b:.1f} | {a:.1f} | {a / b:.3f} |")
PY
