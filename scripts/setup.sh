#!/usr/bin/env bash
# Installs what cardrender needs on a fresh Debian 12 machine (root, apt), when missing.
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

packages=(
  libvips-dev     # libvips 8.14 and its headers: the pixels
  libjpeg62-turbo-dev   # libjpeg-turbo headers: the fast path decodes and encodes JPEG with it
  libvips-tools   # the `vips` CLI: tests build reference images with it
  python3         # tests generate a pixel bomb with zlib
  pkg-config
  curl            # a server test sends a raw backslash path, which HTTP client libraries refuse to
  chromium        # a server test loads a page of 50 thumbnails in headless Chromium
  fonts-liberation2 fonts-dancingscript fonts-gnutypewriter fonts-ebgaramond   # the message fonts, loaded by file
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [[ -x $candidate/swift ]] && export PATH="$candidate:$PATH" && break
  done
fi
command -v swift >/dev/null 2>&1 || { echo "setup: Swift 6.1 or later is required (swift not found)" >&2; exit 1; }
