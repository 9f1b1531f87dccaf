#!/usr/bin/env bash
# Installs the peer tools the benchmarks compare against (Debian packages and PyPI), when missing.
set -euo pipefail
peers=(hyperfine imagemagick graphicsmagick php-cli php-gd libjpeg-turbo-progs time libvips-tools)
missing=()
for package in "${peers[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
python3 -c "import PIL, pyvips, matplotlib" 2>/dev/null || python3 -m pip install -q pillow pyvips matplotlib
