#!/usr/bin/env bash
# The installable cardrender, for nodes that have no Swift toolchain: a release build with
# the Swift runtime linked in (--static-swift-stdlib), installed with its frames and deploy
# files under a prefix, and the same packed as a .deb whose Depends are the Debian packages
# of the libraries the binary links (found with ldd and dpkg -S) or opens on first use
# (libvips, GLib, Pango, OpenCV), plus the message fonts and OpenCV's face cascades.
#
#   bash scripts/package.sh            # -> .build/dist/cardrender/{bin,share} and .build/dist/cardrender_VERSION_ARCH.deb
#   bash scripts/package.sh /opt/cardrender
#
# Fails when the binary links anything from the Swift toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
prefix="$(realpath -m "${1:-.build/dist/cardrender}")"
dist="$(realpath -m .build/dist)"

swift build -c release --product cardrender --static-swift-stdlib --scratch-path .build/static >&2
binary=.build/static/release/cardrender

# The toolchain's runtime must not be linked: a node has no /usr/lib/swift.
toolchain="$(dirname "$(dirname "$(realpath "$(command -v swift)")")")"
links="$(ldd "$binary")"
if grep -E "not found|$toolchain|libswift|libdispatch|libFoundation|libBlocksRuntime" <<<"$links" >&2; then
  echo "package: $binary links the Swift toolchain's libraries (above); it would not run on a node" >&2
  exit 1
fi

# The face detector plugin (Sources/Native/FaceDetectorPlugin), opened on first use from
# lib/cardrender. Compiled here by the toolchain's clang++ rather than SwiftPM: SwiftPM links
# every library it makes with the Swift runtime's image constructor, which needs
# libswiftCore.so, and a node has none. The plugin is plain C++ and links OpenCV alone.
plugin_dir="$(mktemp -d)"
trap 'rm -rf "$plugin_dir"' EXIT
plugin="$plugin_dir/libFaceDetectorPlugin.so"
multiarch="$(gcc -print-multiarch)"
"$(dirname "$(realpath "$(command -v swift)")")/clang++" -std=c++17 -O2 -Werror -Wall -fPIC -shared \
  -fvisibility=hidden -I.build/opencv/usr/include/opencv4 -ISources/Native/CFaceDetector/include \
  -ISources/Native/FaceDetectorPlugin/include Sources/Native/FaceDetectorPlugin/FaceDetectorPlugin.cpp \
  -Wl,--as-needed "/usr/lib/$multiarch/libopencv_objdetect.so.406" "/usr/lib/$multiarch/libopencv_core.so.406" \
  -o "$plugin"
if ldd "$plugin" | grep -E "not found|$toolchain|libswift" >&2; then
  echo "package: $plugin links what a node does not have (above)" >&2
  exit 1
fi

rm -rf "$prefix"
install -D -m 755 "$binary" "$prefix/bin/cardrender"
strip "$prefix/bin/cardrender"
install -D -m 644 "$plugin" "$prefix/lib/cardrender/libFaceDetectorPlugin.so"
strip "$prefix/lib/cardrender/libFaceDetectorPlugin.so"
mkdir -p "$prefix/share/cardrender"
cp -R frames "$prefix/share/cardrender/frames"
mkdir -p "$prefix/share/cardrender/press"
cp press/profiles/*.icc press/profiles/README.md "$prefix/share/cardrender/press/"
cp -R deploy "$prefix/share/cardrender/deploy"
cp README.md "$prefix/share/cardrender/README.md"

# The .deb: /opt/cardrender (the same layout), /usr/bin/cardrender, the systemd unit.
version="$("$prefix/bin/cardrender" --version | awk '{print $2}')"
arch="$(dpkg --print-architecture)"
fonts="fonts-liberation2, fonts-dancingscript, fonts-gnutypewriter, fonts-ebgaramond, fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji, opencv-data"
# The libraries the binary itself names (DT_NEEDED), not what they pull in (their own
# packages depend on the rest), and those it opens on first use instead of linking them
# (Sources/Native/CLazyLibraries/Loader.c: libvips, GLib, Pango, cairo, fontconfig, libheif, libqpdf;
# lib/cardrender/libFaceDetectorPlugin.so: OpenCV's object detection, whose cascades are opencv-data's).
needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
opened="libvips.so.42 libgobject-2.0.so.0 libgmodule-2.0.so.0 libglib-2.0.so.0 libpangocairo-1.0.so.0
  libpangoft2-1.0.so.0 libpango-1.0.so.0 libcairo.so.2 libfontconfig.so.1 libheif.so.1 libqpdf.so.29
  libopencv_objdetect.so.406"
packages="$({ for name in $needed; do
  library="$(awk -v name="$name" '$1 == name && $3 ~ /^\// {print $3}' <<<"$links")"
  [[ -n $library ]] || continue
  dpkg -S "$(realpath "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || true
done; for name in $opened; do
  library="$(ldconfig -p | awk -v name="$name" '$1 == name {print $NF; exit}')"
  [[ -n $library ]] || { echo "package: $name (opened at run time) is not installed" >&2; exit 1; }
  dpkg -S "$(realpath "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || true
done; } | cut -d: -f1 | sort -u)"
depends="$(for package in $packages; do
  version_now="$(dpkg-query -W -f='${Version}' "$package" | sed 's/-[^-]*$//')"
  echo "$package (>= $version_now)"
done | paste -sd, | sed 's/,/, /g')"
stage="$dist/deb"
rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/usr/bin" "$stage/lib/systemd/system"
cp -R "$prefix" "$stage/opt-cardrender"
mkdir -p "$stage/opt" && mv "$stage/opt-cardrender" "$stage/opt/cardrender"
ln -s /opt/cardrender/bin/cardrender "$stage/usr/bin/cardrender"
cp deploy/systemd/cardrender-serve@.service "$stage/lib/systemd/system/"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: cardrender
Version: $version
Architecture: $arch
Maintainer: cardrender <cardrender@localhost>
Depends: $depends, $fonts
Section: graphics
Priority: optional
Description: postcards for print and thumbnails for the web, on libvips
 The cardrender command (render, thumb, serve, runs) with its frame catalogue,
 the nginx configuration and the systemd unit for serve. The Swift runtime is
 linked in; the libraries it needs are the Depends above.
CONTROL
deb="$dist/cardrender_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$stage" "$deb" >&2
rm -rf "$stage"
echo "package: $prefix (bin/cardrender, lib/cardrender/libFaceDetectorPlugin.so, share/cardrender/frames, share/cardrender/press) and $deb" >&2
echo "package: Depends: $depends, $fonts" >&2
