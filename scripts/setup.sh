#!/usr/bin/env bash
# Installs what cardrender needs to build and run on a fresh Debian 12 machine (root, apt),
# when missing: what the demo needs and no more. The tests' tools (a browser, nginx, Slurm,
# the PDF checkers, SeaweedFS, ...) are installed by scripts/setup-tests.sh.
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

packages=(
  libvips-dev     # libvips 8.14 and its headers: the pixels
  libjpeg62-turbo-dev   # libjpeg-turbo headers: the fast path decodes and encodes JPEG with it
  libpng-dev zlib1g-dev   # libpng headers: the fast path writes its PNGs with it
  liblcms2-dev    # lcms2 headers: the fast path converts Display P3 and other RGB profiles to sRGB
  libheif-dev     # libheif headers: the fast path decodes a card's HEIC (iPhone) photo with it
  libqpdf-dev     # libqpdf's C API headers: the press PDFs are written and preflighted with it
  libdmtx-dev     # libdmtx: the Data Matrix code on each card's back, and reading it back from scans
  librsvg2-dev    # librsvg's version header: the cache key names the library that draws the frames
  pkg-config
  fonts-liberation2 fonts-dancingscript fonts-gnutypewriter fonts-ebgaramond   # the message fonts, loaded by file
  fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji   # the fallback chain: other scripts, CJK, emoji in colour
  libpango1.0-dev # Pango + cairo headers: the message side is laid out and drawn with them
  libopencv-objdetect406 opencv-data   # OpenCV's face cascades: a photo's first placement keeps its faces whole
)
# Installs with apt those of the packages named that are missing.
setup_install() {
  local missing=() package policy_added=""
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # No package may start its daemon (nginx would take port 80): tests start their own on
  # 127.0.0.1 and stop them by pid. policy-rc.d says no to every start during the install.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_added=1
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [[ -n $policy_added ]]; then rm -f /usr/sbin/policy-rc.d; fi
}
setup_install "${packages[@]}"

# OpenCV's headers (for CFaceDetector) unpacked from its two -dev packages into .build/opencv,
# not installed: libopencv-objdetect-dev depends on libopencv-highgui-dev, which pulls in
# 93 MB of Qt, FFmpeg and GDAL that nothing here uses. The same version as the library above.
opencv_headers="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.build/opencv"
if [[ ! -f $opencv_headers/usr/include/opencv4/opencv2/objdetect.hpp ]]; then
  echo "setup: unpacking OpenCV's headers into $opencv_headers" >&2
  opencv_debs="$(mktemp -d)"
  opencv_version="$(dpkg-query -W -f='${Version}' libopencv-objdetect406)"
  (cd "$opencv_debs" && chmod 777 . && apt-get download -qq \
    "libopencv-core-dev=$opencv_version" "libopencv-objdetect-dev=$opencv_version" 2>/dev/null)
  mkdir -p "$opencv_headers"
  for deb in "$opencv_debs"/*.deb; do dpkg-deb -x "$deb" "$opencv_headers"; done
  rm -rf "$opencv_debs"
  [[ -f $opencv_headers/usr/include/opencv4/opencv2/objdetect.hpp ]] ||
    { echo "setup: could not unpack OpenCV's headers" >&2; exit 1; }
fi

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [[ -x $candidate/swift ]] && export PATH="$candidate:$PATH" && break
  done
fi
command -v swift >/dev/null 2>&1 || { echo "setup: Swift 6.1 or later is required (swift not found)" >&2; exit 1; }
