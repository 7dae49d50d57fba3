#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The GPU check's verdict on one results.json (tests/device/gpu-check.sh).

  judge-results.py probe|sched|kernel|faces|heat RESULTS

Prints one line per measurement or solver run worth showing, and a line starting with BAD
for each fault: a measurement with an error or whose verification did not pass, a CUDA
measurement without its 'sched', a solver run that did not match its reference, a run on a
CUDA device that does not say how its host threads waited (cuda_sched); for 'kernel' (the
CUDA copy kernels and pointer chases) also every CUDA path of KERNEL_PATHS that was not
measured, and a chase shown as time per dependent load; for 'faces' (nodebw probe --faces)
every face (z, y, x) of every API present by the rectangular copy, and by pack for OpenMP
and CUDA,
each row shown with its face, method and time. Exit status 1 when there is a fault
or the file cannot be read, else 0.
"""
import json
import sys

SHOWN = (1 << 20, 64 << 20, 1 << 30)
# (direction, mode) that the GPU check's kernel step must have measured through CUDA; the
# DtoH chase is refused by the backend (the host cannot load device memory through CUDA).
KERNEL_PATHS = (("htod", "kernel"), ("dtoh", "kernel"), ("p2p", "kernel"), ("htod", "chase"),
                ("p2p", "chase"))


def chase_text(m):
    """A chase's median time per dependent load, where the record says how many loads."""
    loads = m.get("chase_loads")
    sec = (m.get("seconds") or {}).get("median")
    if isinstance(loads, int) and loads > 0 and isinstance(sec, (int, float)):
        return f"{sec / loads * 1e9:8.1f} ns/load"
    return f"{sec * 1e6:8.2f} us    " if isinstance(sec, (int, float)) else "       -"


def kernel_paths(doc):
    """BAD lines for the CUDA kernel and chase paths the kernel step did not measure."""
    ms = doc.get("measurements", [])
    seen = {(m.get("direction"), m.get("mode")) for m in ms if m.get("api") == "cuda"}
    bad = []
    for path in KERNEL_PATHS:
        if path not in seen:
            why = [s.get("reason", "") for s in doc.get("skipped", [])
                   if s.get("api") == "cuda" and path[1] in s.get("what", "")]
            bad.append(f"BAD no cuda {path[0]} {path[1]} measured"
                       + (f" (skipped: {why[0]})" if why else ""))
    return bad


# The face methods each API must have measured for every face.
FACE_METHODS = {"omp": ("rect", "pack"), "cuda": ("rect", "pack")}


def face_paths(doc):
    """BAD lines for the faces and methods the faces step did not measure."""
    ms = [m for m in doc.get("measurements", []) if m.get("shape")]
    bad = [] if ms else ["BAD no face measured"]
    for api in sorted({m.get("api") for m in ms}):
        for face in "zyx":
            for method in FACE_METHODS.get(api, ("rect",)):
                if not any(m.get("api") == api and m["shape"].get("face") == face
                           and m["shape"].get("method") == method for m in ms):
                    bad.append(f"BAD no {api} {face}-face by {method} measured")
    return bad


def measurement_lines(doc, kind):
    bad = []
    for m in doc.get("measurements", []):
        where = (f'{m.get("api")} {m.get("direction")} {m.get("mode")} {m.get("host_mem")} '
                 f'{m.get("bytes")} B')
        if m.get("error"):
            bad.append(f"BAD {where}: error: {m['error']}")
            continue
        status = (m.get("verification") or {}).get("status")
        if status != "passed":
            bad.append(f"BAD {where}: verification {status}: "
                       f"{(m.get('verification') or {}).get('detail', '')}")
        sched = m.get("sched", "")
        if m.get("api") == "cuda" and not sched:
            bad.append(f"BAD {where}: no sched recorded")
        shape = m.get("shape")
        if kind == "faces" and shape:
            t = (m.get("seconds") or {}).get("median")
            text = f"{t * 1e6:9.2f} us" if isinstance(t, (int, float)) else "        - us"
            print(f'{m.get("api"):4} {m.get("direction"):4} {m.get("mode"):5} '
                  f'{m.get("concurrency"):13} {shape.get("face")} {shape.get("method"):4} '
                  f'{shape.get("step_bytes", 0) >> 10:6} KiB {text} {status}')
        elif kind in ("sched", "kernel") or m.get("bytes") in SHOWN:
            gbps = (m.get("gbps") or {}).get("median")
            text = f"{gbps:8.2f} GB/s" if isinstance(gbps, (int, float)) else "       - GB/s"
            if m.get("mode") == "chase":
                text = chase_text(m)
            tail = f" sched {sched} ({m.get('sched_note', '')})" if sched else ""
            print(f'{m.get("api"):4} {m.get("direction"):4} {m.get("mode"):5} '
                  f'{m.get("host_mem"):6} {m.get("bytes", 0) >> 10:8} KiB {text} '
                  f'{status}{tail}')
    if not doc.get("measurements"):
        bad.append("BAD no measurements")
    if kind == "kernel":
        bad += kernel_paths(doc)
    if kind == "faces":
        bad += face_paths(doc)
    return bad


def heat_lines(doc):
    bad = []
    for r in doc.get("solver_runs", []):
        shape = r.get("shape") or {}
        where = f'{r.get("version")} G={r.get("G")} N={shape.get("nx")} ({r.get("device_kind")})'
        status = (r.get("verification") or {}).get("status")
        if r.get("error"):
            bad.append(f"BAD {where}: error: {r['error']}")
        elif status not in ("passed", "reference"):
            ver = r.get("verification") or {}
            bad.append(f"BAD {where}: verification {status} (max |diff| "
                       f"{ver.get('max_abs_diff')}, {ver.get('points_failed')} points)")
        cs = r.get("cuda_sched")
        if r.get("device_kind") == "cuda" and not cs:
            bad.append(f"BAD {where}: no cuda_sched recorded")
        wait = f" cuda_sched {cs['word']} ({cs['devices']})" if cs else ""
        sps = r.get("seconds_per_step")
        step = f"{sps * 1e3:9.3f} ms/step" if isinstance(sps, (int, float)) else "        - ms/step"
        frac = r.get("roofline_fraction")
        roof = f" roofline {frac:.2f}" if isinstance(frac, (int, float)) else ""
        print(f"{where}: {step}{roof} {status}{wait}")
    if not doc.get("solver_runs"):
        bad.append("BAD no solver runs")
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("probe", "sched", "kernel", "faces", "heat"):
        sys.exit("usage: judge-results.py probe|sched|kernel|faces|heat RESULTS")
    kind, path = sys.argv[1], sys.argv[2]
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"BAD {path}: {e}")
        return 1
    bad = heat_lines(doc) if kind == "heat" else measurement_lines(doc, kind)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
