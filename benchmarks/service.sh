#!/usr/bin/env bash
# The postcard service measured (issue 29, part 6), one run on this machine, release build:
#  - preview latency (POST /v1/previews of a 12 MP JPEG already uploaded, a new gesture each
#    time: scale and offset change), p50/p95/p99, for one editor, then for 20 editors at once
#    each on their own photo (20 different 12 MP JPEGs);
#  - `cardrender render` of the same card (one process, the sample among its files), for scale;
#  - order to ready: 10 cards (10 recipients) from POST /v1/cards until the last is ready,
#    against `cardrender render` of the same 10 cards in one batch;
#  - RSS of the server after 2,000 previews, then at its peak after 20 editors at once on
#    5 photos, every gesture turned (bound: 550 MiB, the script fails above it: issue 38's 400 MiB
#    with 160 MiB of kept decodes, plus the 224 MiB more that issue 39's default of 384 MiB keeps).
# Usage: bash benchmarks/service.sh   (needs ../shared/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
port=8329
! ss -ltn | grep -q ":$port " || { echo "service.sh: port $port is in use" >&2; exit 1; }
photo="$corpus/photos/phone-4032x3024.jpg"
mkdir -p "$work/photos"
# 20 different photos of the same 12 MP: the corpus photo re-encoded at 20 qualities.
for quality in $(seq 71 90); do vips copy "$photo" "$work/photos/p$quality.jpg[Q=$quality]"; done
key=$("$ours" keys create bench --data "$work/data" 2>/dev/null)
"$ours" serve --data "$work/data" --port "$port" --rate-limit 100000 --cache "$work/cache" 2>"$work/serve.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
echo "serve: RSS at start $(awk '/VmRSS/ {print $2}' "/proc/$pid/status") KiB" >&2
python3 - "$port" "$key" "$work" "$ours" "$pid" "$photo" <<'PY'
import http.client, json, os, shutil, statistics, subprocess, sys, threading, time
sys.path.insert(0, "benchmarks")
from service_client import call, configure, pick, upload
port, key, work, ours, pid, photo = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
configure(port, key)

def spec(photo_id, step, recipients=0):
    # A pinch and a drag: the scale and offset of a gesture, a new one each step.
    body = {"version": 1, "photo": photo_id, "frame": "travel/airmail",
            "transform": {"scale": 1.0 + (step % 40) * 0.05, "offset": {"x": ((step % 17) - 8) * 0.01,
                                                                          "y": ((step % 13) - 6) * 0.01}}}
    if recipients:
        body["message"] = {"text": "Greetings from the coast"}
        body["recipients"] = [{"name": f"Person {i}", "address1": f"{i} Road", "postcode": "SW1A 1AA",
                               "city": "Town", "country": "UK"} for i in range(recipients)]
    return body

def editor(photo_id, count, first_step, latencies):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for step in range(first_step, first_step + count):
        body = json.dumps(spec(photo_id, step)).encode()
        started = time.perf_counter()
        status, data = call(connection, "POST", "/v1/previews", body)
        latencies.append((time.perf_counter() - started) * 1000)
        assert status == 200, data

def percentiles(values):
    return pick(values, 0.5), pick(values, 0.95), pick(values, 0.99)

def rss():
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024

peaks = []

def phase_peak(name):
    """Records the peak RSS since the last call under `name`, then starts a new peak (Linux:
    writing 5 to clear_refs resets VmHWM)."""
    peaks.append((name, rss()[1]))
    with open(f"/proc/{pid}/clear_refs", "w") as clear:
        clear.write("5")

photos = sorted(os.listdir(os.path.join(work, "photos")))
ids = [upload(os.path.join(work, "photos", name)) for name in photos]
phase_peak("20 uploads")
rows = []
previews = 0

# One editor: 200 gestures on one photo (the first decodes; the rest use the kept decode).
latencies = []
editor(ids[0], 200, 0, latencies)
previews += 200
p50, p95, p99 = percentiles(latencies[1:])
rows.append(("preview, 1 editor (199 gestures after the first)", p50, p95, p99))
phase_peak("1 editor, 200 previews")

# 20 editors at once, each on their own photo, 40 gestures each.
latencies = []
threads = [threading.Thread(target=editor, args=(ids[i], 40, 1000, latencies)) for i in range(20)]
for thread in threads: thread.start()
for thread in threads: thread.join()
previews += 800
p50, p95, p99 = percentiles(latencies)
rows.append(("preview, 20 editors at once (800 gestures)", p50, p95, p99))
phase_peak("20 editors at once, 800 previews")

