#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The report's summary (report/summary.c) against its own results, recomputed here from the
# recorded fixtures: every path's figures, the fastest path per direction and API, the gap
# counts, the models' MAPE range, and where the summary stands in report.md (the table of
# every path on node.md). The fixtures:
# results-run-2cpu-vm.json (a real `nodebw run` on the 2-vCPU reference VM, host-plugin
# devices) and results-dgx-h100-handmade.json (hand-made, GPU links; tests/fixtures/README.md).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
for name in results-run-2cpu-vm results-dgx-h100-handmade; do
	NODEBW_GNUPLOT=/nonexistent "$NODEBW" report --output "$tmp/$name" "$fx/$name.json" \
		>"$tmp/$name.out" 2>&1
	check "$name: report exits 0" test $? -eq 0
	check "$name: report.md opens with the summary (its first section, after the title and the links to its pages)" sh -c \
		"grep '^##* ' '$tmp/$name/report.md' | sed -n 2p | grep -qx '## Summary' &&
		 sed -n 3p '$tmp/$name/report.md' | grep -q '^In detail: \\[' &&
		 sed -n 5p '$tmp/$name/report.md' | grep -qx '## Summary'"
	check "$name: the table of every path is on node.md (its first section)" sh -c \
		"grep '^## ' '$tmp/$name/node.md' | head -1 | grep -qx '## Every path' &&
		 grep -qF '](tables/summary-paths.csv)' '$tmp/$name/node.md' &&
		 ! grep -qF '](tables/summary-paths.csv)' '$tmp/$name/report.md'"
	python3 - "$fx/$name.json" "$tmp/$name/summary.json" >"$tmp/$name.py" 2>&1 <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
# The main run's verified single-stream sweep measurements, per path, as report/curves.c
# groups them (one curve per device set) and summary.c joins them (over device sets).
def ok(m):
    return (not m.get("error") and m["verification"]["status"] == "passed"
            and m.get("size_set") != "matrix" and m["concurrency"] == "single"
            and not m.get("hht_sweep") and m["seconds"]["median"] > 0)
def ends(m):
    f = lambda v: "h" if v == "host" else str(v)
    return ",".join(f"{f(x['src'])}->{f(x['dst'])}" for x in m["streams"])
paths = {}
for m in filter(ok, d["measurements"]):
    e = ends(m)
    a, b = e.split("->")
    if a == b:
        continue  # a copy within one device is no path
    key = (m["api"], m["direction"], m["mode"], m["host_mem"], m.get("peer_access") or "n/a",
           m["binding"]["policy"])
    paths.setdefault(key, {}).setdefault(e, []).append(m)
got = {(p["api"], p["direction"], p["mode"], p["host_mem"], p["peer_access"], p["binding"]): p
       for p in s["paths"]}
assert set(got) == set(paths), (sorted(set(got) ^ set(paths)))
# The comparison size: the matrix cells' large size (size set "matrix"), which every device
# and pair has; the path's figure is the median over all of them there (matrix cells too).
def okany(m):
    return (not m.get("error") and m["verification"]["status"] == "passed"
            and m["concurrency"] == "single" and not m.get("hht_sweep")
            and not m.get("plane_sweep") and m["seconds"]["median"] > 0)
cmpb = max((m["bytes"] for m in d["measurements"] if okany(m) and m.get("size_set") == "matrix"
            and m["mode"] != "chase"), default=None)
if cmpb is None:
    cnt = {}
    for m in d["measurements"]:
        if okany(m) and m["mode"] != "chase":
            cnt.setdefault(m["bytes"], set()).add((m["api"], m["direction"], m["mode"],
                                                   m["host_mem"], ends(m)))
    most = max(len(v) for v in cnt.values())
    top = sorted(b for b in cnt if len(cnt[b]) == most)
    under = [b for b in top[1:] if b <= 64 << 20]
    cmpb = under[-1] if under else top[-1]
at_cmp = {}
for m in d["measurements"]:
    if okany(m) and m["bytes"] == cmpb:
        e = ends(m)
        a, b = e.split("->")
        if a == b:
            continue
        key = (m["api"], m["direction"], m["mode"], m["host_mem"], m.get("peer_access") or "n/a",
               m["binding"]["policy"])
        at_cmp.setdefault(key, {}).setdefault(e, m["gbps"]["median"])
