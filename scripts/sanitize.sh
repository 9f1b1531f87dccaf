#!/usr/bin/env bash
# The C under sanitizers: builds cardrender and its tests with AddressSanitizer (Swift and C)
# and our C targets with UndefinedBehaviorSanitizer (trapping on the first undefined
# operation), in their own build folder, and runs the suites that reach the C: the fast
# path's codecs and kernels, the card pipeline (JPEG, PNG, HEIF, text, colour and libqpdf
# bridges, the spec walk), VipsKit's shims and FileUtilities's openat2. CI runs it after the
# test command (`.ci/run`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-tests.sh
started=$SECONDS
export CARDRENDER_SANITIZE=1
scratch=.build-sanitizers
swift build --build-tests --sanitize=address --scratch-path "$scratch"
echo "sanitize: build took $((SECONDS - started)) s" >&2
started=$SECONDS
# Leaks are not checked: GLib and libvips keep process-lifetime caches that LeakSanitizer
# reports at exit. halt_on_error: the first report fails the run.
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=0
suites="CardKitTests|VipsKitTests|FileUtilitiesTests|RenderCacheTests"
swift test --skip-build --sanitize=address --scratch-path "$scratch" --filter "$suites"
echo "sanitize: the sanitized suites took $((SECONDS - started)) s" >&2
