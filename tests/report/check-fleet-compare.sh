#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nodebw compare (and nodebw report --fleet) on recorded node folders: the four runs of
# tests/fixtures/fleet-vm/ (node-c's HtoD of device 2 at 64 MiB degraded by hand to half)
# must flag exactly that node and that path; the hand-made DGX-H100 document in three
# copies, one with device 2's host link trained at Gen4 and its HtoD halved, must list that
# topology difference first and flag that node's path; an H200 copy forms its own group
# and is compared with nobody; a truncated and a missing results.json are reported as
# unreadable with the reason while the others are compared; bad input exits 2.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fix="$NODEBW_SOURCE/tests/fixtures/fleet-vm"
dgx="$NODEBW_SOURCE/tests/fixtures/results-dgx-h100-handmade.json"
degrade="$NODEBW_SOURCE/tests/fixtures/make-fleet-degraded.py"
py=/usr/bin/python3
# summary_is FILE EXPR: a Python expression on the summary (s) is true
summary_is() {
	$py - "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
out = [(o["node"], o["path"]) for o in s["outliers"]]
nodes = {n["node"]: n for n in s["nodes"]}
td = [(d["node"], d["what"]) for d in s["topology_differences"]]
groups = {g["group"]: g for g in s["groups"]}
ok = eval(sys.argv[2])
if not ok:
    print("# outliers:", out)
    print("# topology:", td)
    print("# nodes:", [(n, v["status"], v.get("group"), v["reason"][:120]) for n, v in nodes.items()])
sys.exit(0 if ok else 1)
PY
}
vmpath='omp htod sync pinned h->2 @ 64 MiB'

"$NODEBW" compare --output "$tmp/r1" "$fix" >"$tmp/out" 2>"$tmp/err"
check "vm fleet: compare exits 0" test $? -eq 0
check "vm fleet: nothing on stderr" test ! -s "$tmp/err"
s1="$tmp/r1/fleet-summary.json"
check "vm fleet: fleet-summary.json" test -s "$s1"
check "vm fleet: 4 readable nodes in one group" summary_is "$s1" \
	"len(nodes) == 4 and all(n['readable'] for n in nodes.values()) and len(groups) == 1"
check "vm fleet: exactly node-c's '$vmpath' is flagged" summary_is "$s1" \
	"out == [('node-c', '$vmpath')]"
check "vm fleet: it is at the hand-made half of its recorded 7.27 GB/s" summary_is "$s1" \
	"abs(s['outliers'][0]['value'] - 3.637) < 0.01 and s['outliers'][0]['ratio'] < 0.5"
check "vm fleet: the reason names the value, the others' median and the link" summary_is "$s1" \
	"'median' in s['outliers'][0]['reason'] and 'host memory, no link' in s['outliers'][0]['reason']"
check "vm fleet: no topology differences" summary_is "$s1" "td == []"
check "vm fleet: the bandwidth paths are judged, the small-size times are not" summary_is "$s1" \
	"all(p['judged'] == (p['kind'] != 'latency') for p in s['paths'])"
check "vm fleet: the terminal names node-c and the path" grep -qF "node-c: $vmpath" "$tmp/out"
check "vm fleet: the terminal states the unit" grep -qF "GB/s = 1e9 bytes per second" "$tmp/out"
md="$tmp/r1/report.md"
td_line=$(grep -n "^## Topology differences" "$md" | cut -d: -f1)
ol_line=$(grep -n "^## Outliers" "$md" | cut -d: -f1)
check "vm fleet: report.md lists the topology differences before the outliers" \
	test -n "$td_line" -a -n "$ol_line" -a "${td_line:-0}" -lt "${ol_line:-0}"
check "vm fleet: report.html" test -s "$tmp/r1/report.html"
check "vm fleet: tables/fleet-outliers.csv has one row, node-c" \
	test "$(tail -n +2 "$tmp/r1/tables/fleet-outliers.csv" | cut -d, -f1 | tr '\n' ' ')" = "node-c "
