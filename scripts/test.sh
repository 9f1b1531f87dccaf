#!/usr/bin/env bash
# The whole test suite: sets up what it needs, builds, runs every test (real libvips, real files).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
[[ -d ../shared/corpus ]] || echo "test: ../shared/corpus is absent: real-photo tests will be skipped" >&2
swift build --build-tests
bash scripts/package.sh   # the installable artifact (static Swift runtime); its tests run below
swift test --skip-build
