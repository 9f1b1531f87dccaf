#!/usr/bin/env bash
# Load benchmark of `cardrender serve` (issue 6), one run, side by side:
#  1. cache hits: width=200 PNGs of the corpus JPEGs, cardrender (from memory, and from
#     the disk cache alone with --memory-cache 0) vs nginx serving the same bytes as static
#     files (the ceiling);
#  2. cache misses: every request a new width, each URL once, cardrender (with and without
#     kept decodes) vs thumbor (PyPI, file loader, same photos, PNG output, as many
#     processes as cores);
#  3. RSS of the server after 10,000 and after 100,000 cache-hit requests.
# Exits non-zero when memory hits run below 0.5x nginx's requests/s (issue 39).
# wrk runs on the same 2 cores as the servers (the same handicap for every server).
# Usage: bash benchmarks/server.sh   (DURATION=10s CONNECTIONS=32 to change the load)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
for package in wrk nginx-light curl; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null
done
venv="${XDG_CACHE_HOME:-$HOME/.cache}/cardrender-bench/thumbor"
[[ -x $venv/bin/thumbor ]] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q thumbor; }

duration="${DURATION:-10s}"
connections="${CONNECTIONS:-32}"
cores="$(nproc)"
root="$work/root" static="$work/static"
mkdir -p "$root" "$static"
for photo in "$corpus"/photos/*.jpg; do cp "$photo" "$root/"; done
names=()
for photo in "$root"/*.jpg; do names+=("$(basename "$photo")"); done
pids=()
thumbor_group=""
# thumbor --processes forks workers that outlive their parent: it runs in a process group of
# its own (setsid), stopped as a group by its id, so no other process of the user is touched.
trap 'kill "${pids[@]}" 2>/dev/null; [[ -n $thumbor_group ]] && kill -- "-$thumbor_group" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for port in 8301 8302 8303; do
  ! ss -ltn | grep -q ":$port " || { echo "server.sh: port $port is in use" >&2; exit 1; }
done

# A wrk script cycling through the URL list in $1 (with $3 = once: each URL asked once, then
# only /healthz, so a fast server's misses never turn into hits; wrk cannot end a run early,
# so such a run is timed by the server's own count, see misses_run); prints requests/s, p50,
# p99 and non-2xx.
write_lua() {
  cat >"$2" <<LUA
local urls, i, once = {}, 0, "${3:-}" == "once"
for line in io.lines("$1") do urls[#urls + 1] = line end
-- wrk calls request() once before the run to see whether it changes: that call takes this
-- first item, so every URL of the list is still asked once.
if once then table.insert(urls, 1, "/healthz") end
request = function()
  i = i + 1
  if once and i > #urls then return wrk.format("GET", "/healthz") end
  return wrk.format("GET", urls[(i - 1) % #urls + 1])
end
done = function(summary, latency, requests)
  io.write(string.format("requests/s %.0f  p50 %.2f ms  p99 %.2f ms  non-2xx %d  requests %d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, summary.errors.status, summary.requests))
end
LUA
}
load() { # name url-base url-list   (the line also goes to $work/rates)
  write_lua "$3" "$work/$1.lua"
  printf '%-34s ' "$1"
  wrk -t1 -c"$connections" -d"$duration" -s "$work/$1.lua" "$2" | tail -1 | tee -a "$work/rates"
}
rate_of() { # the requests/s of the n-th load line
  sed -n "$1p" "$work/rates" | awk '{print $2}'
}
# Waits up to 30 s for a URL to answer 2xx.
wait_for() {
  for _ in $(seq 300); do curl -sf "$1" >/dev/null && return 0; sleep 0.1; done
  echo "server.sh: $1 did not answer" >&2
  exit 1
}
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# The 1,200 misses of $work/misses, each asked once, against the cardrender serve on 8301
# (fresh, empty cache): timed from the first request until the server has answered 1,200
# thumbnails (at most 120 s); p50 and p99 from its log's durations of the rendered ones.
misses_run() { # name
  write_lua "$work/misses" "$work/once.lua" once
  local count started ended
  count=$(wc -l <"$work/misses")
  : >"$work/serve.log"
  started=$(date +%s.%N)
  wrk -t1 -c"$connections" -d120s -s "$work/once.lua" http://127.0.0.1:8301 >/dev/null &
  local wrk_pid=$!
  for _ in $(seq 2400); do
    (($(requests_served) >= count)) && break
    sleep 0.05
  done
  ended=$(date +%s.%N)
  kill "$wrk_pid" 2>/dev/null; wait "$wrk_pid" 2>/dev/null || true
  printf '%-34s ' "$1"
  grep 'cache=rendered' "$work/serve.log" | sed -n 's/.*duration_ms=\([0-9.]*\).*status=\([0-9]*\).*/\1 \2/p' | sort -n \
    | awk -v n="$count" -v s="$started" -v e="$ended" '{d[NR] = $1; if ($2 !~ /^2/) bad++}
      END {printf "requests/s %.0f  p50 %.2f ms  p99 %.2f ms  non-2xx %d  requests %d\n",
        n / (e - s), d[int(NR * 0.5) + 1], d[int(NR * 0.99) + 1], bad, NR}'
}
requests_served() {
  curl -s "http://127.0.0.1:8301/metrics" | awk -F' ' '/^cardrender_http_requests_total\{route="thumb"/ {n += $2} END {print n + 0}'
}

# --- cardrender serve
"$ours" serve --root "$root" --port 8301 --cache "$work/cache" --workers "$cores" --queue 256 2>"$work/serve.log" &
serve_pid=$!
pids+=("$serve_pid")
wait_for http://127.0.0.1:8301/healthz