check "vm fleet: tables/fleet-paths.csv has a ratio column per node" \
	sh -c "head -1 '$tmp/r1/tables/fleet-paths.csv' | grep -q 'ratio_node_a.*ratio_node_d'"
check "vm fleet: the nodes x paths heat map's data and script" \
	test -s "$tmp/r1/plots/fleet-map-1.dat" -a -s "$tmp/r1/plots/fleet-map-1.gp"
check "vm fleet: the heat map's rows are the four nodes" \
	sh -c "grep '^# row index' '$tmp/r1/plots/fleet-map-1.dat' | grep -q '3=\"node-d\"'"
"$NODEBW" report --fleet "$fix" --output "$tmp/r2" >/dev/null 2>&1
check "report --fleet writes the same summary" cmp -s "$s1" "$tmp/r2/fleet-summary.json"
"$NODEBW" compare --json --output "$tmp/r3" "$fix" >"$tmp/json" 2>"$tmp/err"
check "--json: the summary alone on stdout" $py -c "
import json, sys; s = json.load(open('$tmp/json')); sys.exit(s['schema'] != 'nodebw-fleet-summary')"

# A truncated results.json and one that is missing: unreadable, with the reason; the others
# are compared and node-c is still the one flagged.
cp -r "$fix" "$tmp/bad"
head -c 4000 "$fix/nodes/node-b/results.json" >"$tmp/bad/nodes/node-b/results.json"
mkdir "$tmp/bad/nodes/node-e"
printf '{"node": "node-e", "status": "failed", "reason": "exit status 1: nodebw: error: out of memory"}\n' \
	>"$tmp/bad/nodes/node-e/fleet-node.json"
"$NODEBW" compare --quiet "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
check "corrupt node: compare still exits 0" test $? -eq 0
sb="$tmp/bad/report/fleet-summary.json"
check "corrupt node: node-b unreadable with file:line:column" summary_is "$sb" \
	"nodes['node-b']['status'] == 'unreadable' and __import__('re').search(r'results\.json:\d+:\d+', nodes['node-b']['reason'])"
check "missing results: node-e unreadable, with what the node said" summary_is "$sb" \
	"nodes['node-e']['status'] == 'unreadable' and 'out of memory' in nodes['node-e']['reason']"
check "corrupt node: the other three are compared" summary_is "$sb" \
	"len(groups) == 1 and list(groups.values())[0]['nodes'] == ['node-a', 'node-c', 'node-d'] and [p['nodes'] for p in s['paths'] if p['path'] == '$vmpath'] == [3]"

# The machine speed reference: hand-made figures (not measured; the recorded runs predate
# it), alike on the four nodes but node-d's memory copy at 0.6x and node-a's core 3 % slower
# (within the rule): exactly node-d's memory reference is flagged, beside node-c's HtoD.
cp -r "$fix" "$tmp/sref"
for n in node-a node-b node-c node-d; do
	$py - "$tmp/sref/nodes/$n/results.json" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
core, cache, mem = 1.10, 112.0, 20.0
if sys.argv[2] == "node-d":
    mem *= 0.6
if sys.argv[2] == "node-a":
    core *= 1.03
refs = [{"at": at, "elapsed_s": 1.0 + i, "core_ns_per_step": core * f, "cache_gbps": cache / f,
         "memory_gbps": mem / f, "seconds": 0.2}
        for i, (at, f) in enumerate((("start", 1.05), ("after probes", 1.0), ("after solver", 1.2)))]
d.setdefault("disturbance", {"environment": None, "stages": []})["speed_reference"] = refs
json.dump(d, open(sys.argv[1], "w"))
PY
done
"$NODEBW" compare --quiet "$tmp/sref" >"$tmp/out" 2>"$tmp/err"
check "speed reference: compare exits 0" test $? -eq 0
ss="$tmp/sref/report/fleet-summary.json"
check "speed reference: node-d's memory copy is flagged, with node-c's HtoD, nothing else" summary_is "$ss" \
	"sorted(out) == [('node-c', '$vmpath'), ('node-d', 'host speed reference: memory copy 32 MiB')]"
