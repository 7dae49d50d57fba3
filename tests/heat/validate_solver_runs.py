#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the "solver_runs" of a nodebw results.json.

Usage: validate_solver_runs.py RECORD_SCHEMA RESULTS.json

Every record is validated against doc/solver-run.schema.json (draft-07), then the
cross-field rules a schema cannot express: G = len(devices) = len(slabs) (general: the
subdomains); the slabs cover the planes R .. nz-1-R in order (a co-run: every device's
slab all of them, and its work G times the grid's); the subdomains tile the
interior; seconds is the median of samples_s; points_per_s,
bytes_per_s, k and the roofline fraction follow from seconds; a passed verification has a
difference within the rule. Exit status 0 valid, 1 invalid, 2 bad usage.
"""

import json
import statistics
import sys

try:
    import jsonschema
except ImportError:  # pragma: no cover - depends on the interpreter
    sys.stderr.write("validate_solver_runs.py: the jsonschema module is missing\n")
    sys.exit(2)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check_record(i, r):
    bad = []
    shape = r["shape"]
    nx, ny, nz = shape["nx"], shape["ny"], shape["nz"]
    cfg = r["config"]
    R, F = cfg["radius"], cfg["fields"]
    if r["interior_points"] != (nx - 2 * R) * (ny - 2 * R) * (nz - 2 * R):
        bad.append("interior_points is not (nx-2R)(ny-2R)(nz-2R)")
    boxes = r["subdomains"] if r["version"] == "general" else r["slabs"]
    if not (r["G"] == len(r["devices"]) == len(boxes)):
        bad.append("G, devices and slabs (general: subdomains) disagree")
    if len(set(r["devices"])) != len(r["devices"]):
        bad.append("a device is listed twice")
    # The co-run probe: every device computes the whole grid (its work counts G times).
    corun = r["version"] == "corun"
    k = R
    for d, s in zip(r["devices"], r["slabs"]):
        if s["device"] != d or s["k_begin"] != k or s["k_end"] - s["k_begin"] != s["planes"]:
            bad.append("slab of device %d does not continue the split" % d)
        if s["local_shape"] != [nx, ny, s["planes"] + 2 * R]:
            bad.append("local_shape of device %d is wrong" % d)
        k = R if corun else s["k_end"]
    if corun and any(s["k_end"] != nz - R for s in r["slabs"]):
        bad.append("a co-run device does not compute the whole grid")
    if not corun and r["slabs"] and k != nz - R:
        bad.append("the slabs do not end at plane nz-1-R")
    if r["subdomains"]:
        px, py, pz = cfg["decomp"]
        if px * py * pz != r["G"] or len(r["subdomains"]) != r["G"]:
            bad.append("the decomposition does not have G devices")
        seen = set()
        for d, s in zip(r["devices"], r["subdomains"]):
            if s["device"] != d or [c + 2 * R for c in s["interior"]] != s["local_shape"]:
                bad.append("subdomain of device %d is wrong" % d)
            for x in range(s["begin"][0], s["begin"][0] + s["interior"][0]):
                for y in range(s["begin"][1], s["begin"][1] + s["interior"][1]):
                    for z in range(s["begin"][2], s["begin"][2] + s["interior"][2]):
                        if (x, y, z) in seen or min(x, y, z) < R or x >= nx - R \
                                or y >= ny - R or z >= nz - R:
                            bad.append("subdomain of device %d overlaps or leaves the interior" % d)
                            break
                        seen.add((x, y, z))
        if len(seen) != r["interior_points"]:
            bad.append("the subdomains do not cover the interior")
    if len(r["samples_s"]) != r["repetitions"] and r["error"] is None:
        bad.append("samples_s does not hold one sample per repetition")
    if r["error"] is None:
        sec = r["seconds"]
        if sec is None or not close(sec, statistics.median(r["samples_s"])):
            bad.append("seconds is not the median of samples_s")
        else:
            work = r["interior_points"] * r["steps"] * F * (r["G"] if corun else 1)
            pps = work / sec
            if not close(r["points_per_s"], pps):
                bad.append("points_per_s does not follow from seconds")
            if not close(r["bytes_per_s"], 32 * pps):
                bad.append("bytes_per_s is not 32 B x points_per_s")
            if not close(r["k_s_per_point"], sec / work):
                bad.append("k_s_per_point does not follow from seconds")
            if r["roofline"] is not None and not close(
                    r["roofline_fraction"], r["bytes_per_s"] / (r["roofline"]["gbs"] * 1e9)):
                bad.append("roofline_fraction does not follow from bytes_per_s")
    v = r["verification"]
    if v["status"] == "passed" and (v["max_abs_diff"] is None or v["max_abs_diff"] > 1e-4
                                    or v["points_failed"] or v["nonfinite"]):
        bad.append("a passed verification with differences outside the rule")
    if v["status"] == "failed" and not (v["points_failed"] or v["nonfinite"]):
        bad.append("a failed verification without a failing point")
    if (v["status"] == "reference") != (r["version"] == "serial"):
        bad.append("only the serial run is the reference")
    if r["version"] in ("v3", "v4", "general") and r["error"] is None and r["host_threads"] != r["G"]:
        bad.append("v3/v4 use one host thread per device")
    return ["solver_runs[%d] (%s, G=%d): %s" % (i, r["version"], r["G"], b) for b in bad]


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    with open(argv[2]) as f:
        doc = json.load(f)
    runs = doc.get("solver_runs")
    if not isinstance(runs, list) or not runs:
        print("%s: no solver_runs" % argv[2])
        return 1
    problems = []
    for i, r in enumerate(runs):
        errs = sorted(validator.iter_errors(r), key=lambda e: list(e.path))
        problems += ["solver_runs[%d]: %s at %s" % (i, e.message, list(e.path)) for e in errs]
        if not errs:
            problems += check_record(i, r)
    if problems:
        print("%s: INVALID: %d problems" % (argv[2], len(problems)))
        for p in problems[:10]:
            print("  " + p)
        return 1
    print("%s: %d solver runs valid" % (argv[2], len(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
