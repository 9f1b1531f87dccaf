#!/usr/bin/env bash
# Walks N seeded card specs (default 10,000, seed 1) through both executors: every field's
# whole range, every dpi up to 1200. The test suite runs 200 of the same generator at
# 72-300 dpi; this is the long walk. A failure prints the spec, its seed and index, and the
# photo: paste the JSON into a .card.json beside that photo to replay it with
# `cardrender render DIR --out OUT --no-cache --engine auto|general`.
# Usage: bash scripts/fuzz-specs.sh [N] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-tests.sh
count=${1:-10000}
seed=${2:-1}
swift build --build-tests
CARDRENDER_FUZZ_COUNT=$count CARDRENDER_FUZZ_SEED=$seed CARDRENDER_FUZZ_MAX_DPI=${CARDRENDER_FUZZ_MAX_DPI:-1200} \
  swift test --skip-build --filter SpecSpaceTests 2>&1 | grep -vE '^(◇|✔ Test case)' 
