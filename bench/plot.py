#!/usr/bin/env python3
"""Draws kiln-bench's CSV as bars: each workload's rate on every implementation, relative to
the native reference (1.0 = the machine's practical limit), with the absolute rates printed on
the bars. Usage: plot.py results.csv results.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(csv_path, png_path):
    with open(csv_path, newline="") as file:
        rows = list(csv.DictReader(file))
    workloads = list(dict.fromkeys(row["workload"] for row in rows))
    implementations = list(dict.fromkeys(row["implementation"] for row in rows))
    rate = {(r["workload"], r["implementation"]): float(r["rate"]) if not r["error"] else None
            for r in rows}
    unit = {r["workload"]: r["unit"] for r in rows}
    width = 0.8 / len(implementations)
    figure, axes = plt.subplots(figsize=(max(8, 1.6 * len(workloads)), 5))
    for index, implementation in enumerate(implementations):
        for position, workload in enumerate(workloads):
            value = rate.get((workload, implementation))
            native = rate.get((workload, "native"))
            if value is None or not native:
                continue
            x = position + (index - (len(implementations) - 1) / 2) * width
            bar = axes.bar(x, value / native, width, color=f"C{index}",
                           label=implementation if position == 0 else None)
            axes.bar_label(bar, labels=[f"{value:.3g}"], fontsize=7, rotation=90, padding=2)
    axes.set_xticks(range(len(workloads)))
    axes.set_xticklabels([f"{w}\n({unit[w]})" for w in workloads], fontsize=8)
    axes.set_ylabel("rate relative to native C++ on every core")
    axes.set_title("kiln-bench: higher is better; numbers are the rates")
    axes.legend()
    figure.tight_layout()
    figure.savefig(png_path, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
