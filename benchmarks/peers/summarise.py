"""Turns hyperfine JSON exports and peak-RSS readings into Markdown tables and a chart.
usage: python3 summarise.py WORKDIR CHART.png
WORKDIR holds single.json, directory.json, rss.tsv (name<TAB>KiB) and sharp.tsv."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

work, chart = sys.argv[1], sys.argv[2]


def medians(name):
    with open(os.path.join(work, name)) as handle:
        results = json.load(handle)["results"]
    return [(r["command"], r["median"] * 1000, r["stddev"] * 1000 if r["stddev"] else 0.0) for r in results]


rss = {}
with open(os.path.join(work, "rss.tsv")) as handle:
    for line in handle:
        name, kib = line.rstrip("\n").split("\t")
        rss[name] = int(kib) / 1024


def table(title, rows, ours_name):
    ours = next(median for name, median, _ in rows if name == ours_name)
    print(f"\n### {title}\n")
    print("| tool | median (ms) | σ (ms) | time / cardrender | peak RSS (MiB) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, median, sigma in rows:
        memory = f"{rss[name]:.0f}" if name in rss else "-"
        print(f"| {name} | {median:.1f} | {sigma:.1f} | {median / ours:.2f}x | {memory} |")


single = medians("single.json")
directory = medians("directory.json")
table("One 12 MP JPEG to a 200 px wide PNG (whole process)", single, "cardrender thumb")
table("A directory of 24 JPEGs to 200 px wide PNGs (whole batch)", directory, "cardrender thumb DIR --jobs 2")

print("\n### sharp's workload in process (2725x2225 JPEG -> 720x588 JPEG q80)\n")
print("| implementation | ops/s |")
print("| --- | ---: |")
with open(os.path.join(work, "sharp.tsv")) as handle:
    for line in handle:
        name, value = line.rstrip("\n").split("\t")
        print(f"| {name} | {value} |")

figure, axes = plt.subplots(1, 2, figsize=(13, 5.5))
for axis, rows, title in ((axes[0], single, "one 12 MP JPEG -> 200 px"), (axes[1], directory, "24 JPEGs -> 200 px")):
    names = [name for name, _, _ in rows]
    values = [median for _, median, _ in rows]
    colours = ["#d0542c" if name.startswith("cardrender") else "#7a8a99" for name in names]
    axis.barh(names, values, color=colours)
    axis.invert_yaxis()
    axis.set_xlabel("median wall time (ms), lower is better")
    axis.set_title(title)
    for index, value in enumerate(values):
        axis.text(value, index, f" {value:.0f}", va="center", fontsize=8)
figure.tight_layout()
figure.savefig(chart, dpi=110)
