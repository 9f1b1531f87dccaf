#!/usr/bin/env bash
# Issue 37's measures, release build, whole processes, no cache:
#  1. the back by the post's rules against the back before it: 8 cards of 10 recipients each
#     (80 backs at print size, each laid out, encoded and checked on its pixels) rendered by
#     this tree's binary and by CARDRENDER_BASE_BIN (the release before the postal layout,
#     e.g. b86a166 built in a worktree); target: <= 1.10x. Skipped without CARDRENDER_BASE_BIN.
#  2. a 500-card sorted run: 500 PDF postcards (eu-a6-fogra39) to 12 countries imposed
#     cut-and-stack on SRA3 with their deposit manifest (`impose --sort destination
#     --manifest`); the 500 postcards are rendered first, untimed.
# usage: CARDRENDER_BASE_BIN=/path/to/old/cardrender bash benchmarks/mail.sh   (needs ../shared/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/prepare.sh
photo="$corpus/photos/reconyx-2048x1536.jpg"
[[ -f $photo ]] || photo="$(ls "$corpus"/photos/*.jpg | head -1)"

# 1. Backs: the same specs for both binaries (fields both read: name, address1, postcode, city, country).
mkdir -p "$work/backs"
python3 - "$work/backs" "$photo" <<'PY'
import json, shutil, sys
folder, photo = sys.argv[1], sys.argv[2]
streets = ["12 rue des Lilas", "3 rue Lepic", "8 avenue Foch", "21 quai des Chartrons"]
for card in range(8):
    shutil.copy(photo, f"{folder}/card{card}.jpg")
    recipients = [{"name": f"Mme Martine Durand {i}", "address1": streets[i % 4], "postcode": f"750{i + 10:02d}",
                   "city": "Paris", "country": "France"} for i in range(10)]
    spec = {"version": 1, "message": {"text": "Bons baisers de Paris !\nÀ bientôt,\nClaire", "font": "script"},
            "recipients": recipients}
    json.dump(spec, open(f"{folder}/card{card}.card.json", "w"))
PY
if [[ -n ${CARDRENDER_BASE_BIN:-} ]]; then
  hyperfine -N --warmup 1 --runs 7 --export-json "$work/backs.json" \
    -n "80 backs: before the postal layout" "$CARDRENDER_BASE_BIN render $work/backs --out $work/out-base --quiet --no-cache --jobs 2" \
    -n "80 backs: by the post's rules" "$ours render $work/backs --out $work/out-ours --quiet --no-cache --jobs 2" >&2
  python3 - "$work/backs.json" <<'PY'
import json, sys
runs = [(r["command"], r["median"] * 1000) for r in json.load(open(sys.argv[1]))["results"]]
base = runs[0][1]
print("| 8 cards of 10 recipients, whole process | median (ms) | vs before |")
print("| --- | ---: | ---: |")
for command, ms in runs:
    print(f"| {command} | {ms:.0f} | {ms / base:.2f}x |")
PY
else
  echo "mail: CARDRENDER_BASE_BIN unset: the backs' comparison is skipped" >&2
fi

# 2. A 500-card sorted run.
mkdir -p "$work/run"
python3 - "$work/run" "$photo" <<'PY'
import json, random, shutil, sys
folder, photo = sys.argv[1], sys.argv[2]
random.seed(37)
places = [("FR", "75011", "Paris", None), ("FR", "13210", "Saint-Rémy-de-Provence", None),
          ("FR", "69003", "Lyon", None), ("FR", "20000", "Ajaccio", None), ("FR", "97110", "Pointe-à-Pitre", None),
          ("GB", "NW1 6XE", "London", None), ("DE", "10115", "Berlin", None), ("US", "94043", "Mountain View", "CA"),
          ("BE", "1000", "Bruxelles", None), ("CH", "8001", "Zürich", None), ("ES", "28013", "Madrid", None),
          ("IT", "00144", "Roma", "RM"), ("NL", "1012 JS", "Amsterdam", None), ("JP", "100-0005", None, "Tokyo"),
          ("CA", "H3Z 2Y7", "Montréal", "QC"), ("IE", "D02 X285", "Dublin", None)]
for card in range(50):
    shutil.copy(photo, f"{folder}/card{card:02d}.jpg")
    recipients = []
    for i in range(10):
        country, postcode, city, region = random.choice(places)
        address = {"name": f"Client {card * 10 + i:03d}", "address1": f"{i + 1} Example Street",
                   "postcode": postcode, "country": country}
        if city: address["city"] = city
        if region: address["region"] = region
        recipients.append(address)
    json.dump({"version": 1, "message": {"text": "Merci !"}, "recipients": recipients,
               "sender": {"name": "Atelier Lumière", "address1": "3 rue Lepic", "postcode": "75018",
                          "city": "Paris", "country": "FR"}},
              open(f"{folder}/card{card:02d}.card.json", "w"))
PY
"$ours" render "$work/run" --out "$work/run-out" --quiet --no-cache --press eu-a6-fogra39 --jobs 2 >&2
# The postcards: each card's first recipient is its print PDF, the others its verso PDFs.
ls "$work/run-out"/*.pdf | sort >"$work/postcards.txt"
count=$(wc -l <"$work/postcards.txt")
echo "mail: $count PDF postcards" >&2
hyperfine -N --warmup 1 --runs 5 --export-json "$work/run.json" \
  -n "impose $count postcards in the order given (before)" \
  "$ours impose $(tr '\n' ' ' <"$work/postcards.txt") --sheet sra3 --out $work/sheets-unsorted.pdf" \
  -n "impose $count postcards sorted, cut-and-stack, with the manifest" \
  "$ours impose $(tr '\n' ' ' <"$work/postcards.txt") --sheet sra3 --sort destination --manifest $work/deposit --out $work/sheets.pdf" >&2
python3 - "$work/run.json" "$work/deposit.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
manifest = json.load(open(sys.argv[2]))
base = runs[0]["median"]
print("| a print run, whole process | median (ms) | vs in the order given |")
print("| --- | ---: | ---: |")
for run in runs:
    print(f"| {run['command']} | {run['median'] * 1000:.0f} | {run['median'] / base:.2f}x |")
print(f"| rows in the manifest | {len(manifest['rows'])}; {len(manifest['countries'])} countries; "
      f"{len(manifest['departements'])} départements | |")
PY
