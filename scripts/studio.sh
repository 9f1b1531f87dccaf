#!/usr/bin/env bash
# The card studio on the bundled sample photos: sets up and builds as the demo does, starts
# the postcard service on 127.0.0.1 (SQLite and its store under out/studio), makes an API
# key, uploads the sample photos, and prints the studio's address for each photo. Runs until
# Ctrl-C, then stops the server. Open an address in a browser on this machine (or forward the
# port); the key travels in the address's fragment, which the browser never sends.
#
#   bash scripts/studio.sh          # port 8080
#   bash scripts/studio.sh 9000
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
port=${1:-8080}
swift build -c release --product cardrender >&2
swift build -c release --product FaceDetectorPlugin >&2  # opened on first use, beside the binary
binary=.build/release/cardrender
data="$PWD/out/studio/data"
mkdir -p "$data"
key=$("$binary" keys create "studio $(date +%F)" --data "$data" 2>/dev/null)
"$binary" serve --data "$data" --port "$port" --host 127.0.0.1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null' EXIT INT TERM
for _ in $(seq 300); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  kill -0 "$server" 2>/dev/null || { echo "studio: the server did not start (above)" >&2; exit 1; }
  sleep 0.1
done
echo "The studio: http://127.0.0.1:$port/studio#key=$key (choose a photo there), or one of the samples:"
for photo in scripts/samples/*.jpg; do
  id=$(curl -sf -H "Authorization: Bearer $key" -H 'Content-Type: application/octet-stream' \
    --data-binary "@$photo" "http://127.0.0.1:$port/v1/photos" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
  echo "  $(basename "$photo"): http://127.0.0.1:$port/studio#key=$key&photo=$id"
done
echo "Ctrl-C stops the server; the cards ordered stay in $data."
wait "$server"
