#!/usr/bin/env bash
# Sourced by the benchmark scripts: installs the peer tools (Debian packages and PyPI) when
# missing, builds cardrender in release mode and sets up a scratch directory.
# Sets: ours (the binary), corpus (../shared/corpus), work (removed on exit), peers_dir.
source scripts/setup.sh
peer_packages=(hyperfine imagemagick graphicsmagick php-cli php-gd libjpeg-turbo-progs time libvips-tools)
missing=()
for package in "${peer_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
python3 -c "import PIL, pyvips, matplotlib" 2>/dev/null || python3 -m pip install -q pillow pyvips matplotlib

[[ -d ../shared/corpus ]] || { echo "benchmarks need ../shared/corpus" >&2; exit 1; }
swift build -c release --product cardrender >&2
ours="$PWD/.build/release/cardrender"
corpus="$(cd ../shared/corpus && pwd)"
peers_dir="$PWD/benchmarks/peers"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(. /etc/os-release; echo "$PRETTY_NAME"), libvips $(vips --version)" >&2
