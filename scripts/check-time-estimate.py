#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""How long `nodebw check`'s default plan would take on a node of N GPUs, from a results
document the plan wrote here (doc/check.md, "Time budget").

Usage: scripts/check-time-estimate.py RESULTS.json [N] [WALL_S] [LINK_GBPS]

Each measurement's "elapsed_s" (as the probe timed it: buffers set up and filled, warm-up,
timed repetitions, verification) is split into its copies (the first repetition, the timed
ones and the warm-up ones at the median time) and the rest. Per API: the median time of one
device's HtoD + DtoH, of one ordered pair's P2P one way, of one pair both ways at once, and
the all-devices series (every device to and from the host at once, the ring; scaled by
N / n). A node of N GPUs takes N device times + N (N - 1) one-way times + N (N - 1) / 2
both-ways times + the all-devices series per API, plus what the run spent outside the
measurements (WALL_S less their sum: start, discovery, files), taken as it is. Two
figures:
  * as measured: the copies at this machine's speed (the host plugin's memcpy);
  * at GPU speed: the rest as measured here, and the copies of a GPU's link: at most the
    profile's time cap (settings.max_time_s) of timed repetitions, plus the warm-up, the
    first repetition and the two verified read-backs at LINK_GBPS per stream (default 25
    GB/s, below any PCIe Gen4 x16 or faster link a GPU node has).
"""
import json
import statistics
import sys
from collections import defaultdict


def split(m):
    """(copies, rest) seconds of one measurement."""
    s = m.get("samples_s") or []
    med = statistics.median(s) if s else 0.0
    copies = (m.get("first_rep_s") or 0.0) + sum(s) + (m.get("warmup") or 0) * med
    copies = min(copies, m["elapsed_s"])
    return copies, m["elapsed_s"] - copies


def gpu_copies(m, cap, link):
    """A GPU's copies of m: the time cap, plus the warm-up, the first repetition and two
    verified read-backs of one transfer at link GB/s (the streams copy at once)."""
    one = m["bytes"] / (link * 1e9)
    return cap + ((m.get("warmup") or 0) + 1 + 2) * one


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check-time-estimate.py RESULTS.json [N] [WALL_S] [LINK_GBPS]")
    d = json.load(open(sys.argv[1]))
    n_target = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    wall = float(sys.argv[3]) if len(sys.argv) > 3 else None
    link = float(sys.argv[4]) if len(sys.argv) > 4 else 25.0
    cap = d["settings"]["max_time_s"]
    groups = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: [0.0, 0.0])))
    devices = defaultdict(set)
    total = 0.0
    for m in d["measurements"]:
        if not isinstance(m.get("elapsed_s"), (int, float)):
            continue
        total += m["elapsed_s"]
        copies, rest = split(m)
        api, c = m["api"], m["concurrency"]
        ends = [(s["src"], s["dst"]) for s in m["streams"]]
        for pair in ends:
            devices[api].update(x for x in pair if isinstance(x, int) and x >= 0)
        if m["direction"] in ("htod", "dtoh") and c == "single":
            kind, key = "device", ends[0][1] if m["direction"] == "htod" else ends[0][0]
        elif m["direction"] == "p2p" and c == "single":
            kind, key = "pair", ends[0]
        elif m["direction"] == "p2p" and c == "bidir":
            kind, key = "bidir", frozenset(ends[0])
        else:
            kind, key = "all", "all"
        g = groups[api][kind][key]
        g[0] += m["elapsed_s"]
        g[1] += rest + gpu_copies(m, cap, link)
    est = [0.0, 0.0]
    print("per API, seconds (median over devices or pairs; as measured here | at GPU speed):")
    for api in sorted(groups):
        n = max(len(devices[api]), 1)
        line, e = [], [0.0, 0.0]
        counts = {"device": n_target, "pair": n_target * (n_target - 1),
                  "bidir": n_target * (n_target - 1) / 2}
        for kind in ("device", "pair", "bidir", "all"):
            vals = list(groups[api][kind].values())
            for i in (0, 1):
                if kind == "all":
                    t = sum(v[i] for v in vals) * n_target / n
                else:
                    t = statistics.median(v[i] for v in vals) * counts[kind] if vals else 0.0
                e[i] += t
            if vals:
                t0 = statistics.median(v[0] for v in vals) if kind != "all" else sum(v[0] for v in vals)
                t1 = statistics.median(v[1] for v in vals) if kind != "all" else sum(v[1] for v in vals)
                line.append("%s %.3f | %.3f" % (kind, t0, t1))
        print("  %-5s %d devices: %s; %d GPUs: %.1f | %.1f" % (api, n, ", ".join(line),
                                                            n_target, e[0], e[1]))
        est[0] += e[0]
        est[1] += e[1]
    rest = (wall - total) if wall is not None else 0.0
    print("  measurements %.1f s%s" % (total, "" if wall is None else
                                        "; outside them %.1f s of the %.1f s run" % (rest, wall)))
    print("estimate for %d GPUs: %.0f s as measured here, %.0f s at GPU speed (links >= %g "
          "GB/s per stream)" % (n_target, est[0] + rest, est[1] + rest, link))


if __name__ == "__main__":
    main()
