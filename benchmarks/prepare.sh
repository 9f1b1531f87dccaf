#!/usr/bin/env bash
# Sourced by the benchmark scripts: installs the peer tools (Debian packages and PyPI) when
# missing, builds cardrender in release mode and sets up a scratch directory.
# Sets: ours (the binary; $CARDRENDER_BIN when set), corpus (../shared/corpus), work (removed on exit), peers_dir,
# pillow_simd (the Python of a venv with Pillow-SIMD built for AVX2, under .build/peers).
source scripts/setup-tests.sh
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
# Pillow-SIMD has the same import name as Pillow, hence its own venv; it is an sdist, built
# here against Debian's libjpeg-turbo and zlib with AVX2 on (pinned by hash).
simd_venv="$PWD/.build/peers/pillow-simd"
if ! "$simd_venv/bin/python" -c "import PIL, sys; sys.exit('.post' not in PIL.__version__)" 2>/dev/null; then
  rm -rf "$simd_venv"
  python3 -m venv "$simd_venv"
  CC="cc -mavx2" "$simd_venv/bin/pip" install -q --no-cache-dir --no-binary pillow-simd --require-hashes \
    -r benchmarks/peers/pillow-simd.txt >&2
fi
pillow_simd="$simd_venv/bin/python"

[[ -d ../shared/corpus ]] || { echo "benchmarks need ../shared/corpus" >&2; exit 1; }
# CARDRENDER_BIN: measure that binary instead of building this tree's release one.
if [[ -n ${CARDRENDER_BIN:-} ]]; then
  ours="$CARDRENDER_BIN"
else
  swift build -c release --product cardrender >&2
  swift build -c release --product FaceDetectorPlugin >&2  # opened on first use, beside the binary
  ours="$PWD/.build/release/cardrender"
fi
corpus="$(cd ../shared/corpus && pwd)"
peers_dir="$PWD/benchmarks/peers"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(. /etc/os-release; echo "$PRETTY_NAME"), libvips $(vips --version)" >&2
