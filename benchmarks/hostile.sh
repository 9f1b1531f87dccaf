#!/usr/bin/env bash
# The probes of issue 50, run again against a release build of `serve --data` on SQLite: a key
# holder attacking the service, and client libraries as people use them. Each probe prints
# what the node answered and what it cost (times from the client; CPU and peak memory from
# /proc for the node's process). One run on this machine; the node, the receivers and the
# script share its cores.
#  1. forms: a part with 65,535 header fields (0.9 MB), one with 20,000, 40,000 small parts,
#     and a 9.6 MB form sent whole by a client that leaves at once (the node's CPU after);
#  2. two uploads of one key trickling a byte every 5 s, while another key uploads and scans;
#  3. 300 wrong keys from one address at once, then a valid key from it;
#  4. Python's http.client sending 64 MiB + 1 (the most a photo may be, and a byte);
#  5. a number of 1e400 in a spec;
#  6. a 100 MP PNG uploaded and previewed (the node's peak memory), a 120 MP PNG scanned (its CPU);
#  7. webhooks: one key's endpoints (as many as a key may have) at a receiver that never answers,
#     and another key's webhook; a receiver taking 2 s on 64 endpoints (4 keys of 16).
# Usage: bash benchmarks/hostile.sh   (CARDRENDER_BIN to measure a build)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
port=8341
! ss -ltn | grep -q ":$port " || { echo "hostile.sh: port $port is in use" >&2; exit 1; }
"$ours" keys create attacker --data "$work/data" >"$work/attacker.key" 2>/dev/null
"$ours" keys create customer --data "$work/data" >"$work/customer.key" 2>/dev/null
for index in 1 2 3; do "$ours" keys create "extra$index" --data "$work/data" >"$work/extra$index.key" 2>/dev/null; done
vips xyz "$work/xyz.v" 10000 10000 && vips cast "$work/xyz.v" "$work/100mp.png[compression=1]" uchar --shift
vips black "$work/black.v" 12000 10000 --bands 3 && vips linear "$work/black.v" "$work/120mp.png" 1 230
rm -f "$work/xyz.v" "$work/black.v"
"$ours" serve --data "$work/data" --port "$port" --cache "$work/cache" --rate-limit 100000 \
  --allow-loopback-webhooks 2>"$work/serve.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
python3 - "$port" "$pid" "$work" "$corpus" <<'PY'
import http.client, http.server, json, os, socket, sys, threading, time
port, pid, work, corpus = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
keys = {name: open(f"{work}/{name}.key").read().strip() for name in ["attacker", "customer", "extra1", "extra2", "extra3"]}
ticks = os.sysconf("SC_CLK_TCK")

def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks

