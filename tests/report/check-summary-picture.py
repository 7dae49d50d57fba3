#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The summary's picture (plots/summary-paths.dat) of a report folder against its
summary.json: per results file, API and direction the fastest and the slowest path at the
comparison size (ties to the first path; one row when they are the same path), in the order
of summary.json's paths, each row with both figures and its label (a label names its file
when the report has several). Prints what differs; exit status 1 then, 0 when they agree.

Usage: check-summary-picture.py REPORT_DIR"""
import json
import math
import os
import sys


def usable(v):
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def fmt(v):
    return "%.6g" % v if usable(v) else "NaN"


def label(p, many):
    mem, peer = p["host_mem"], p["peer_access"]
    s = f"{p['api']} {p['direction']} {p['mode']}"
    if mem and mem != "none":
        s += " " + mem
    if peer and peer != "n/a":
        s += ", peer " + peer
    if many:
        s = f"file {p['file']}: {s}"
    return s.replace('"', "'")


def main():
    rdir = sys.argv[1]
    with open(os.path.join(rdir, "summary.json")) as f:
        paths = json.load(f)["paths"]
    with open(os.path.join(rdir, "plots", "summary-paths.dat")) as f:
        got = [ln.rstrip("\n") for ln in f if not ln.startswith("#") and ln.strip()]
    many = any(p["file"] != 0 for p in paths)
    groups = {}
    for i, p in enumerate(paths):
        if usable(p["large_gbps"]):
            groups.setdefault((p["file"], p["api"], p["direction"]), []).append(i)
    keep = set()
    for idx in groups.values():
        keep.add(max(idx, key=lambda i: (paths[i]["large_gbps"], -i)))
        keep.add(min(idx, key=lambda i: (paths[i]["large_gbps"], i)))
    want = [f'{row} {fmt(paths[i]["large_gbps"])} {fmt(paths[i]["best_gbps"])} '
            f'"{label(paths[i], many)}"' for row, i in enumerate(sorted(keep))]
    if got != want:
        print(f"{len(got)} rows drawn, {len(want)} wanted "
              f"({len(groups)} (file, API, direction) groups of {len(paths)} paths)")
        for ln in sorted(set(want) - set(got)):
            print(f"missing: {ln}")
        for ln in sorted(set(got) - set(want)):
            print(f"not wanted: {ln}")
        if set(got) == set(want):
            print("the same rows in another order")
        return 1
    print(f"{len(got)} rows: the fastest and the slowest of {len(groups)} (file, API, "
          f"direction) groups, {len(paths)} paths in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
