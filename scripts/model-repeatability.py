#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How well independent `nodebw run`s of one machine agree (doc/model.md, "Repeatability").

    scripts/model-repeatability.py RUN_FOLDER RUN_FOLDER [RUN_FOLDER ...]

Reads each folder's report tables (report/tables/accuracy.csv, paper-k.csv, paper-beta.csv)
and prints, per (G, version), each model's MAPE in every run and the range (largest minus
smallest, in percentage points); then k-bar (the mean of k(N), the paper's Eq. 8) and beta at
each plane size and path, as (max - min) / (max + min), the +- half range in per cent. Where a
run found grid sizes of a configuration unstable, its MAPE is marked '*': the report left
those sizes out of it.

Where the runs recorded the machine speed reference (report/tables/speed-reference.csv,
nodebw run since 2026-12), it prints each run's best reference figures in the probe stages
(the start and after each probe stage) and in the solver rounds, how far they agree between the
runs, and k-bar and beta each divided by the run's own reference (k-bar x core speed, beta /
cache GB/s): if these agree where the raw figures do not, the machine's own speed differed
between the runs, not nodebw's measurement. Last, each path's beta divided by the memory
reference taken around the plane-size sweep's first processes (the mean of the figures
after the hidden-helper sweep and after the plane-size sweep): the machine's memory speed
when those betas were measured, not the run's best."""
import csv
import os
import sys

MODELS = (("paper", "paper_mape_pct"), ("one-device", "onedev_mape_pct"),
          ("compute-calibrated", "compcal_mape_pct"), ("fitted", "ext_mape_pct"))


def fail(message):
    """One line on stderr and exit status 2, as nodebw's own bad-input errors."""
    print(message, file=sys.stderr)
    sys.exit(2)


def table(folder, name):
    path = os.path.join(folder, "report", "tables", name)
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        fail(f"model-repeatability: {path}: {e.strerror}")


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
    speed_reference(folders, kbar, betas)


def reference_best(rows, solver):
    """The best (fastest) core, cache and memory figures of the rows taken in the solver
    rounds (solver=True) or before the solver (the start and after each probe stage, the
    plane-size sweep included)."""
    pick = [r for r in rows if r["at"].startswith("solver round") == solver and
            r["at"] != "after solver"]
    core = [number(r["core_ns_per_step"]) for r in pick]
    cache = [number(r["cache_gbps"]) for r in pick]
    mem = [number(r["memory_gbps"]) for r in pick]
    core = [x for x in core if x]
    cache = [x for x in cache if x]
    mem = [x for x in mem if x]
    return (min(core) if core else None, max(cache) if cache else None,
            max(mem) if mem else None)


def speed_reference(folders, kbar, betas):
    refs, tables = [], []
    for f in folders:
        path = os.path.join(f, "report", "tables", "speed-reference.csv")
        if not os.path.exists(path):
            refs.append(None)
            tables.append([])
            continue
        rows = table(f, "speed-reference.csv")
        tables.append(rows)
        refs.append((reference_best(rows, False), reference_best(rows, True)))
    if not any(refs):
        print("machine speed reference: not recorded by these runs")
        return
    for stage, idx in (("probe stages", 0), ("solver rounds", 1)):
        print(f"machine speed reference, best in the {stage} (one column per run, +- half "
              "range):")
        for name, k, fmt in (("core ns/step", 0, "8.3f"), ("cache GB/s", 1, "8.1f"),
                             ("memory GB/s", 2, "8.2f")):
            vals = [r[idx][k] if r else None for r in refs]
            hr = half_range(vals)
            print(f"  {name:<13} " + " ".join(format(v, fmt) if v else f"{'-':>8}"
                                              for v in vals) +
                  (f"  +-{hr:.1f} %" if hr is not None else ""))
    # k-bar at the solver rounds' core speed: k-bar / core ns (a slower core, a larger k).
    norm = [k * 1e9 / r[1][0] if k and r and r[1][0] else None for k, r in zip(kbar, refs)]
    hr = half_range(norm)
    print("k-bar / core ns per step (solver rounds): " +
          ", ".join(f"{x:.4f}" if x else "-" for x in norm) +
          (f"; +-{hr:.1f} % (k-bar itself above)" if hr is not None else ""))
    for name, k in (("cache GB/s", 1), ("memory GB/s", 2)):
        norm = [kb * r[1][k] if kb and r and r[1][k] else None for kb, r in zip(kbar, refs)]
        hr = half_range(norm)
        if hr is not None:
            print(f"k-bar x {name} (solver rounds): +-{hr:.1f} %")
    for name, k in (("cache GB/s", 1), ("memory GB/s", 2), ("1 / core ns", 0)):
        spread = []
        for vals in betas.values():
            norm = []
            for v, r in zip(vals, refs):
                ref = r[0][k] if r else None
                norm.append(None if not v or not ref else v * ref if k == 0 else v / ref)
            hr = half_range(norm)
            if hr is not None:
                spread.append(hr)
        if spread:
            spread.sort()
            print(f"beta / probe stages' {name}: median +-{spread[len(spread) // 2]:.1f} %, "
                  f"largest +-{spread[-1]:.1f} %")
    sweep_memory(tables, betas)


def sweep_memory(tables, betas):
    """Beta of each path divided by the memory reference taken around the plane-size sweep
    (the mean of the figures just before and just after its processes that ran before the
    solver): the machine's memory speed at the time, not the run's best."""
    mem = []
    for rows in tables:
        around = [number(x["memory_gbps"]) for x in rows
                  if x["at"] in ("after hidden-helper sweep", "after plane-size sweep")]
        around = [x for x in around if x]
        mem.append(sum(around) / len(around) if around else None)
    if not any(mem):
        return
    hr = half_range(mem)
    print("memory GB/s around the plane-size sweep: " +
          ", ".join(f"{m:.2f}" if m else "-" for m in mem) +
          (f"; +-{hr:.1f} %" if hr is not None else ""))
    for path in sorted({p for _, p in betas}):
        spread = []
        for (n, p), vals in betas.items():
            if p != path:
                continue
            hr = half_range([v / m if v and m else None for v, m in zip(vals, mem)])
            if hr is not None:
                spread.append(hr)
        if spread:
            print(f"  {path:<12} beta / that memory GB/s: largest +-{max(spread):.1f} % "
                  f"over {len(spread)} plane sizes")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        fail("usage: scripts/model-repeatability.py RUN_FOLDER RUN_FOLDER [...]")
    main(sys.argv[1:])
