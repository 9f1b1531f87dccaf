#!/usr/bin/env bash
# Scans measured (issue 41, part 7), one run on this machine, release build, SQLite: the time
# of `POST /v1/scans` seen by its client (the photo sent, its code found and checked, the card
# recorded), for backs of real service cards: each card's PDF back printed by Ghostscript at
# 300 dpi, then photographed badly by Tests/scans/degrade.py (turned, at an angle, blurred,
# unevenly lit, 150 dpi, JPEG q40), and the same pictures enlarged to a phone's 12 MP
# (4032 x 3024, JPEG q85, 2-4 MB: the decode of a phone's photo is part of a scan). 20 cards,
# each scanned 5 times (the same outcome again: the whole search each time, nothing recorded
# twice); median, p95 and max; the target is under 200 ms. Beside it, libdmtx's own reader
# (`dmtxread`, Debian dmtx-utils) on the 150 dpi pictures, to show what the locator saves.
# Usage: bash benchmarks/scans.sh   (needs ../shared/corpus; CARDRENDER_BIN to measure a build)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
dpkg-query -W -f='${Status}' dmtx-utils 2>/dev/null | grep -q "install ok installed" \
  || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dmtx-utils >/dev/null
port=8333
! ss -ltn | grep -q ":$port " || { echo "scans.sh: port $port is in use" >&2; exit 1; }
vips thumbnail "$corpus/photos/phone-4032x3024.jpg" "$work/photo.jpg" 1600
key=$("$ours" keys create bench --data "$work/data" 2>/dev/null)
"$ours" serve --data "$work/data" --port "$port" --rate-limit 100000 --cache "$work/cache" 2>"$work/serve.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
python3 - "$port" "$key" "$work" <<'PY'
import json, os, subprocess, sys, time
sys.path.insert(0, "benchmarks")
from service_client import call, configure, connect, pick, upload
port, key, work = int(sys.argv[1]), sys.argv[2], sys.argv[3]
configure(port, key)
connection = connect()
photo = upload(work + "/photo.jpg")
spec = {"version": 1, "photo": photo, "message": {"text": "Bonjour de Lyon ! À bientôt,\nCamille"},
        "sender": {"name": "Camille Martin", "address1": "3 place Bellecour", "postcode": "69002",
                   "city": "Lyon", "country": "France"},
        "recipients": [{"name": f"Personne {i}", "address1": f"{i} rue des Lilas", "postcode": "75011",
                        "city": "Paris", "country": "France"} for i in range(20)]}
status, data = call(connection, "POST", "/v1/cards", json.dumps({"spec": spec, "press": "eu-a6-fogra39"}).encode())
assert status == 202, data
ids = [card["id"] for card in json.loads(data)["cards"]]
deadline = time.time() + 600
while time.time() < deadline:
    statuses = [json.loads(call(connection, "GET", f"/v1/cards/{i}")[1])["status"] for i in ids]
    if all(s in ("ready", "failed") for s in statuses):
        break
    time.sleep(0.5)
assert all(s == "ready" for s in statuses), statuses
status, data = call(connection, "POST", "/v1/print-runs", json.dumps({"press": "eu-a6-fogra39", "sheet": "sra3"}).encode())
assert status == 201, data
run = json.loads(data)["id"]
assert call(connection, "POST", f"/v1/print-runs/{run}/mailed")[0] == 200
backs = []
for index, card in enumerate(ids):
    status, pdf = call(connection, "GET", f"/v1/cards/{card}/files/print")
    path = f"{work}/card-{index:02d}"
    open(path + ".pdf", "wb").write(pdf)
    subprocess.run(["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=png16m", "-r300", "-dFirstPage=2",
                    "-dLastPage=2", f"-sOutputFile={path}.png", path + ".pdf"], check=True)
    backs.append(path + ".png")
subprocess.run(["python3", "Tests/scans/degrade.py", "41", work + "/photographed"] + backs, check=True,
               stdout=subprocess.DEVNULL)
small = [f"{work}/photographed/card-{i:02d}.jpg" for i in range(len(ids))]
phone = []
for path in small:
    big = path.replace(".jpg", "-12mp.jpg")
    subprocess.run(["vips", "thumbnail", path, big + "[Q=85]", "4032", "--height", "3024", "--size", "force"], check=True)
    phone.append(big)

def measure(pictures, label):
    times, wrong = [], 0
    for _ in range(5):
        for card, picture in zip(ids, pictures):
            body = open(picture, "rb").read()
            started = time.perf_counter()
            status, data = call(connection, "POST", "/v1/scans?outcome=delivered", body, "image/jpeg")
            times.append((time.perf_counter() - started) * 1000)
            if status != 200 or json.loads(data)["id"] != card:
                wrong += 1
    times.sort()
    size = sum(os.path.getsize(p) for p in pictures) / len(pictures) / 1e3
    print(f"scan, {label} ({size:.0f} KB each): {len(times)} scans, {wrong} not read, median {pick(times, 0.5):.0f} ms, "
          f"p95 {pick(times, 0.95):.0f} ms, max {times[-1]:.0f} ms (target < 200 ms)")

measure(small, "150 dpi JPEG q40")
measure(phone, "12 MP phone JPEG")
# libdmtx's own reader, same 150 dpi pictures, the first symbol of 22 x 22, 5 s at most each.
times, read = [], 0
for picture in small:
    started = time.perf_counter()
    out = subprocess.run(["dmtxread", "-N1", "-m5000", "-s22x22", picture], capture_output=True)
    times.append((time.perf_counter() - started) * 1000)
    read += out.returncode == 0 and len(out.stdout) > 0
times.sort()
print(f"dmtxread (libdmtx's reader, whole picture), 150 dpi JPEG q40: {read} of {len(small)} read, "
      f"median {pick(times, 0.5):.0f} ms, max {times[-1]:.0f} ms")
PY
echo "scans: serve's RSS at the end $(awk '/VmRSS/ {print $2}' "/proc/$pid/status") KiB" >&2