def peak():
    return next(int(line.split()[1]) // 1024 for line in open(f"/proc/{pid}/status") if line.startswith("VmHWM"))

def request(method, path, body=None, key="customer", kind="application/json", timeout=120):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    started = time.time()
    try:
        headers = {"Authorization": "Bearer " + keys.get(key, key), "Content-Type": kind}
        connection.request(method, path, body=body, headers=headers)
        answer = connection.getresponse()
        data = answer.read()
        return answer.status, data, time.time() - started
    except Exception as error:
        return type(error).__name__, b"", time.time() - started
    finally:
        connection.close()

def form(parts, fields=0):
    body = []
    for index in range(parts):
        headers = "".join(f"X-Field-{n}: v\r\n" for n in range(fields))
        body.append(f'--B\r\nContent-Disposition: form-data; name="f{index}"\r\n{headers}\r\nv\r\n')
    return ("".join(body) + "--B--\r\n").encode()

print("1. forms")
for label, body in [("65,535 header fields", form(1, 65535)), ("20,000 header fields", form(1, 20000)),
                    ("40,000 parts", form(40000))]:
    before = cpu()
    status, data, took = request("POST", "/v1/photos", body, kind="multipart/form-data; boundary=B")
    print(f"   {label} ({len(body) / 1e6:.1f} MB): {status} in {took * 1000:.0f} ms, "
          f"{(cpu() - before) * 1000:.0f} ms of the node's CPU: {json.loads(data or b'{}').get('detail', '')}")
big = form(400000)
before = cpu()
raw = socket.create_connection(("127.0.0.1", port))
raw.sendall(f"POST /v1/photos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {keys['attacker']}\r\n"
            f"Content-Type: multipart/form-data; boundary=B\r\nContent-Length: {len(big)}\r\n\r\n".encode())
try:
    raw.sendall(big)
except OSError:
    pass
raw.close()
time.sleep(5)
print(f"   {len(big) / 1e6:.1f} MB form, client gone at once: {(cpu() - before) * 1000:.0f} ms of the node's CPU in the 5 s after")

print("2. trickling uploads of one key, another key's upload and scan")
trickles = []
for _ in range(2):
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(f"POST /v1/photos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {keys['attacker']}\r\n"
                       "Content-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n".encode())
    trickles.append(connection)
stop = threading.Event()
def trickle():
    while not stop.is_set():
        for connection in trickles:
            try:
                connection.sendall(b"x")
            except OSError:
                pass
        stop.wait(5)
threading.Thread(target=trickle, daemon=True).start()
time.sleep(1)
photo = open(f"{corpus}/photos/phone-4032x3024.jpg", "rb").read()
status, _, took = request("POST", "/v1/photos", photo, kind="image/jpeg")
print(f"   the other key's upload: {status} in {took:.2f} s")
status, _, took = request("POST", "/v1/scans", photo, kind="image/jpeg")
print(f"   the other key's scan: {status} in {took:.2f} s")
for connection in trickles:
    connection.settimeout(60)
    started = time.time()
    answer = b""
    try:
        while chunk := connection.recv(4096):
            answer += chunk
    except OSError:
        pass
    line = answer.split(b"\r\n")[0].decode() or "nothing"
    print(f"   a trickle: {line} after {time.time() - started:.1f} s more")
stop.set()

print("3. 300 wrong keys at once, then a valid key")
results = []
def wrong(index):
    results.append(request("GET", "/v1/cards", key=f"crk_guess{index}")[0])
threads = [threading.Thread(target=wrong, args=(index,)) for index in range(300)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(f"   {results.count(401)} x 401, {results.count(429)} x 429; then the valid key: {request('GET', '/v1/cards')[0]}")

print("4. Python's http.client, 64 MiB + 1 (the most a photo may be, and a byte)")
status, data, _ = request("POST", "/v1/photos", b"x" * (64 * 1024 * 1024 + 1), kind="image/jpeg")
print(f"   {status}: {json.loads(data or b'{}').get('detail', '')}")

print("5. 1e400 in a spec")
status, data, _ = request("POST", "/v1/cards", b'{"spec": {"version": 1, "photo": "x", "transform": {"scale": 1e400}}}')
print(f"   {status}: {json.loads(data).get('detail')}")

print("6. large PNGs")
png = open(f"{work}/100mp.png", "rb").read()
status, data, took = request("POST", "/v1/photos", png, kind="image/png", key="extra1")
digest = json.loads(data).get("id")
for spec in [{"frame": "travel/airmail"}, {"transform": {"scale": 1.4, "rotation": 12}}]:
    status, _, took = request("POST", "/v1/previews", json.dumps({"version": 1, "photo": digest, **spec}).encode(), key="extra1")
    print(f"   100 MP PNG preview: {status} in {took:.2f} s")
print(f"   the node's peak memory so far: {peak()} MiB")
before = cpu()
status, data, took = request("POST", "/v1/scans", open(f"{work}/120mp.png", "rb").read(), kind="image/png", key="extra2")
print(f"   120 MP PNG scan: {status} in {took:.2f} s, {cpu() - before:.2f} s of the node's CPU")

print("7. webhooks")
class Slow(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    delay = 0
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.arrivals.append((time.time(), self.path, self.headers.get("webhook-id")))
        time.sleep(self.server.delay)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *arguments):
        pass
def receiver(delay):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    server.delay, server.arrivals = delay, []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
never, fast, two = receiver(3600), receiver(0), receiver(2)
def endpoint(key, url):
    return request("POST", "/v1/webhook-endpoints", json.dumps({"url": url}).encode(), key=key)[0]
made = [endpoint("attacker", f"http://127.0.0.1:{never.server_port}/{index}") for index in range(17)]
print(f"   the attacker's endpoints: {made.count(201)} made, then {made[-1]}")
small = request("POST", "/v1/photos", open(f"{corpus}/photos/phone-4032x3024.jpg", "rb").read(), kind="image/jpeg", key="attacker")
attacker_photo = json.loads(small[1])["id"]
for _ in range(8):
    request("POST", "/v1/cards", json.dumps({"spec": {"version": 1, "photo": attacker_photo}}).encode(), key="attacker")
time.sleep(2)
endpoint("customer", f"http://127.0.0.1:{fast.server_port}/hooks")
customer_photo = json.loads(request("POST", "/v1/photos", photo, kind="image/jpeg")[1])["id"]
ordered = time.time()
request("POST", "/v1/cards", json.dumps({"spec": {"version": 1, "photo": customer_photo}}).encode())
while not fast.arrivals and time.time() - ordered < 120:
    time.sleep(0.01)
print(f"   the customer's webhook, beside {len(never.arrivals)} attempts held by the attacker's receiver: "
      f"{(fast.arrivals[0][0] - ordered) * 1000:.0f} ms after the order" if fast.arrivals else "   never arrived")
for key in ["extra1", "extra2", "extra3", "customer"]:
    for index in range(16 if key != "customer" else 15):
        endpoint(key, f"http://127.0.0.1:{two.server_port}/{key}/{index}")
started = time.time()
for key in ["extra1", "extra2", "extra3", "customer"]:
    photo_id = json.loads(request("POST", "/v1/photos", photo, kind="image/jpeg", key=key)[1])["id"]
    request("POST", "/v1/cards", json.dumps({"spec": {"version": 1, "photo": photo_id}}).encode(), key=key)
while len(two.arrivals) < 128 and time.time() - started < 300:
    time.sleep(0.1)
ids = [(path, event) for _, path, event in two.arrivals]
print(f"   a 2 s receiver on 64 endpoints (4 keys): {len(ids)} attempts, {len(ids) - len(set(ids))} repeated (a repeat is a failed attempt)")
PY
metrics=$(curl -s "http://127.0.0.1:$port/metrics")
grep -E '^cardrender_webhook_deliveries_total|^cardrender_uploads_busy_total|^cardrender_request_body_errors_total|^cardrender_auth' <<<"$metrics" | sed 's/^/   /'
