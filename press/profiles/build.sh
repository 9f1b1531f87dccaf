#!/usr/bin/env bash
# Builds the press profiles in this directory from the characterisation data Debian's
# icc-profiles-free ships (measurements published by Fogra and by the CGATS/GRACoL
# committee, Zlib licence in that package). Run once by a developer; the .icc files are
# committed (colprof writes the creation time into each, so a rebuild is not byte-identical).
# Needs: apt-get install argyll icc-profiles-free.   Usage: bash press/profiles/build.sh
set -euo pipefail
cd "$(dirname "$0")"
data=/usr/share/color/icc
srgb=/usr/share/color/argyll/ref/sRGB.icm
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# name  characterisation  total ink %  description
build() {
  local name=$1 ti3=$2 ink=$3 description=$4
  cp "$data/$ti3.ti3" "$work/$name.ti3"
  # -qm medium quality; -kr black generation: a ramp from 0 at white to full at black (a
  # medium GCR, what ISO Coated v2 and GRACoL's own profiles use); -l total ink limit;
  # -L95 black limit; -S sRGB for the perceptual table's gamut mapping; the colorimetric
  # tables (relative colorimetric, which cardrender uses) are the measurements themselves.
  colprof -qm -kr -l"$ink" -L95 -S "$srgb" -cmt -dpp -A "cardrender" -D "$description" \
    -C "Built by cardrender with ArgyllCMS colprof from $ti3 (icc-profiles-free, Zlib licence)" "$work/$name"
  cp "$work/$name.icc" "$name.icc"
  echo "built $name.icc"
}
build FOGRA39-TAC300 FOGRA39L 300 "cardrender FOGRA39 (ISO 12647-2 coated, ISO Coated v2), total ink 300%"
build GRACoL2006-TAC300 TR006 300 "cardrender GRACoL 2006 (CGATS TR 006, grade 1 coated), total ink 300%"
