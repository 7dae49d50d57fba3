#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a large results file for the scaling test and bench:

    make-big-results.py SOURCE.json OUT.json MEGABYTES

The measurements of SOURCE (a real results.json, e.g. tests/fixtures/
results-omp-host-2cpu-vm.json) are replicated until OUT is about MEGABYTES MB. Each copy
gets its own sizes (bytes + copy number, its GB/s figures scaled to match), so every OpenMP measurement still has exactly one
native partner and the gap table grows with the copies.
"""
import json
import os
import sys


def rescale_summary(s, f):
    if isinstance(s, dict):
        for key in ("median", "mean", "sd", "min", "max"):
            if isinstance(s.get(key), (int, float)):
                s[key] = float("%.10g" % (s[key] * f))  # the writer's 10 digits


def rescale(m, f):
    """The GB/s figures of the same times with f times the bytes (a reader checks them
    against the samples)."""
    rescale_summary(m.get("gbps"), f)
    for st in m.get("streams", []):
        for key in ("gbps", "alone_gbps", "device_gbps"):
            rescale_summary(st.get(key), f)
    ci = m.get("median_ci")
    if isinstance(ci, dict):
        for key in ("lo_gbps", "hi_gbps"):
            if isinstance(ci.get(key), (int, float)):
                ci[key] = float("%.10g" % (ci[key] * f))


def main():
    src, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    base = doc["measurements"]
    per = len(json.dumps(base)) / max(len(base), 1)
    copies = max(1, int(mb * 1e6 / (per * max(len(base), 1))) + 1)
    doc["measurements"] = []
    for c in range(copies):
        for m in base:
            x = json.loads(json.dumps(m))
            x["bytes"] = m["bytes"] + c
            rescale(x, x["bytes"] / m["bytes"])
            doc["measurements"].append(x)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    print("%s: %d measurements, %.1f MB" % (out, len(doc["measurements"]),
                                            os.path.getsize(out) / 1e6))


if __name__ == "__main__":
    main()
