#!/usr/bin/env bash
# The main job on the bundled sample photos: sets up, builds, renders, prints where the output is.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift build -c release --product cardrender >&2
out="$PWD/out/demo"
rm -rf "$out"
.build/release/cardrender thumb scripts/samples --width 400 --out "$out/thumbnails" --quiet
.build/release/cardrender thumb scripts/samples --width 200 --format webp --out "$out/thumbnails-webp" --quiet
echo "Thumbnails written to $out"