# --- nginx with the same bytes
for name in "${names[@]}"; do
  curl -sf "http://127.0.0.1:8301/thumb/$name?width=200" -o "$static/${name%.jpg}.png"
done
cat >"$work/nginx.conf" <<NGINX
user $(id -un);
worker_processes $cores;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  types { image/png png; }
  server { listen 127.0.0.1:8302; root $static; etag on; }
}
NGINX
nginx -c "$work/nginx.conf" -g 'daemon off;' &
pids+=($!)

# --- thumbor, file loader, no storage
cat >"$work/thumbor.conf" <<THUMBOR
LOADER = 'thumbor.loaders.file_loader'
FILE_LOADER_ROOT_PATH = '$root'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ENGINE = 'thumbor.engines.pil'
QUALITY = 85
THUMBOR
# Without job control a background job is not a group leader, so setsid makes the new
# session in this very process: its pid is the group id.
setsid "$venv/bin/thumbor" --port 8303 --conf "$work/thumbor.conf" --processes "$cores" -l error >"$work/thumbor.log" 2>&1 &
thumbor_group=$!
wait_for http://127.0.0.1:8303/healthcheck
wait_for "http://127.0.0.1:8302/${names[0]%.jpg}.png"

# URL lists
: >"$work/hits" ; : >"$work/static-urls" ; : >"$work/misses" ; : >"$work/thumbor-misses"
for name in "${names[@]}"; do
  echo "/thumb/$name?width=200" >>"$work/hits"
  echo "/${name%.jpg}.png" >>"$work/static-urls"
done
for width in $(seq 150 349); do
  for name in "${names[@]}"; do
    echo "/thumb/$name?width=$width" >>"$work/misses"
    echo "/unsafe/${width}x0/filters:format(png)/$name" >>"$work/thumbor-misses"
  done
done
file_check="$(curl -s "http://127.0.0.1:8303/unsafe/200x0/filters:format(png)/${names[0]}" | file -)"
echo "thumbor check: $file_check" >&2

echo "== cache hits: width=200 PNG, ${#names[@]} corpus JPEGs, wrk -t1 -c$connections -d$duration"
load "nginx (static files, ceiling)" http://127.0.0.1:8302 "$work/static-urls"
load "cardrender serve (cache hits)" http://127.0.0.1:8301 "$work/hits"
# The same hits from the disk cache alone (sendfile after each entry's first, checked read).
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
"$ours" serve --root "$root" --port 8301 --cache "$work/cache" --workers "$cores" --memory-cache 0 \
  2>>"$work/serve.log" &
serve_pid=$!
pids+=("$serve_pid")
wait_for http://127.0.0.1:8301/healthz
load "cardrender serve (disk hits)" http://127.0.0.1:8301 "$work/hits"
# Issue 39's bound: memory hits at half nginx's pace at least (the goal is 0.6x).
nginx_rate=$(rate_of 1) memory_rate=$(rate_of 2) disk_rate=$(rate_of 3)
memory_ratio=$(awk -v a="$memory_rate" -v b="$nginx_rate" 'BEGIN {printf "%.2f", a / b}')
echo "memory hits ${memory_ratio}x nginx (goal >= 0.6x, bound 0.5x); disk hits" \
  "$(awk -v a="$disk_rate" -v b="$nginx_rate" 'BEGIN {printf "%.2f", a / b}')x nginx"
echo "== cache misses: a new width (150-349) per request, same photos and widths for both:" \
  "thumbor for $duration (it cannot reach the list's end), cardrender each of the 1,200 once"
load "thumbor $("$venv/bin/thumbor" --version 2>/dev/null | tail -1) (PIL, $cores processes)" \
  http://127.0.0.1:8303 "$work/thumbor-misses"
# Each cardrender run on a fresh server with an empty cache: every request a miss. The
# second keeps no decode (--decoded-photos 0): every miss decodes its photo, as thumbor's do.
for variant in "kept decodes:--decoded-photos 32M" "no kept decode:--decoded-photos 0"; do
  kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
  rm -rf "$work/cache"
  "$ours" serve --root "$root" --port 8301 --cache "$work/cache" --workers "$cores" --queue 256 \
    ${variant#*:} 2>>"$work/serve.log" &
  serve_pid=$!
  pids+=("$serve_pid")
  wait_for http://127.0.0.1:8301/healthz
  misses_run "cardrender serve (misses, ${variant%%:*})"
done

echo "== RSS of a fresh cardrender serve under cache hits"
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
"$ours" serve --root "$root" --port 8301 --cache "$work/cache" --workers "$cores" 2>>"$work/serve.log" &
serve_pid=$!
pids+=("$serve_pid")
wait_for http://127.0.0.1:8301/healthz
hits_lua="$work/cardrender serve (cache hits).lua"
while (($(requests_served) < 10000)); do wrk -t1 -c"$connections" -d1s -s "$hits_lua" http://127.0.0.1:8301 >/dev/null; done
at10k=$(rss_kib "$serve_pid") n10k=$(requests_served)
while (($(requests_served) < 100000)); do wrk -t1 -c"$connections" -d2s -s "$hits_lua" http://127.0.0.1:8301 >/dev/null; done
at100k=$(rss_kib "$serve_pid") n100k=$(requests_served)
echo "after $n10k requests: $((at10k / 1024)) MiB; after $n100k requests: $((at100k / 1024)) MiB" \
  "($(awk -v a="$at10k" -v b="$at100k" 'BEGIN {printf "%+.1f", (b - a) * 100 / a}') %)"
grep -c 'status=200' "$work/serve.log" | sed 's/^/log lines with status=200: /'
awk -v r="$memory_ratio" 'BEGIN {exit !(r >= 0.5)}' || { echo "server.sh: memory hits below 0.5x nginx" >&2; exit 1; }