check "speed reference: each node's best of the run, as a judged path in its unit" summary_is "$ss" \
	"{p['path']: (p['unit'], p['better'], p['judged'], round(p['median'], 3)) for p in s['paths'] if p['path'].startswith('host speed')} == {'host speed reference: core (multiply-add chains)': ('ns/step', 'lower', True, 1.1), 'host speed reference: cache copy 192 KiB': ('GB/s', 'higher', True, 112.0), 'host speed reference: memory copy 32 MiB': ('GB/s', 'higher', True, 20.0)}"
check "speed reference: node-d at 0.6 x the fleet median" summary_is "$ss" \
	"abs([o for o in s['outliers'] if o['node'] == 'node-d'][0]['ratio'] - 0.6) < 1e-9"

# GPU nodes: three DGX-H100 documents, dgx-3 with device 2's link at Gen4 and its HtoD
# halved; an H200 node; and the four host-plugin nodes in the same fleet folder.
f="$tmp/gpu/nodes"
mkdir -p "$f/dgx-1" "$f/dgx-2" "$f/dgx-3" "$f/h200-1"
cp "$dgx" "$f/dgx-1/results.json"
cp "$dgx" "$f/dgx-2/results.json"
$py "$degrade" "$dgx" "$tmp/d3.json" cuda htod async pinned host 2 268435456 2.0
$py - "$tmp/d3.json" "$f/dgx-3/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hl = d["topology"]["devices"][2]["host_link"]
hl["current"].update({"gen": 4, "gt_s": 16.0, "gbps": 31.5077})
json.dump(d, open(sys.argv[2], "w"))
PY
# Hand-made solver runs (not measured): the same three configurations on every DGX copy,
# dgx-3's v3 on G = 4 1.5x slower.
for n in 1 2 3; do
	$py - "$f/dgx-$n/results.json" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
runs = []
for ver, g, sps in (("baseline", 1, 0.0200), ("v3", 2, 0.0110), ("v3", 4, 0.0060)):
    if sys.argv[2] == "3" and ver == "v3" and g == 4:
        sps *= 1.5
    runs.append({"version": ver, "G": g, "cubic_n": 512, "exchange": "halo",
                 "purpose": "validation", "seconds_per_step": sps, "error": None,
                 "verification": {"status": "passed"}})
d["solver_runs"] = runs
json.dump(d, open(sys.argv[1], "w"))
PY
done
$py - "$dgx" "$f/h200-1/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for dev in d["devices"] + d["topology"]["devices"]:
    dev["name"] = "NVIDIA H200"
json.dump(d, open(sys.argv[2], "w"))
PY
for n in node-a node-b node-c node-d; do cp -r "$fix/nodes/$n" "$f/"; done
"$NODEBW" compare --quiet "$tmp/gpu" >"$tmp/out" 2>"$tmp/err"
check "GPU fleet: compare exits 0" test $? -eq 0
sg="$tmp/gpu/report/fleet-summary.json"
check "GPU fleet: three groups by device model" summary_is "$sg" \
	"sorted(groups) == ['4 x host-plugin (host memory)', '8 x NVIDIA H100 80GB HBM3', '8 x NVIDIA H200']"
check "GPU fleet: the H200 node is compared with nobody" summary_is "$sg" \
	"groups['8 x NVIDIA H200']['judged'] == 0 and nodes['h200-1']['outliers'] == 0"
check "GPU fleet: the one topology difference is dgx-3's device 2 host link" summary_is "$sg" \
	"td == [('dgx-3', 'device 2 host link')] and 'Gen4 x16' in s['topology_differences'][0]['value'] and 'Gen5 x16' in s['topology_differences'][0]['fleet_value']"
