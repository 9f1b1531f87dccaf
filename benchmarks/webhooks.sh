#!/usr/bin/env bash
# Webhooks measured (issue 41, part 7), one run on this machine, release build, SQLite:
#  - latency: from an event's state change (its timestamp, written in the change's
#    transaction) to its arrival at the receiver, for 200 cards ordered (queued and ready:
#    400 events), p50/p95/max; the target is p95 under 1 s;
#  - drain: 10,000 events or more (100 orders of 50 recipients, every card then cancelled)
#    replayed to a new endpoint at once; events sent per second until the outbox is empty
#    (the target is 500/s or more).
# The receiver is nginx answering 204 (it logs the arrival time and the webhook-id), so the
# sender, not the receiver, is measured; both share the machine's cores.
# Usage: bash benchmarks/webhooks.sh   (needs ../shared/corpus; CARDRENDER_BIN to measure a build)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
dpkg-query -W -f='${Status}' nginx-light 2>/dev/null | grep -q "install ok installed" \
  || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
port=8331 receiver=8332
for p in $port $receiver; do ! ss -ltn | grep -q ":$p " || { echo "webhooks.sh: port $p is in use" >&2; exit 1; }; done
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<NGINX
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
worker_processes 1;
events { worker_connections 1024; }
http {
  log_format hooks '\$msec \$http_webhook_id';
  access_log $work/nginx/hooks.log hooks;
  client_body_temp_path $work/nginx;
  server { listen 127.0.0.1:$receiver; location / { return 204; } }
}
NGINX
nginx -c "$work/nginx/nginx.conf"
# A small photo: the renders (one worker) stay out of the way of the sender.
vips thumbnail "$corpus/photos/phone-4032x3024.jpg" "$work/photo.jpg" 800
key=$("$ours" keys create bench --data "$work/data" 2>/dev/null)
"$ours" serve --data "$work/data" --port "$port" --rate-limit 100000 --cache "$work/cache" \
  --allow-loopback-webhooks 2>"$work/serve.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
python3 - "$port" "$key" "$work" "$receiver" <<'PY'
import json, re, sys, time, urllib.request
from datetime import datetime
sys.path.insert(0, "benchmarks")
from service_client import call, configure, connect, pick, upload
port, key, work, receiver = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
configure(port, key)
connection = connect()
photo = upload(work + "/photo.jpg")

def order(recipients):
    spec = {"version": 1, "photo": photo, "recipients": [
        {"name": f"P {i}", "address1": f"{i} Road", "postcode": "SW1A 1AA", "city": "Town", "country": "UK"}
        for i in range(recipients)]}
    status, data = call(connection, "POST", "/v1/cards", json.dumps({"spec": spec}).encode())
    assert status == 202, data
    return [card["id"] for card in json.loads(data)["cards"]]

def endpoint():
    status, data = call(connection, "POST", "/v1/webhook-endpoints",
                        json.dumps({"url": f"http://127.0.0.1:{receiver}/hooks"}).encode())
    assert status == 201, data
    return json.loads(data)["id"]

def events():
    found, after = [], None
    while True:
        status, data = call(connection, "GET", "/v1/events?limit=100" + (f"&after={after}" if after else ""))
        page = json.loads(data)
        found += page["events"]
        after = page["next"]
        if not page["more"]:
            return found

def arrivals():
    seen = {}
    with open(work + "/nginx/hooks.log") as log:
        for line in log:
            at, event = line.split()
            seen.setdefault(event, float(at))
    return seen

def delivered_total():
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    match = re.search(r'cardrender_webhook_deliveries_total\{outcome="delivered"\} (\d+)', text)
    return int(match.group(1)) if match else 0

def stamp(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()

# Latency: 200 cards, their queued and ready events as they happen.
first = endpoint()
ids = []
for _ in range(10):
    ids += order(20)
deadline = time.time() + 600
while time.time() < deadline:
    listed = events()
    if sum(1 for e in listed if e["type"] == "card.ready") == len(ids) and len(arrivals()) >= len(listed):
        break
    time.sleep(0.5)
seen = arrivals()
latencies = sorted((seen[e["id"]] - stamp(e["timestamp"])) * 1000 for e in listed if e["id"] in seen)
print(f"latency: {len(latencies)} events, state change to arrival: p50 {pick(latencies, 0.5):.0f} ms, "
      f"p95 {pick(latencies, 0.95):.0f} ms, max {latencies[-1]:.0f} ms (target p95 < 1000 ms)")
call(connection, "DELETE", f"/v1/webhook-endpoints/{first}")

# Drain: 100 orders of 50, every card cancelled: 10,000 events and more, replayed at once.
cards = []
for _ in range(100):
    cards += order(50)
for card in cards:
    call(connection, "DELETE", f"/v1/cards/{card}")
total = len(events())
second = endpoint()
before = delivered_total()
started = time.perf_counter()
status, data = call(connection, "POST", f"/v1/webhook-endpoints/{second}/replay",
                    json.dumps({"since": "2020-01-01T00:00:00Z"}).encode())
queued = json.loads(data)["events"]
while delivered_total() - before < queued and time.perf_counter() - started < 600:
    time.sleep(0.1)
elapsed = time.perf_counter() - started
print(f"drain: {queued} events replayed ({total} in all), sent in {elapsed:.1f} s: {queued / elapsed:.0f} events/s "
      f"(target 500/s)")
PY
echo "webhooks: serve's RSS at the end $(awk '/VmRSS/ {print $2}' "/proc/$pid/status") KiB" >&2
