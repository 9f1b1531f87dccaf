#!/usr/bin/env bash
# Where an iPhone HEIC's decode time goes (issue 20, part 2), one run per row, medians of 5:
# libheif 1.15 with libde265 or with libavcodec's HEVC decoder (a plugin in
# benchmarks/native/heic_decode.c), 0 or 2 tile threads, libheif's rotation applied or not,
# RGB or the decoder's YCbCr planes. Measures only; cardrender's HEIC decode is libvips's.
# Usage: bash benchmarks/heic-decode.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for package in libheif-dev libavcodec-dev; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null
done
[[ -d ../shared/corpus ]] || { echo "heic-decode.sh needs ../shared/corpus" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/heic_decode" benchmarks/native/heic_decode.c $(pkg-config --cflags --libs libheif libavcodec libavutil)
photo=../shared/corpus/photos/iphone13-3024x4032.heic
echo "machine: $(nproc) cores, $(. /etc/os-release; echo "$PRETTY_NAME"); $(basename "$photo")"
printf '%-8s %-7s %-9s %-6s %s\n' decoder threads rotation output "median of 5 (ms)"
for decoder in de265 avcodec; do
  for threads in 0 2; do
    for transforms in apply ignore; do
      for output in rgb yuv; do
        times=()
        for _ in 1 2 3 4 5; do times+=("$("$work/heic_decode" "$photo" "$decoder" "$threads" "$transforms" "$output" | cut -d' ' -f1)"); done
        median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
        printf '%-8s %-7s %-9s %-6s %s\n' "$decoder" "$threads" "$transforms" "$output" "$median"
      done
    done
  done
done