for key, curves in paths.items():
    p = got[key]
    med = statistics.median(at_cmp[key].values())
    assert abs(p["large_gbps"] - med) <= 1e-6 * med, (key, p["large_gbps"], med)
    assert p["large_bytes"] == cmpb, key
    best = max(m["gbps"]["median"] for ms in curves.values() for m in ms)
    assert abs(p["best_gbps"] - best) <= 1e-6 * best, (key, p["best_gbps"], best)
    small = min(m["bytes"] for ms in curves.values() for m in ms)
    lat = statistics.median([next(m["seconds"]["median"] for m in ms if m["bytes"] == small) * 1e6
                             for ms in curves.values() if min(m["bytes"] for m in ms) == small])
    assert abs(p["latency_us"] - lat) <= 1e-6 * lat, (key, p["latency_us"], lat)
    if p["theoretical_gbps"] is not None:
        assert abs(p["fraction"] - med / p["theoretical_gbps"]) < 1e-9, key
# The fastest path of each API per direction is the one the sentence names.
sent = " ".join(s["sentences"])
for dname, words in (("htod", "host-to-device"), ("dtoh", "device-to-host"), ("p2p", "device-to-device")):
    line = next((x for x in s["sentences"] if x.startswith(f"Fastest {words} ")), None)
    apis = {k[0] for k in got if k[1] == dname}
    assert (line is None) == (not apis), (dname, line)
    for api in apis:
        best = max((p for k, p in got.items() if k[1] == dname and k[0] == api),
                   key=lambda p: p["large_gbps"])
        assert f"{api} {best['large_gbps']:.2f} GB/s ({best['mode']}" in line, (line, api, best["large_gbps"])
# The gap sentence counts the (mode, band, devices) cases beyond +-3 %.
cases = slow = 0
for g in s["gaps"]:
    for band in ("latency_band", "bandwidth_band"):
        r = (g.get(band) or {}).get("median_relative_gap")
        if r is None:
            continue
        cases += 1
        if (g.get(band) or {}).get("verdict") == "no measurable gap":
            continue
        slow += r > 0.03
if slow:
    assert f"slower than {s['gaps'][0]['native_api']} in {slow} of {cases} " in sent, sent
# The models' MAPE range.
acc = s["solver"].get("accuracy") or []
for key, label in (("onedev_mape", "one-device model (probes and one-device runs only, before porting)"),
                   ("compcal_mape", "compute-calibrated model (needs the versions run without their halo copies)"),
                   ("extended_mape", "fitted model (also the versions' timed runs at the other N)"),
                   ("paper_mape", "the paper's"), ("conly_mape", "baseline 'step = measured compute-only half'")):
    vals = [a[key] * 100 for a in acc if key in a]
    if vals:
        assert f"{label} MAPE {min(vals):.1f}-{max(vals):.1f} %" in sent, sent
    elif acc:
        assert f"{label}: no prediction" in sent, sent
# The one-device model is named first.
if acc:
    assert sent.index("one-device model") < sent.index("compute-calibrated model") < sent.index("fitted model"), sent
unstable = sum(a.get("unstable_sizes", 0) for a in acc)
if unstable:
    grids = unstable + sum(a["sizes"] for a in acc)
    assert f"{unstable} of {grids} grids were unstable" in sent, sent
print(f"{len(got)} paths, {cases} gap cases, {len(acc)} model configurations")
PY
	st=$?
	sed 's/^/#   /' "$tmp/$name.py"
	check "$name: summary.json agrees with the results" test $st -eq 0
done
check "host-plugin run: says its devices are host memory" \
	grep -q "Every device measured is host memory" "$tmp/results-run-2cpu-vm/summary.json"
check "GPU fixture: names a link and its theoretical figure" python3 -c "
import json, sys; s = json.load(open('$tmp/results-dgx-h100-handmade/summary.json'))
assert any(p['fraction'] is not None for p in s['paths'])
assert any(x.startswith('Against theoretical: closest') for x in s['sentences'])"
check "summary tables are CSV with machine headers" sh -c \
	"head -1 '$tmp/results-run-2cpu-vm/tables/summary-paths.csv' | grep -q '^api,direction,mode,host_mem,peer_access,endpoints,comparison_bytes,comparison_gbps,'"
done_testing
