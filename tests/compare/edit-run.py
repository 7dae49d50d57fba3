#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A results file with the times of some paths scaled, for nodebw compare A B's test.

edit-run.py IN OUT scale API DIRECTION MODE HOST_MEM FACTOR [scale ...]
    every single-stream measurement of that path (every size and device): its samples, its
    seconds and its GB/s figures as a run FACTOR times slower (2) or faster (0.5) gives
edit-run.py IN OUT drop BYTES
    every measurement of that size removed (the run's comparison size moves)
"""
import json
import sys


def scale_summary(s, f, rate):
    if not isinstance(s, dict):
        return
    k = 1.0 / f if rate else f
    for key in ("median", "mean", "sd", "min", "max"):
        if isinstance(s.get(key), (int, float)):
            s[key] = s[key] * k


def scale(m, f):
    m["samples_s"] = [t * f for t in m["samples_s"]]
    scale_summary(m.get("seconds"), f, False)
    scale_summary(m.get("gbps"), f, True)
    for st in m.get("streams", []):
        st["samples_s"] = [t * f for t in st.get("samples_s", [])]
        scale_summary(st.get("gbps"), f, True)
    m.pop("median_ci", None)  # recomputed from the samples by the reader


doc = json.load(open(sys.argv[1]))
args = sys.argv[3:]
while args:
    if args[0] == "scale":
        api, d, mode, mem, f = args[1:6]
        args = args[6:]
        for m in doc["measurements"]:
            if (m["api"], m["direction"], m["mode"], m["host_mem"], m["concurrency"]) == \
                    (api, d, mode, mem, "single"):
                scale(m, float(f))
    elif args[0] == "drop":
        b = int(args[1])
        args = args[2:]
        doc["measurements"] = [m for m in doc["measurements"] if m["bytes"] != b]
    else:
        sys.exit("edit-run.py: unknown edit " + args[0])
json.dump(doc, open(sys.argv[2], "w"))
