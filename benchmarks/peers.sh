#!/usr/bin/env bash
# Side-by-side thumbnail benchmark: cardrender against the tools a user would otherwise
# pick, in one run, on this machine. Prints Markdown tables and writes a chart.
# usage: bash benchmarks/peers.sh            (needs ../shared/corpus; installs the peers)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
photo="$corpus/photos/phone-4032x3024.jpg"
mkdir -p "$work/in" "$work/out"
# The directory job: every corpus JPEG (photos + orientation examples; the HEIC is left
# out because GraphicsMagick and PHP GD on Debian cannot read it).
cp "$corpus"/photos/*.jpg "$corpus"/orientation/*.jpg "$work/in/"
count=$(ls "$work/in" | wc -l)
im=convert-im6.q16   # called directly: `convert` on PATH may be a wrapper

echo "files in the directory job: $count" >&2

# One file, whole process.
hyperfine -N --warmup 3 --runs 30 --export-json "$work/single.json" \
  -n "cardrender thumb" "$ours thumb $photo --width 200 -o $work/out/ours.png --no-cache" \
  -n "vipsthumbnail" "vipsthumbnail $photo -s 200x -o $work/out/vt.png" \
  -n "ImageMagick" "$im $photo -resize 200x $work/out/im.png" \
  -n "ImageMagick jpeg:size" "$im -define jpeg:size=400x300 $photo -resize 200x $work/out/im2.png" \
  -n "GraphicsMagick -size" "gm convert -size 400x300 $photo -resize 200x $work/out/gm.png" \
  -n "PHP GD imagecopyresampled" "php $peers_dir/gd_thumb.php resampled $photo $work/out/gd.png 200" \
  -n "PHP GD imagescale" "php $peers_dir/gd_thumb.php scale $photo $work/out/gd2.png 200" \
  -n "Pillow draft" "python3 $peers_dir/pillow_thumb.py $photo $work/out/pil.png 200" \
  -n "Pillow-SIMD draft" "$pillow_simd $peers_dir/pillow_thumb.py $photo $work/out/pils.png 200" \
  -n "djpeg -scale 1/8 (decode floor)" "djpeg -scale 1/8 -outfile /dev/null $photo" >&2

# Peak RSS of one run each (GNU time, KiB).
rss() { /usr/bin/time -f "%M" -o "$work/rss1" "${@:2}" >/dev/null 2>&1; printf '%s\t%s\n' "$1" "$(tail -1 "$work/rss1")" >>"$work/rss.tsv"; }
rss "cardrender thumb" "$ours" thumb "$photo" --width 200 -o "$work/out/ours.png" --no-cache
rss "vipsthumbnail" vipsthumbnail "$photo" -s 200x -o "$work/out/vt.png"
rss "ImageMagick" $im "$photo" -resize 200x "$work/out/im.png"
rss "ImageMagick jpeg:size" $im -define jpeg:size=400x300 "$photo" -resize 200x "$work/out/im2.png"
rss "GraphicsMagick -size" gm convert -size 400x300 "$photo" -resize 200x "$work/out/gm.png"
rss "PHP GD imagecopyresampled" php "$peers_dir/gd_thumb.php" resampled "$photo" "$work/out/gd.png" 200
rss "PHP GD imagescale" php "$peers_dir/gd_thumb.php" scale "$photo" "$work/out/gd2.png" 200
rss "Pillow draft" python3 "$peers_dir/pillow_thumb.py" "$photo" "$work/out/pil.png" 200
rss "Pillow-SIMD draft" "$pillow_simd" "$peers_dir/pillow_thumb.py" "$photo" "$work/out/pils.png" 200
rss "djpeg -scale 1/8 (decode floor)" djpeg -scale 1/8 -outfile /dev/null "$photo"

# A directory, each tool run as a user would run it.
gm_one='gm convert -size 400x400 "$1" -resize 200x "$0/$(basename "$1" .jpg).png"'
im_one="$im"' -define jpeg:size=400x400 "$1" -resize 200x "$0/$(basename "$1" .jpg).png"'
hyperfine -N --warmup 1 --runs 10 --export-json "$work/directory.json" \
  --prepare "bash -c 'rm -rf $work/d && mkdir -p $work/d'" \
  -n "cardrender thumb DIR --jobs 2" "$ours thumb $work/in --width 200 --out $work/d --jobs 2 --quiet --no-cache" \
  -n "cardrender thumb DIR --jobs 1" "$ours thumb $work/in --width 200 --out $work/d --jobs 1 --quiet --no-cache" \
  -n "cardrender thumb DIR --jobs 2 --engine general" "$ours thumb $work/in --width 200 --out $work/d --jobs 2 --quiet --no-cache --engine general" \
  -n "Pillow-SIMD draft (2 processes)" "$pillow_simd $peers_dir/pillow_thumbs.py $work/d 200 $(ls -d $work/in/* | tr '\n' ' ')" \
  -n "Pillow draft (2 processes)" "python3 $peers_dir/pillow_thumbs.py $work/d 200 $(ls -d $work/in/* | tr '\n' ' ')" \
  -n "vipsthumbnail (all files, one call)" "bash -c 'vipsthumbnail $work/in/*.jpg -s 200x -o $work/d/%s.png'" \
  -n "GraphicsMagick (xargs -P 2)" "bash -c 'ls $work/in/*.jpg | xargs -P 2 -n 1 sh -c '\''$gm_one'\'' $work/d'" \
  -n "ImageMagick jpeg:size (xargs -P 2)" "bash -c 'ls $work/in/*.jpg | xargs -P 2 -n 1 sh -c '\''$im_one'\'' $work/d'" >&2
rss "cardrender thumb DIR --jobs 2" "$ours" thumb "$work/in" --width 200 --out "$work/d2" --jobs 2 --quiet --no-cache

# sharp's workload in process: pyvips (same libvips) and cardrender's VipsKit benchmark.
printf 'pyvips %s\t%s\n' "$(python3 -c 'import pyvips; print(pyvips.__version__)')" \
  "$(python3 "$peers_dir/pyvips_sharp.py" "$corpus/photos/sharp-bench-2725x2225.jpg" 10)" >>"$work/sharp.tsv"
swift package --package-path benchmarks --disable-sandbox benchmark --filter "sharp.*" --format markdown \
  --no-progress >"$work/sharp-ours.md" 2>/dev/null
ours_ops=$(awk -F'|' '/Throughput/ {gsub(/ /, "", $5); print $5}' "$work/sharp-ours.md")
printf 'cardrender VipsKit (ordo-one/benchmark p50)\t%s\n' "$ours_ops" >>"$work/sharp.tsv"

echo "## Peers, $(date -u +%Y-%m-%d), $(nproc) cores, libvips $(vips --version | cut -d- -f2)"
python3 "$peers_dir/summarise.py" "$work" "$PWD/benchmarks/peers-chart.png"
echo
echo "Chart: benchmarks/peers-chart.png"
