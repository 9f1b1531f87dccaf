#!/usr/bin/env bash
# Scale-out numbers on one machine, with a real S3 server (SeaweedFS from scripts/setup-tests.sh)
# on 127.0.0.1:
#  1. cards/s of one batch as 1 process (--jobs 2) and as 2 shards at once (--jobs 1 each),
#     with no cache and with the shared S3 cache (every card a miss, written to the bucket);
#  2. renders per key over the sharded run (from its manifests);
#  3. per-item latency of a cache hit, p50 and p99: from the bucket (each node's disk layer
#     empty) against from the node's own disk, for 192 thumbnails (24 JPEGs x 8 widths).
# usage: bash benchmarks/scale.sh      (needs ../shared/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
weed="$PWD/.build/services/seaweedfs/bin/weed"
mkdir -p "$work/in" "$work/weed"
cp "$corpus"/photos/*.jpg "$corpus"/orientation/*.jpg "$work/in/"
count=$(ls "$work/in" | wc -l)

# --- the S3 server, every port given, stopped on exit
ports=($(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(8)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
))
cat >"$work/weed/s3.json" <<JSON
{"identities": [{"name": "bench", "credentials": [{"accessKey": "bench", "secretKey": "bench-secret-0123456789"}],
  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
"$weed" -logdir="$work/weed" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$work/weed" -volume.max=8 \
  -master.port="${ports[0]}" -master.port.grpc="${ports[1]}" -volume.port="${ports[2]}" -volume.port.grpc="${ports[3]}" \
  -filer.port="${ports[4]}" -filer.port.grpc="${ports[5]}" -s3 -s3.port="${ports[6]}" -s3.port.iceberg=0 \
  -s3.port.lance=0 -s3.port.grpc="${ports[7]}" -s3.config="$work/weed/s3.json" -master.volumeSizeLimitMB=64 \
  >"$work/weed/out.log" 2>&1 &
weed_pid=$!
trap 'kill $weed_pid 2>/dev/null; wait $weed_pid 2>/dev/null; rm -rf "$work"' EXIT
export AWS_ENDPOINT_URL="http://127.0.0.1:${ports[6]}" AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=bench
export AWS_SECRET_ACCESS_KEY=bench-secret-0123456789
for _ in $(seq 100); do
  python3 - "$AWS_ENDPOINT_URL" <<'PY' && break
import sys, urllib.request
try: urllib.request.urlopen(sys.argv[1], timeout=1)
except urllib.error.HTTPError: sys.exit(0)
except Exception: sys.exit(1)
PY
  sleep 0.2
done

render() { # out, xdg, extra...
  local out=$1 xdg=$2; shift 2
  XDG_CACHE_HOME="$xdg" "$ours" render "$work/in" --out "$out" --frame travel/airmail --effect sepia --quality 90 --quiet "$@"
}
bucket() { # creates bucket $1: in SeaweedFS a bucket is a directory under the filer's /buckets
  curl -sf -X POST "http://127.0.0.1:${ports[4]}/buckets/$1/?op=mkdir" -o /dev/null
}
seconds() { python3 -c 'import sys,time; print(f"{time.time():.3f}")'; }

# --- 1. one process against two shards, same cores (median of 3)
measure() { # label, command... ; prints the median wall seconds
  local times=()
  for run in 1 2 3; do
    local start end
    start=$(seconds)
    "$@"
    end=$(seconds)
    times+=("$(python3 -c "print($end - $start)")")
  done
  python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" "${times[@]}"
}
one_nocache() { rm -rf "$work/o1"; render "$work/o1" "$work/x1" --jobs 2 --no-cache --run one; }
two_nocache() {
  rm -rf "$work/o2"
  render "$work/o2" "$work/x2a" --jobs 1 --no-cache --run two --shard 0/2 &
  local a=$!
  render "$work/o2" "$work/x2b" --jobs 1 --no-cache --run two --shard 1/2
  wait $a
}
n=0
one_s3() { n=$((n + 1)); rm -rf "$work/o3" "$work/x3"; render "$work/o3" "$work/x3" --jobs 2 --cache "s3://bench/one$n" --run one-s3; }
two_s3() {
  n=$((n + 1)); rm -rf "$work/o4" "$work/x4a" "$work/x4b"
  render "$work/o4" "$work/x4a" --jobs 1 --cache "s3://bench/two$n" --run two-s3 --shard 0/2 &
  local a=$!
  render "$work/o4" "$work/x4b" --jobs 1 --cache "s3://bench/two$n" --run two-s3 --shard 1/2
  wait $a
}
bucket bench   # one bucket (SeaweedFS gives each bucket its own volumes), a prefix per measurement
t1=$(measure one_nocache)
t2=$(measure two_nocache)
t3=$(measure one_s3)
t4=$(measure two_s3)
"$ours" runs verify two-s3 --shards 2 --out "$work/o4" --inputs "$work/in" >&2

# --- 2. renders per key in the last sharded run
python3 - "$work/o4/runs/two-s3" <<'PY' >"$work/keys"
import collections, glob, json, sys
renders = collections.Counter()
for path in glob.glob(sys.argv[1] + "/*.jsonl"):
    for line in list(open(path))[1:]:
        entry = json.loads(line)
        if entry["status"] == "rendered": renders[entry["key"]] += 1
print(f"{len(renders)} keys, renders per key: max {max(renders.values())}, mean {sum(renders.values()) / len(renders):.2f}")
PY

# --- 3. hit latency: bucket (empty disk layer) against disk, per thumbnail
for width in 120 160 200 240 280 320 360 400; do
  XDG_CACHE_HOME="$work/fill" "$ours" thumb "$work/in" --width $width --out "$work/t-fill" --cache s3://bench/hits --quiet
done
for width in 120 160 200 240 280 320 360 400; do
  rm -rf "$work/x-bucket"
  XDG_CACHE_HOME="$work/x-bucket" "$ours" thumb "$work/in" --width $width --out "$work/t-b" --cache s3://bench/hits \
    --jobs 1 --quiet --report "$work/bucket-$width.json"
  XDG_CACHE_HOME="$work/x-bucket" "$ours" thumb "$work/in" --width $width --out "$work/t-d" --cache s3://bench/hits \
    --jobs 1 --quiet --report "$work/disk-$width.json"
done

python3 - "$work" "$count" "$t1" "$t2" "$t3" "$t4" "$(cat "$work/keys")" <<'PY'
import glob, json, statistics, sys
work, count, t1, t2, t3, t4, keys = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:7]), sys.argv[7]
def latencies(kind):
    values, sources = [], set()
    for path in glob.glob(f"{work}/{kind}-*.json"):
        for item in json.load(open(path))["thumbnails"]:
            values.append(item["seconds"] * 1000)
            sources.add(item.get("cached"))
    values.sort()
    return values, sources
def pct(values, p): return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
print(f"## Scale-out on one machine ({count} photos; median of 3 runs)\n")
print("| run | wall s | cards/s |\n| --- | ---: | ---: |")
for label, t in [("1 process, --jobs 2, no cache", t1), ("2 shards at once, --jobs 1 each, no cache", t2),
                 ("1 process, --jobs 2, S3 cache (all misses)", t3), ("2 shards at once, --jobs 1 each, S3 cache (all misses)", t4)]:
    print(f"| {label} | {t:.2f} | {count / t:.1f} |")
print(f"\nSharded run with the S3 cache: {keys}.\n")
print("| cache hit, per thumbnail (read + hash + fetch + write) | n | p50 ms | p99 ms |\n| --- | ---: | ---: | ---: |")
for label, kind in [("from the bucket (disk layer empty)", "bucket"), ("from the node's disk", "disk")]:
    values, sources = latencies(kind)
    assert sources == {True}, f"{kind}: not all hits: {sources}"
    print(f"| {label} | {len(values)} | {pct(values, 50):.1f} | {pct(values, 99):.1f} |")
PY
