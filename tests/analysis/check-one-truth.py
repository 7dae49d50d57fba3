#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One truth on one run: a small real probe on the host-plugin devices (4 OpenMP devices and
the host reference), then the same cells, at the same size, with the same values (within
printing precision) in every place a user reads them:

  results.csv (every measurement)           -> the size rule, computed here on its own
  `nodebw matrix --json`                    -> matrices, device tables, every device at once
  `nodebw matrix` (text)                    -> the same, printed
  the probe's terminal (series lines; the summary's blocks where it prints them)
  `nodebw report` (tables/*.csv, node.md)   -> the matrix and per-device tables, all at once

The size rule: every series is read at the run's comparison size, the large size of the
plan's matrix cells (size set "matrix"), which every device and pair has; sizes are printed
as "8 MiB" everywhere. Then the run's document with nodebw run's plane-size sweep added
(pair 0-1 and devices 0 and 1 measured again at a small halo size, once per process) must
give the same matrices and tables, and so must a recorded `nodebw run --quick`
(tests/fixtures/results-run-paired-2cpu-vm.json). TAP output; exit 1 when a check fails."""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

NODEBW = os.environ.get("NODEBW", "nodebw")
UNIT = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
n_checks = 0
n_failed = 0


def check(desc, ok, detail=""):
    global n_checks, n_failed
    n_checks += 1
    print(f"{'ok' if ok else 'not ok'} {n_checks} - {desc}")
    if not ok:
        n_failed += 1
        for line in str(detail).splitlines()[:12]:
            print(f"#   {line}")
    return ok


def nodebw(args, timeout):
    return subprocess.run([NODEBW] + args, capture_output=True, text=True, timeout=timeout)


def same2(shown, value):
    """A value printed with two decimals is the value."""
    return shown is not None and value is not None and abs(shown - value) <= 0.0051


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


# ---- results.csv: every usable measurement, the first one of a cell and size wins --------

def load_csv(path):
    first = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["verification"] != "passed" or r["error"] or r["hht_sweep"] not in ("", "false"):
                continue
            key = (r["api"], r["direction"], r["mode"], r["host_mem"], r["concurrency"],
                   r["src"], r["dst"], int(r["bytes"]))
            first.setdefault(key, float(r["median_gbps"]))
    return first


def comparison_size(path):
    """The run's comparison size from results.csv alone: the largest size of the matrix
    cells (size set "matrix") among the verified bandwidth measurements."""
    best = None
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["verification"] != "passed" or r["error"] or r["hht_sweep"] not in ("", "false"):
                continue
            if r["size_set"] == "matrix" and r["direction"] in ("htod", "dtoh", "p2p") and \
                    r["mode"] != "chase":
                best = max(best or 0, int(r["bytes"]))
    return best


def label(b):
    """The one size format: binary units, up to three decimals, trailing zeros cut."""
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f:
            return f"{b / f:.3f}".rstrip("0").rstrip(".") + " " + unit
    return f"{b} B"


def parse_size(text):
    n, unit = text.split()
    return int(round(float(n) * UNIT[unit]))


SIZE = r"([\d.]+ (?:B|KiB|MiB|GiB))"


def p2p_key(m):
    return (m["api"], "p2p", m["mode"], "none", m["concurrency"])


def table_key(t):
    return (t["api"], t["direction"], t["mode"], t["host_mem"], "single")


# ---- the terminal -------------------------------------------------------------------------

SERIES_LINE = re.compile(r"^(\w+)-(htod|dtoh|p2p) (\w+) (\w+) (host|\d+)->(host|\d+): .*?, "
                         r"([\d.]+) (B|KiB|MiB|GiB) ([\d.]+) GB/s")


def terminal_series(text):
    """The probe's one-stream series lines: (api, dir, mode, mem, src, dst) -> (bytes, GB/s)."""
    out = {}
    for line in text.splitlines():
        m = SERIES_LINE.match(line)
        if m:
            api, d, mode, mem, src, dst, sz, unit, g = m.groups()
            out[(api, d, mode, mem, src, dst)] = (int(round(float(sz) * UNIT[unit])), float(g))
    return out


def grid_blocks(text, head):
    """Blocks that start with a line matching \\p head, then a src\\dst header and rows of
    numbers; -> list of (match, {(src, dst): value or None})."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        m = head.match(lines[i])
        i += 1
        if not m or i >= len(lines) or "src\\dst" not in lines[i]:
            continue
        cols = lines[i].split()[1:]
        cells = {}
        i += 1
        while i < len(lines) and re.match(r"^\s+\d+\s", lines[i]):
            parts = re.sub(r"\[[^]]*\]", "", lines[i]).split()
            for c, v in zip(cols, parts[1:]):
                cells[(parts[0], c)] = fnum(v.rstrip("*"))
            i += 1
        out.append((m, cells))
    return out


def compare_grid(where, cells, mx, failures):
    ids = [str(x) for x in mx["devices"]]
    n = 0
    for r, src in enumerate(ids):
        for c, dst in enumerate(ids):
            cell = mx["cells"][r][c]
            want = cell["gbps"] if cell else None
            got = cells.get((src, dst))
            if want is None and got is None:
                continue
            n += 1
            if not same2(got, want):
                failures.append(f"{where} {src}->{dst}: shown {got}, analysis {want}")
    return n


# ---- the report ---------------------------------------------------------------------------

def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def caption_of(md, csv_name):
    for line in md.splitlines():
        if f"(tables/{csv_name})" in line:
            return line
    return ""


def main():
    tmp = tempfile.mkdtemp(prefix="nodebw-truth-")
    try:
        return run_checks(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_checks(tmp):
    out = os.path.join(tmp, "run")
    # Devices not named: device 0 and pair 0-1 get every size, the others the smallest and
    # the largest (the matrices' size), as on a default run.
    apis = "host" if os.environ.get("NODEBW_OPENMP") == "0" else "omp,host"
    probe = nodebw(["probe", "--api", apis, "--mode", "sync,parallel", "--host-mem",
                    "pinned", "--threads", "1,all", "--sizes", "8,64KiB,4MiB",
                    "--no-hht-sweep", "--output", out], 240)
    if not check("the probe runs (exit 0)", probe.returncode == 0, probe.stderr[-2000:]):
        print(f"1..{n_checks}")
        return 1
    term = probe.stdout
    rows = load_csv(os.path.join(out, "results.csv"))
    mj = nodebw(["matrix", "--json", os.path.join(out, "results.json")], 120)
    mt = nodebw(["matrix", os.path.join(out, "results.json")], 120)
    rdir = os.path.join(tmp, "report")
    rep = nodebw(["report", os.path.join(out, "results.json"), "--output", rdir], 240)
    check("nodebw matrix --json, nodebw matrix and nodebw report exit 0",
          mj.returncode == 0 and mt.returncode == 0 and rep.returncode == 0,
          mj.stderr + mt.stderr + rep.stderr)
    an = json.loads(mj.stdout)
    mats = [m for m in an["matrices"] if m["concurrency"] == "single"]
    tables = an["devices"]
    check("the run has one-stream matrices and device tables", mats and tables,
          f"{len(mats)} matrices, {len(tables)} tables")
    with open(os.path.join(rdir, "report.md")) as f:
        md = f.read()
    # The matrices and per-device tables are on the page of the whole node.
    with open(os.path.join(rdir, "node.md")) as f:
        node_md = f.read()

    # 1. The size: the comparison size, from results.csv alone, for every matrix and table.
    bad = []
    want = cmp_size = comparison_size(os.path.join(out, "results.csv"))
    for m in mats:
        if m["bandwidth_bytes"] != want:
            bad.append(f"{m['api']} p2p {m['mode']}: matrix at {m['bandwidth_bytes']} B, "
                       f"comparison size {want} B")
    for t in tables:
        if t["bytes"] != want:
            bad.append(f"{t['api']} {t['direction']} {t['mode']} {t['host_mem']}: table at "
                       f"{t['bytes']} B, comparison size {want} B")
    check("matrices and tables are read at the comparison size (the matrix cells' size)",
          want and not bad, "\n".join(bad))

    # 2. nodebw matrix --json against results.csv: every cell filled, the same value.
    bad, cells = [], 0
    for m in mats:
        b = m["bandwidth_bytes"]
        for r, src in enumerate(m["devices"]):
            for c, dst in enumerate(m["devices"]):
                cell = m["cells"][r][c]
                if src == dst:
                    continue
                want = rows.get(p2p_key(m) + (str(src), str(dst), b))
                got = cell["gbps"] if cell else None
                cells += 1
                if want is None or got is None or not math.isclose(got, want, rel_tol=2e-5):
                    bad.append(f"{m['api']} {m['mode']} {src}->{dst} at {b} B: "
                               f"matrix {got}, results.csv {want}")
    for t in tables:
        got_ids = sorted(r["device"] for r in t["rows"])
        devs = sorted({int(k[6] if t["direction"] == "htod" else k[5]) for k in rows
                       if k[:5] == table_key(t)})
        if got_ids != devs:
            bad.append(f"{t['api']} {t['direction']} {t['mode']}: rows for {got_ids}, "
                       f"measured {devs}")
        for r in t["rows"]:
            d = str(r["device"])
            key = table_key(t) + (("host", d) if t["direction"] == "htod" else (d, "host"))
            want = rows.get(key + (t["bytes"],))
            if want is None or not math.isclose(r["gbps"], want, rel_tol=2e-5):
                bad.append(f"{t['api']} {t['direction']} {t['mode']} device {d} at "
                           f"{t['bytes']} B: table {r['gbps']}, results.csv {want}")
    check(f"nodebw matrix --json = results.csv, every pair and device filled ({cells} cells)",
          not bad, "\n".join(bad))

    # 3. nodebw matrix (text): the same size in every heading, the same values.
    bad = []
    head = re.compile(r"^(\w+) p2p (\w+) (single): bandwidth at " + SIZE)
    seen = 0
    for hm, grid in grid_blocks(mt.stdout, head):
        m = next((x for x in mats if (x["api"], x["mode"]) == hm.group(1, 2)), None)
        if m is None:
            continue
        seen += 1
        if parse_size(hm.group(4)) != m["bandwidth_bytes"]:
            bad.append(f"{hm.group(0)}: --json says {m['bandwidth_bytes']} B")
        compare_grid(f"matrix text {m['api']} {m['mode']}", grid, m, bad)
    head = re.compile(r"^(\w+) (htod|dtoh) (\w+) (\w+): one device at a time at " + SIZE)
    lines = mt.stdout.splitlines()
    for i, line in enumerate(lines):
        hm = head.match(line)
        if not hm:
            continue
        t = next((x for x in tables if (x["api"], x["direction"], x["mode"], x["host_mem"])
                  == hm.group(1, 2, 3, 4)), None)
        if t is None:
            continue
        seen += 1
        if parse_size(hm.group(5)) != t["bytes"]:
            bad.append(f"{line}: --json says {t['bytes']} B")
        for row in lines[i + 2:]:
            rm = re.match(r"^\s+(\d+)\s+(\S+)\s", row)
            if not rm:
                break
            want = next((r["gbps"] for r in t["rows"] if r["device"] == int(rm.group(1))), None)
            if not same2(fnum(rm.group(2)), want):
                bad.append(f"{hm.group(0)} device {rm.group(1)}: {rm.group(2)} vs {want}")
    check(f"nodebw matrix prints the same sizes and values ({seen} tables)",
          seen == len(mats) + len(tables) and not bad, "\n".join(bad))

    # 4. The report: its CSV files name the size on every row, with the same values, and
    # the captions of node.md (the whole node's page) name the same size.
    bad = []
    for m in mats:
        name = f"p2p-{m['api']}-{m['mode']}-single-gbps.csv"
        path = os.path.join(rdir, "tables", name)
        if not os.path.exists(path):
            bad.append(f"no {name}")
            continue
        rr = read_rows(path)
        if not rr or "bytes" not in rr[0]:
            bad.append(f"{name}: no bytes column ({list(rr[0]) if rr else 'empty'})")
        for r in rr:
            if "bytes" in r and int(r["bytes"]) != m["bandwidth_bytes"]:
                bad.append(f"{name}: row {r['src_device']} at {r['bytes']} B, matrix "
                           f"{m['bandwidth_bytes']} B")
        grid = {(r["src_device"], k[4:-5]): fnum(v) for r in rr for k, v in r.items()
                if k.startswith("dst_")}
        compare_grid(name, grid, m, bad)
        if f"at {label(m['bandwidth_bytes'])}" not in caption_of(node_md, name):
            bad.append(f"node.md: the caption of {name} does not say "
                       f"'at {label(m['bandwidth_bytes'])}'")
    for t in tables:
        name = f"devices-{t['api']}-{t['direction']}.csv"
        path = os.path.join(rdir, "tables", name)
        if not os.path.exists(path):
            bad.append(f"no {name}")
            continue
        col = f"{t['mode']}_{t['host_mem']}"
        rr = read_rows(path)
        if not rr or f"{col}_bytes" not in rr[0]:
            bad.append(f"{name}: no {col}_bytes column ({list(rr[0]) if rr else 'empty'})")
        for r in rr:
            want = next((x["gbps"] for x in t["rows"] if str(x["device"]) == r["device"]),
                        None)
            if not same2(fnum(r.get(f"{col}_gbps")), want):
                bad.append(f"{name} device {r['device']} {col}: {r.get(col + '_gbps')} vs "
                           f"{want}")
            if f"{col}_bytes" in r and int(r[f"{col}_bytes"]) != t["bytes"]:
                bad.append(f"{name} device {r['device']}: {r[col + '_bytes']} B vs "
                           f"{t['bytes']} B")
        if label(t["bytes"]) not in caption_of(node_md, name):
            bad.append(f"node.md: the caption of {name} does not name {label(t['bytes'])}")
    check("the report's tables/*.csv and node.md: same sizes (bytes columns) and values",
          not bad, "\n".join(bad))

    # 5. The probe's terminal: each one-stream series line's largest size and GB/s, and the
    # summary's blocks where it prints them (matrices, best per device).
    bad, compared = [], 0
    for (api, d, mode, mem, src, dst), (b, g) in terminal_series(term).items():
        if d == "p2p":
            m = next((x for x in mats if (x["api"], x["mode"]) == (api, mode)), None)
            if m is None:
                continue
            ids = m["devices"]
            cell = m["cells"][ids.index(int(src))][ids.index(int(dst))]
            size, want = m["bandwidth_bytes"], cell["gbps"] if cell else None
        else:
            t = next((x for x in tables if (x["api"], x["direction"], x["mode"],
                                             x["host_mem"]) == (api, d, mode, mem)), None)
            if t is None:
                continue
            dev = int(dst if d == "htod" else src)
            size = t["bytes"]
            want = next((r["gbps"] for r in t["rows"] if r["device"] == dev), None)
        compared += 1
        if b != size or not same2(g, want):
            bad.append(f"terminal {api}-{d} {mode} {src}->{dst}: {g} GB/s at {b} B; "
                       f"analysis {want} at {size} B")
    head = re.compile(r"^  (\w+) p2p (\w+): GB/s at " + SIZE)
    for hm, grid in grid_blocks(term, head):
        m = next((x for x in mats if (x["api"], x["mode"]) == hm.group(1, 2)), None)
        if m is None:
            continue
        if parse_size(hm.group(3)) != m["bandwidth_bytes"]:
            bad.append(f"terminal '{hm.group(0).strip()}': matrix at {m['bandwidth_bytes']} B")
        compared += compare_grid(f"terminal {m['api']} {m['mode']}", grid, m, bad)
    for line in term.splitlines():
        bm = re.match(r"^    (omp|host)\s+(\d+)\s+(\S+) .*?\s(\S+)\s+(sync|async|nowait|"
                      r"parallel) \w+\s", line)
        if not bm:
            continue
        api, dev = bm.group(1), int(bm.group(2))
        best = max((r["gbps"] for t in tables if t["api"] == api and t["direction"] == "htod"
                    for r in t["rows"] if r["device"] == dev), default=None)
        compared += 1
        if not same2(fnum(bm.group(3)), best):
            bad.append(f"terminal best HtoD {api} {dev}: {bm.group(3)}, tables' best {best}")
    check(f"the probe's terminal shows the same sizes and values ({compared} compared)",
          compared > 0 and not bad, "\n".join(bad))

    # 6. Every device at once: the report's table is the analysis's; a reference the
    # aggregate exceeds is never called its bound.
    bad = []
    aao = an["all_at_once"]
    rr = read_rows(os.path.join(rdir, "tables", "all-at-once.csv"))
    if len(rr) != len(aao):
        bad.append(f"all-at-once.csv: {len(rr)} rows, analysis {len(aao)}")
    for x, r in zip(aao, rr):
        frac = x.get("fraction_of_host_limit")
        if "verdict" not in x:
            bad.append(f"{x['api']} {x['pattern']} {x['mode']}: no verdict")
        if frac is not None and frac > 1 and (x["bound"] == "host memory" or
                                             "above the host-memory" not in x.get("verdict", "")):
            bad.append(f"{x['api']} {x['pattern']} {x['mode']}: bound {x['bound']} at "
                       f"{100 * frac:.1f} % of the host-memory reference")
        if (r["pattern"], r["api"], r["mode"]) != (x["pattern"], x["api"], x["mode"]) or \
                int(r["bytes"]) != x["bytes"] or not same2(fnum(r["aggregate_gbps"]),
                                                           x["aggregate_gbps"]) or \
                r["bound"] != (x["bound"] or "") or r.get("verdict") != x.get("verdict"):
            bad.append(f"all-at-once.csv {r} vs analysis {x}")
    check("every device at once: the report's table is the analysis's, no bound exceeded",
          aao and not bad, "\n".join(bad))

    # 7. nodebw run's plane-size sweep: pair 0-1 and devices 0 and 1 measured again at a
    # halo size in 8 processes must not move any matrix or table.
    with open(os.path.join(out, "results.json")) as f:
        doc = json.load(f)
    extra = []
    swept = "host" if apis == "host" else "omp"  # the sweep is OpenMP's; host without it
    for m in doc["measurements"]:
        if m["api"] != swept or m["concurrency"] != "single" or m["bytes"] != 65536:
            continue
        for p in range(1, 9):
            for dev in ((0, 1) if m["direction"] != "p2p" else (None,)):
                c = json.loads(json.dumps(m))
                c["plane_sweep"] = {"process": p, "processes": 8}
                if dev is not None:
                    c["streams"][0]["dst" if m["direction"] == "htod" else "src"] = dev
                extra.append(c)
    doc["measurements"] += extra
    planes = os.path.join(tmp, "planes.json")
    with open(planes, "w") as f:
        json.dump(doc, f)
    pj = nodebw(["matrix", "--json", planes], 120)
    ok = pj.returncode == 0 and extra
    bad = [] if ok else [pj.stderr or f"no 64 KiB one-stream {swept} measurement to repeat"]
    if ok:
        an2 = json.loads(pj.stdout)
        for a, b in zip(an["matrices"], an2["matrices"]):
            if a != b:
                bad.append(f"{a['api']} p2p {a['mode']} {a['concurrency']}: "
                           f"{a['bandwidth_bytes']} B -> {b['bandwidth_bytes']} B")
        for a, b in zip(an["devices"], an2["devices"]):
            if a != b:
                bad.append(f"{a['api']} {a['direction']} {a['mode']}: {a['bytes']} B, "
                           f"{len(a['rows'])} rows -> {b['bytes']} B, {len(b['rows'])} rows")
    check(f"the plane-size sweep's repeats ({len(extra)}) move no matrix or table", not bad,
          "\n".join(bad))
    # 8. The same on a recorded `nodebw run --quick` (2-core VM, plane-size sweep included):
    # every OpenMP matrix and device table at 64 MiB with all four devices.
    fx = os.path.join(os.environ.get("NODEBW_SOURCE", "."), "tests", "fixtures",
                      "results-run-paired-2cpu-vm.json")
    rj = nodebw(["matrix", "--json", fx], 120)
    bad = [rj.stderr] if rj.returncode else []
    if not rj.returncode:
        rec = json.loads(rj.stdout)
        for m in rec["matrices"]:
            if m["api"] == "omp" and m["concurrency"] == "single":
                filled = sum(1 for r in m["cells"] for c in r if c and c["gbps"] is not None)
                if m["bandwidth_bytes"] != 64 << 20 or filled != 12:
                    bad.append(f"omp p2p {m['mode']}: {m['bandwidth_bytes']} B, {filled} cells")
        for t in rec["devices"]:
            if t["api"] == "omp" and (t["bytes"] != 64 << 20 or len(t["rows"]) != 4):
                bad.append(f"omp {t['direction']} {t['mode']} {t['host_mem']}: {t['bytes']} B, "
                           f"devices {[r['device'] for r in t['rows']]}")
    check("recorded nodebw run: every OpenMP matrix and table at 64 MiB, all devices", not bad,
          "\n".join(bad))

    # 9. One summary, one set of headlines: the probe's terminal summary, `nodebw summary`,
    # `nodebw summary --json`, `nodebw matrix --json`, report.md (its summary items), node.md
    # (the path table) and results.csv give each API's HtoD, DtoH, P2P and all-at-once figure,
    # one device's HtoD and one pair's P2P with the same value, size and mode.
    bad = []
    sj = nodebw(["summary", "--json", os.path.join(out, "results.json")], 120)
    st = nodebw(["summary", os.path.join(out, "results.json")], 120)
    if sj.returncode or st.returncode:
        bad.append(sj.stderr + st.stderr)
    else:
        sjson = json.loads(sj.stdout)
        heads = sjson["headlines"]
        cmpb = sjson["comparison_bytes"]
        if cmpb != cmp_size:
            bad.append(f"summary --json comparison size {cmpb}, results.csv {cmp_size}")

        def items_of(text):
            """The summary's items, unwrapped: '  * a' then '    b' lines."""
            out_items, cur = [], None
            for line in text.splitlines():
                if line.startswith("  * "):
                    cur = line[4:]
                    out_items.append(cur)
                elif line.startswith("    ") and out_items and not line.startswith("     "):
                    out_items[-1] += " " + line.strip()
                elif not line.strip() or line.startswith("  "):
                    pass
            return out_items
        term_items = items_of(term[term.find("==== Summary"):])
        cmd_items = items_of(st.stdout)
        md_items = [ln[2:] for ln in md[md.find("## Summary"):].splitlines()
                    if ln.startswith("- ")]
        api_items = [i for i in term_items if re.match(r"^\w+ at " + SIZE, i)]
        if not api_items:
            bad.append("no headline item in the terminal summary")
        for it in api_items:
            if it not in cmd_items:
                bad.append(f"nodebw summary lacks the terminal's item: {it}")
            if it.replace("->", "-\\>") not in md_items and it not in md_items:
                bad.append(f"report.md's summary lacks the terminal's item: {it}")
        if term_items and cmd_items[:len(api_items) + 1] and \
                [i for i in cmd_items if re.match(r"^\w+ at ", i)] != api_items:
            bad.append("the headline items differ between the terminal and nodebw summary")
        names = {"htod": "HtoD", "dtoh": "DtoH", "p2p": "P2P", "all": "every device at once"}
        for h in heads:
            text = f"{names[h['what']]} {h['gbps']:.2f} GB/s ({h['how']})"
            line = next((i for i in api_items if i.startswith(f"{h['api']} at ")), "")
            if text not in line or f"{h['api']} at {label(h['bytes'])} " not in line:
                bad.append(f"terminal: '{text}' at {label(h['bytes'])} not in '{line}'")
            if h["bytes"] != cmp_size:
                bad.append(f"headline {h['api']} {h['what']} at {h['bytes']} B, comparison {cmp_size}")
            # nodebw matrix --json: the median over the devices / pairs of that mode.
            if h["what"] in ("htod", "dtoh"):
                mode, mem = h["how"].split()
                t = next((x for x in tables if (x["api"], x["direction"], x["mode"],
                                                 x["host_mem"]) == (h["api"], h["what"], mode, mem)),
                         None)
                vals = sorted(r["gbps"] for r in t["rows"]) if t else []
            elif h["what"] == "p2p":
                m = next((x for x in mats if (x["api"], x["mode"]) == (h["api"], h["how"].split(",")[0])),
                         None)
                vals = sorted(c["gbps"] for i, r in enumerate(m["cells"]) for j, c in enumerate(r)
                              if m and i != j and c and c["gbps"] is not None) if m else []
            else:
                vals = [x["aggregate_gbps"] for x in an["all_at_once"] if x["api"] == h["api"]
                        and f"{x['pattern']} {x['mode']}" == h["how"]]
            med = (vals[len(vals) // 2] if len(vals) % 2 else
                   (vals[len(vals) // 2 - 1] + vals[len(vals) // 2]) / 2) if vals else None
            if med is None or not math.isclose(med, h["gbps"], rel_tol=1e-6):
                bad.append(f"{h['api']} {h['what']}: headline {h['gbps']}, nodebw matrix {med}")
            # node.md's path table (tables/summary-paths.csv): the same figure and size.
            if h["what"] != "all":
                mode = h["how"].split()[0].rstrip(",")
                mem = h["how"].split()[1] if h["what"] != "p2p" else "none"
                prow = next((r for r in read_rows(os.path.join(rdir, "tables", "summary-paths.csv"))
                             if (r["api"], r["direction"], r["mode"], r["host_mem"]) ==
                             (h["api"], h["what"], mode, mem)), None)
                if not prow or int(prow["comparison_bytes"]) != cmp_size or \
                        not same2(fnum(prow["comparison_gbps"]), h["gbps"]):
                    bad.append(f"summary-paths.csv {h['api']} {h['what']} {mode} {mem}: {prow}, "
                               f"headline {h['gbps']} at {cmp_size}")
        # One device's HtoD and one pair's P2P: nodebw matrix --json against results.csv.
        for h in heads:
            if h["what"] == "htod":
                mode, mem = h["how"].split()
                t = next(x for x in tables if (x["api"], x["direction"], x["mode"],
                                                x["host_mem"]) == (h["api"], "htod", mode, mem))
                r1 = next((r for r in t["rows"] if r["device"] == 1), None)
                csv1 = rows.get((h["api"], "htod", mode, mem, "single", "host", "1", cmp_size))
                if not r1 or csv1 is None or not math.isclose(r1["gbps"], csv1, rel_tol=2e-5):
                    bad.append(f"{h['api']} htod {mode} {mem} device 1: matrix {r1}, csv {csv1}")
            if h["what"] == "p2p":
                mode = h["how"].split(",")[0]
                m = next(x for x in mats if (x["api"], x["mode"]) == (h["api"], mode))
                ids = m["devices"]
                c01 = m["cells"][ids.index(0)][ids.index(1)]
                csv01 = rows.get((h["api"], "p2p", mode, "none", "single", "0", "1", cmp_size))
                if not c01 or csv01 is None or not math.isclose(c01["gbps"], csv01, rel_tol=2e-5):
                    bad.append(f"{h['api']} p2p {mode} 0->1: matrix {c01}, csv {csv01}")
    check("one summary: terminal, nodebw summary (--json), matrix --json, report.md and "
          "results.csv give the same headlines, sizes and modes", not bad, "\n".join(bad))

    # 10. One model accuracy: a recorded run's MAPE in nodebw summary (terminal and --json)
    # and in report.md's models table.
    bad = []
    fx = os.path.join(os.environ.get("NODEBW_SOURCE", "."), "tests", "fixtures",
                      "results-run-corun-2cpu-vm.json")
    st = nodebw(["summary", fx], 240)
    sj = nodebw(["summary", "--json", fx], 240)
    rd2 = os.path.join(tmp, "report-fx")
    rp = nodebw(["report", fx, "--output", rd2], 240)
    if st.returncode or sj.returncode or rp.returncode:
        bad.append(st.stderr + sj.stderr + rp.stderr)
    else:
        row = next((ln for ln in st.stdout.splitlines() if re.match(r"^  2\s+v3\s", ln)), "")
        one_dev = re.findall(r"([\d.]+) %", row)[:1]
        with open(os.path.join(rd2, "report.md")) as f:
            md2 = f.read()
        mrow = next((ln for ln in md2.splitlines() if ln.startswith("| 2 | v3 |")), "")
        cells = [c.strip() for c in mrow.strip("|").split("|")]
        acc = next((a for a in json.loads(sj.stdout)["solver"]["accuracy"]
                    if a.get("G") == 2 and a.get("version") == "v3"), None)
        if not one_dev or len(cells) < 7 or acc is None:
            bad.append(f"no G=2 v3 row: terminal '{row}', report.md '{mrow}'")
        else:
            key = next((k for k in acc if "onedev" in k and "mape" in k.lower()), None)
            jv = acc.get(key) if key else None
            if cells[6] != one_dev[0]:
                bad.append(f"one-device MAPE: terminal {one_dev[0]} %, report.md {cells[6]} %")
            if jv is None or f"{100 * jv if jv < 1 else jv:.1f}" != one_dev[0]:
                bad.append(f"one-device MAPE: terminal {one_dev[0]} %, summary --json {key}={jv}")
    check("one model accuracy: the one-device MAPE of G=2 v3 in the terminal summary, "
          "summary --json and report.md", not bad, "\n".join(bad))
    print(f"1..{n_checks}")
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main())
