#!/usr/bin/env bash
# Memory of `cardrender serve` under cache misses (issue 20, part 3): 2,400 requests over the
# corpus photos (the iPhone HEIC included), every one a new width (100-1599, a fixed
# pseudo-random order), 4 clients at once; RSS sampled every 0.5 s. One run.
# Usage: bash benchmarks/server-memory.sh   (WORKERS=N, SERVE_ARGS="...", REQUESTS=N to change the run)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
root="$work/root"
mkdir -p "$root"
for photo in "$corpus"/photos/*.jpg "$corpus"/photos/*.heic; do cp "$photo" "$root/"; done
port=8304
! ss -ltn | grep -q ":$port " || { echo "server-memory.sh: port $port is in use" >&2; exit 1; }
workers="${WORKERS:-$(nproc)}"
# shellcheck disable=SC2086
"$ours" serve --root "$root" --port "$port" --cache "$work/cache" --workers "$workers" --queue 256 \
  ${SERVE_ARGS:-} 2>"$work/serve.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
echo "serve: --workers $workers ${SERVE_ARGS:-}; RSS at start $(awk '/VmRSS/ {print $2}' "/proc/$pid/status") KiB"
(while kill -0 "$pid" 2>/dev/null; do awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null; sleep 0.5; done) \
  >"$work/rss" &
python3 - "$port" "$root" "${REQUESTS:-2400}" <<'PY'
import http.client, os, random, sys, threading, time
port, root, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
names = sorted(os.listdir(root))
rng = random.Random(20)
widths = list(range(100, 1600))
rng.shuffle(widths)
jobs = [(names[i % len(names)], widths[i % len(widths)]) for i in range(count)]
statuses, lock, next_job = {}, threading.Lock(), [0]
def client():
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while True:
        with lock:
            if next_job[0] >= len(jobs): return
            name, width = jobs[next_job[0]]; next_job[0] += 1
        connection.request("GET", f"/thumb/{name}?width={width}")
        response = connection.getresponse(); response.read()
        with lock: statuses[response.status] = statuses.get(response.status, 0) + 1
started = time.time()
threads = [threading.Thread(target=client) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(f"{count} requests over {len(names)} photos in {time.time() - started:.1f} s; statuses {statuses}")
PY
sleep 1
rss_end=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
kill "$pid"; wait "$pid" 2>/dev/null || true
awk -v end="$rss_end" -v hwm="$hwm" '{ n++; if ($1 > max) max = $1; if (n == 10) at5 = $1 }
  END { printf "RSS after 5 s %d MiB, highest sampled %d MiB (peak %d MiB), at the end %d MiB\n", at5 / 1024, max / 1024, hwm / 1024, end / 1024 }' "$work/rss"
