#!/usr/bin/env bash
# The whole test suite: sets up what it needs, builds, runs every test (real libvips, real files).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-tests.sh
[[ -d ../shared/corpus ]] || echo "test: ../shared/corpus is absent: real-photo tests will be skipped" >&2
started=$SECONDS
swift build --build-tests   # our targets: warnings are errors (Package.swift)
echo "test: debug build took $((SECONDS - started)) s" >&2
started=$SECONDS
bash scripts/package.sh   # the installable artifact (static Swift runtime); its tests run below
echo "test: release artifact took $((SECONDS - started)) s" >&2
started=$SECONDS
# The deployment suites (a Slurm cluster, nginx with two servers, two service nodes on test
# hosts, S3 roots and caches, schemathesis, the studio in Chromium, the installed artifact) load both cores for
# minutes; they run after the rest, so that the in-process server tests never share the
# machine with them.
deployment="SlurmRunTests|NginxFleetTests|ServiceFleetTests|SchemathesisTests|StudioBrowserTests|BucketRootTests|SharedCacheTests|S3ClientTests|InstalledArtifactTests|SystemdUnitTests"
# The postcard service's suite runs on PostgreSQL too, and the studio's in Chromium: a missing
# server or browser is a failure here, not a skip.
export CARDRENDER_REQUIRE_POSTGRES=1 CARDRENDER_REQUIRE_BROWSER=1 CARDRENDER_REQUIRE_TOOLS=1
swift test --skip-build --skip "$deployment"
swift test --skip-build --filter "$deployment"
echo "test: the tests took $((SECONDS - started)) s" >&2
