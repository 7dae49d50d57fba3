#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How well independent `nodebw run`s of one machine agree (doc/model.md, "Repeatability").

    scripts/model-repeatability.py RUN_FOLDER RUN_FOLDER [RUN_FOLDER ...]

Reads each folder's report tables (report/tables/accuracy.csv, paper-k.csv, paper-beta.csv)
and prints, per (G, version), each model's MAPE in every run and the range (largest minus
smallest, in percentage points); then k-bar (the mean of k(N), the paper's Eq. 8) and beta at
each plane size and path, as (max - min) / (max + min), the +- half range in per cent. Where a
run found grid sizes of a configuration unstable, its MAPE is marked '*': the report left
those sizes out of it."""
import csv
import os
import sys

MODELS = (("paper", "paper_mape_pct"), ("a-priori", "apriori_mape_pct"),
          ("fitted", "ext_mape_pct"))


def table(folder, name):
    path = os.path.join(folder, "report", "tables", name)
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"model-repeatability: {path}: {e.strerror}")


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def half_range(values):
    v = [x for x in values if x is not None]
    if len(v) < 2 or max(v) + min(v) <= 0:
        return None
    return 100.0 * (max(v) - min(v)) / (max(v) + min(v))


def main(folders):
    acc = [dict(((r["g"], r["version"]), r) for r in table(f, "accuracy.csv")) for f in folders]
    keys = sorted(set().union(*acc), key=lambda k: (int(k[0]), k[1]))
    print("MAPE per (G, version), % (one column per run; * = that run left unstable grid "
          "sizes out)")
    print(f"{'G':>2} {'ver':<4} {'model':<9} " + " ".join(f"{'run ' + str(i + 1):>8}"
                                                      for i in range(len(folders))) +
          f" {'range':>7}")
    worst = {}
    for key in keys:
        for model, col in MODELS:
            vals, cells = [], []
            for a in acc:
                r = a.get(key)
                x = number(r.get(col)) if r else None
                unstable = r is not None and (number(r.get("unstable")) or 0) > 0
                cells.append(f"{x:7.1f}{'*' if unstable else ' '}" if x is not None
                             else f"{'-':>7} ")
                if x is not None:
                    vals.append(x)
            rng = max(vals) - min(vals) if len(vals) >= 2 else None
            if rng is not None:
                worst[model] = max(worst.get(model, 0.0), rng)
            print(f"{key[0]:>2} {key[1]:<4} {model:<9} " + " ".join(cells) +
                  (f" {rng:7.1f}" if rng is not None else f" {'-':>7}"))
    for model, _ in MODELS:
        if model in worst:
            print(f"largest range, {model}: {worst[model]:.1f} points")
    kbar = []
    for f in folders:
        ks = [number(r["k_s"]) for r in table(f, "paper-k.csv")]
        ks = [k for k in ks if k]
        kbar.append(sum(ks) / len(ks) if ks else None)
    hr = half_range(kbar)
    print("k-bar (ns per point and step): " +
          ", ".join(f"{k * 1e9:.4f}" if k else "-" for k in kbar) +
          (f"; +-{hr:.1f} %" if hr is not None else ""))
    betas = {}
    for i, f in enumerate(folders):
        for r in table(f, "paper-beta.csv"):
            betas.setdefault((int(r["n"]), r["path"]), [None] * len(folders))[i] = \
                number(r["beta_gbps"])
    print("beta at the plane sizes (GB/s = 1e9 B/s): one column per run, +- half range")
    spread = []
    for (n, path), vals in sorted(betas.items()):
        hr = half_range(vals)
        if hr is not None:
            spread.append(hr)
        print(f"  N = {n:<4} {path:<12} " + " ".join(f"{v:8.3f}" if v else f"{'-':>8}"
                                                    for v in vals) +
              (f"  +-{hr:.1f} %" if hr is not None else ""))
    if spread:
        spread.sort()
        print(f"beta: median +-{spread[len(spread) // 2]:.1f} %, largest +-{spread[-1]:.1f} %")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: scripts/model-repeatability.py RUN_FOLDER RUN_FOLDER [...]")
    main(sys.argv[1:])