check "GPU fleet: dgx-3's HtoD of device 2 is flagged, with the link's theoretical figure" summary_is "$sg" \
	"('dgx-3', 'cuda htod async pinned h->2 @ 256 MiB') in out and 'theoretical' in [o for o in s['outliers'] if o['node'] == 'dgx-3' and o['kind'] == 'bandwidth'][0]['reason']"
check "GPU fleet: dgx-3's slower v3 on G = 4 is flagged (a solver path)" summary_is "$sg" \
	"('dgx-3', 'heat v3 G=4 N=512 validation') in out"
check "GPU fleet: the outliers are exactly those three" summary_is "$sg" \
	"sorted(out) == sorted([('dgx-3', 'cuda htod async pinned h->2 @ 256 MiB'), ('dgx-3', 'heat v3 G=4 N=512 validation'), ('node-c', '$vmpath')])"
check "GPU fleet: the terminal lists the topology difference before the outliers" sh -c \
	"\"$NODEBW\" compare --output '$tmp/r4' '$tmp/gpu' | grep -n 'Topology differences\|^Outliers' | head -1 | grep -q Topology"

# Bad input: one line, exit status 2.
mkdir "$tmp/empty"
usage_error "compare: a folder that does not exist" compare "$tmp/nonexistent"
usage_error "compare: a folder without node folders" compare "$tmp/empty"
usage_error "compare: no folder" compare
usage_error "compare: two folders" compare "$fix" "$fix"
usage_error "compare: an unknown option" compare --frobnicate "$fix"
usage_error "report --fleet: a folder without node folders" report --fleet "$tmp/empty"
: >"$tmp/afile"
usage_error "compare: an output folder that is a file" compare --output "$tmp/afile" "$fix"
usage_error "fleet: a launch folder that is a file" fleet --output "$tmp/afile/sub"
check "fleet: the file in the way is untouched" test -f "$tmp/afile" -a ! -s "$tmp/afile"
usage_error "fleet: a node time limit of 0" fleet --node-time-limit 0
usage_error "fleet: a node time limit that is not a number" fleet --node-time-limit soon
usage_error "fleet: an unknown transport" fleet --transport pigeon
usage_error "fleet: --nodes 0" fleet --print-sbatch --nodes 0
usage_error "fleet: an unknown option" fleet --frobnicate
usage_error_matching "fleet: --output among the run's options" "names each node's folder" \
	fleet --output "$tmp/never" -- --output "$tmp/never2"
check "fleet: nothing was created for the refused launch" test ! -e "$tmp/never" -a ! -e "$tmp/never2"
"$NODEBW" fleet --print-sbatch --nodes 4 -- --full >"$tmp/job.sh"
check "fleet --print-sbatch: a bash script for 4 nodes, one task each" sh -c \
	"bash -n '$tmp/job.sh' && grep -qx '#SBATCH --nodes=4' '$tmp/job.sh' && grep -q 'fleet --output .* -- --full\$' '$tmp/job.sh'"
# A FIFO where a node's fleet-node.json should be: read without blocking (the bounded
# reader refuses what is not a regular file), the node compared from its results.json.
mkdir -p "$tmp/fifo/nodes"
cp -r "$fix/nodes/node-a" "$fix/nodes/node-b" "$tmp/fifo/nodes/"
rm -f "$tmp/fifo/nodes/node-a/fleet-node.json"
mkfifo "$tmp/fifo/nodes/node-a/fleet-node.json"
timeout 60 "$NODEBW" compare --quiet "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a FIFO as fleet-node.json: compare ends by itself, exit 0 (status $st)" test "$st" -eq 0
check "a FIFO as fleet-node.json: the node is compared from its results" summary_is \
	"$tmp/fifo/report/fleet-summary.json" "nodes['node-a']['status'] == 'ok'"
done_testing
