#!/usr/bin/env bash
# The main job on the bundled sample photos: sets up, builds, renders postcards (four
# frames, all four effects, one card with a message and two recipients, from the sidecar
# specs beside the photos) and prints where the gallery is. Opens nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift build -c release --product cardrender >&2
swift build -c release --product FaceDetectorPlugin >&2  # opened on first use, beside the binary
out="$PWD/out/demo"
rm -rf "$out"
.build/release/cardrender render scripts/samples --out "$out/cards" --quiet --no-cache
.build/release/cardrender thumb scripts/samples --width 200 --out "$out/thumbnails" --quiet
echo "Postcards written to $out/cards (gallery: $out/cards/index.html); thumbnails in $out/thumbnails"
