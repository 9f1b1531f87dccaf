#!/usr/bin/env bash
# The zlib level and row filters of the fast path's PNGs, by measurement: the corpus's JPEGs
# as 200 px small images (what `thumb` and a card's small image write), encoded with libpng
# at levels 1/3/6/9 and filters none/sub/paeth/all; bytes and median time side by side.
# usage: bash benchmarks/png-settings.sh      (needs ../shared/corpus; cc, libpng-dev, vips CLI)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/png_settings" benchmarks/native/png_settings.c -lpng16
for photo in ../shared/corpus/photos/*.jpg ../shared/corpus/orientation/*.jpg; do
  vipsthumbnail "$photo" --size 200x -o "$work/$(basename "$photo" .jpg).ppm"
done
echo "machine: $(nproc) cores, $(. /etc/os-release; echo "$PRETTY_NAME"), libpng $(pkg-config --modversion libpng16)" >&2
"$work/png_settings" "$work"/*.ppm