# `cardrender render` of the same card, 10 runs, one process each (its sample is the preview's bytes).
card_dir = os.path.join(work, "card")
os.makedirs(card_dir)
shutil.copy(photo, os.path.join(card_dir, "p.jpg"))
body = spec("p.jpg", 7)
with open(os.path.join(card_dir, "p.card.json"), "w") as file:
    json.dump(body, file)
times = []
for run in range(10):
    started = time.perf_counter()
    subprocess.run([ours, "render", card_dir, "--out", os.path.join(work, f"render{run}"), "--no-cache", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append((time.perf_counter() - started) * 1000)
rows.append(("cardrender render of the same card (whole process, 10 runs)", *percentiles(times)))

# Order to ready: 10 cards, against render of the same 10 in one batch.
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
order = json.dumps({"spec": spec(ids[0], 3, recipients=10)}).encode()
started = time.perf_counter()
status, data = call(connection, "POST", "/v1/cards", order)
assert status == 202, data
cards = [card["id"] for card in json.loads(data)["cards"]]
pending = set(cards)
while pending:
    for card in list(pending):
        status, data = call(connection, "GET", f"/v1/cards/{card}")
        state = json.loads(data)["status"]
        assert state in ("queued", "rendering", "ready"), data
        if state == "ready":
            pending.discard(card)
    time.sleep(0.02)
order_seconds = time.perf_counter() - started
batch_dir = os.path.join(work, "batch")
os.makedirs(batch_dir)
shutil.copy(photo, os.path.join(batch_dir, "p.jpg"))
with open(os.path.join(batch_dir, "p.card.json"), "w") as file:
    json.dump(spec("p.jpg", 3, recipients=10), file)
started = time.perf_counter()
subprocess.run([ours, "render", batch_dir, "--out", os.path.join(work, "batch-out"), "--no-cache", "--quiet"],
               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
render_seconds = time.perf_counter() - started

# Up to 2,000 previews in all, over the 20 photos, then the server's memory.
remaining = 2000 - previews
per_photo = remaining // 20
latencies = []
for index in range(20):
    editor(ids[index], per_photo, 5000, latencies)
previews += per_photo * 20
after_previews, _ = rss()
phase_peak("orders and the rest of 2,000 previews")

# Then 20 editors at once on 5 photos, every gesture turned (the general executor's whole
# decodes): the peak of a service that has run for a while (bound: 550 MiB).
def turned_editor(photo_id, count, first_step, latencies):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for step in range(first_step, first_step + count):
        body = spec(photo_id, step)
        body["transform"]["rotation"] = ((step * 7) % 81) - 40
        started = time.perf_counter()
        status, data = call(connection, "POST", "/v1/previews", json.dumps(body).encode())
        latencies.append((time.perf_counter() - started) * 1000)
        assert status == 200, data

latencies = []
threads = [threading.Thread(target=turned_editor, args=(ids[i % 5], 5, 9000 + i * 5, latencies)) for i in range(20)]
for thread in threads: thread.start()
for thread in threads: thread.join()
previews += 100
rows.append(("turned preview, 20 editors on 5 photos (100 gestures)", *percentiles(latencies)))
now, _ = rss()
phase_peak("then 20 editors at once on 5 photos, turned")
peak = max(value for _, value in peaks)

print("| measurement | p50 ms | p95 ms | p99 ms |")
print("| --- | ---: | ---: | ---: |")
for name, p50, p95, p99 in rows:
    print(f"| {name} | {p50:.1f} | {p95:.1f} | {p99:.1f} |")
print()
print(f"- order to ready, 10 cards (one card a recipient): {order_seconds:.2f} s; "
      f"`cardrender render` of the same card with 10 recipients (one process): {render_seconds:.2f} s "
      f"(ratio {order_seconds / render_seconds:.2f})")
print(f"- server RSS after 2,000 previews: {after_previews} MiB; after 20 editors' turned previews of 5 photos "
      f"({previews} in all): {now} MiB now, {peak} MiB at peak (bound: 550 MiB)")
print("- peak RSS by phase: " + "; ".join(f"{name} {value} MiB" for name, value in peaks))
one_editor_p95 = rows[0][2]
if one_editor_p95 > 100 or peak > 550:
    print(f"service.sh: a bound is missed (one editor's p95 {one_editor_p95:.1f} ms, bound 100; peak RSS {peak} MiB, bound 550)",
          file=sys.stderr)
    sys.exit(1)
PY
