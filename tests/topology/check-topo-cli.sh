#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 'nodebw topo': the live machine as text and JSON, every fixture, export and re-read, and
# bad input (one line on stderr naming the file, exit 2, nothing on stdout).
. "$NODEBW_SOURCE/tests/tap.sh"
fx="$NODEBW_SOURCE/tests/fixtures/topology"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

runs() { # runs WANT args...: exit status WANT, output in $tmp/out and $tmp/err
	want=$1; shift
	"$NODEBW" "$@" >"$tmp/out" 2>"$tmp/err"
	[ $? -eq "$want" ]
}
json_ok() { # json_ok FILE PYTHON-EXPRESSION: the file is JSON and the expression holds
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

check "topo --help exits 0" runs 0 topo --help
check "topo --help states the formula" grep -q "128b/130b" "$tmp/out"
check "topo exits 0" runs 0 topo
check "topo shows the host" grep -q "^Host: " "$tmp/out"
check "topo shows NUMA nodes" grep -q "NUMA node 0" "$tmp/out"
for s in hwloc sysfs-pci nvml rocm-smi level-zero apis; do
	# a source that found nothing says why: more than its name on the line
	check "topo reports source $s" grep -Eq "^  $s +(ok|nothing) +[^ ]" "$tmp/out"
done
if grep -q "^  nvml +nothing" "$tmp/out"; then
	check "nvml says why it found nothing" grep -Eq "^  nvml +nothing +(dlopen|nvml)" "$tmp/out"
fi
check "topo states the unit" grep -q "1e9 bytes/s" "$tmp/out"
if "$NODEBW" list | grep -q '^  omp .*host-plugin'; then
	check "host-plugin devices are listed as host memory" \
		grep -Eq "omp:0 +host-plugin .*host memory" "$tmp/out"
fi
check "topo --json exits 0" runs 0 topo --json
cp "$tmp/out" "$tmp/live.json"
check "topo --json is the topology object" \
	json_ok "$tmp/live.json" "d['schema'] == 'nodebw-topology' and d['origin'] == 'live'"
check "topo --json has host, sources, devices, pairs, matrix" \
	json_ok "$tmp/live.json" "all(k in d for k in ('host','sources','devices','pairs','matrix'))"
check "topo --json: host-memory devices have a null link" json_ok "$tmp/live.json" \
	"all(x['host_link']['theoretical_gbps'] is None for x in d['devices'] if x['pci_bus_id'] is None)"

fixture() { # fixture NAME TEXT JSON-EXPRESSION
	check "fixture $1 exits 0" runs 0 topo --fixture "$fx/$1"
	check "fixture $1 names itself" grep -q "fixture .*$1 (not this machine)" "$tmp/out"
	check "fixture $1 shows $2" grep -q -- "$2" "$tmp/out"
	check "fixture $1 --json exits 0" runs 0 topo --fixture "$fx/$1" --json
	cp "$tmp/out" "$tmp/$1.json"
	check "fixture $1 --json: $3" json_ok "$tmp/$1.json" "$3"
}
fixture dgx-h100-like "NV18/450" \
	"len(d['devices']) == 8 and len(d['pairs']) == 28 and all(p['label'] == 'NV18' and p['theoretical_gbps'] == 450 for p in d['pairs'])"
fixture mi250x-like "XGMI4/200" \
	"d['host']['numa_nodes'] == 4 and {p['label'] for p in d['pairs']} == {'XGMI4','XGMI2','XGMI1','XGMI'}"
fixture pvc-like "XL2/50.0" \
	"len(d['devices']) == 8 and {p['label'] for p in d['pairs']} == {'MDF','XL2','NODE','SYS'}"
fixture dgx-h100-hwloc-gpu "NV18/450" \
	"len(d['pairs']) == 28 and all(p['label'] == 'NV18' and p['theoretical_gbps'] == 450 and p['source'] == 'hwloc XML NVLinkBandwidth (MB/s)' and p['cross_check'] is None for p in d['pairs']) and all(x['name'] == 'NVIDIA H100 80GB HBM3' and x['name_source'] == 'hwloc GPUModel (NVML)' for x in d['devices'])"
check "fixture dgx-h100-hwloc-gpu: no PCIe 15.8 pair" sh -c "! grep -Eq '(NODE|SYS)/15.8' '$tmp/out'" 
check "fixture dgx-h100-hwloc-gpu names the GPUs from GPUModel" runs 0 topo --fixture "$fx/dgx-h100-hwloc-gpu"
check "... the name is shown" grep -q "NVIDIA H100 80GB HBM3 \[pci,hwloc\]" "$tmp/out"
check "... and the source of the pair figures" grep -q "28 pairs from hwloc XML NVLinkBandwidth (MB/s)" "$tmp/out"
# the same XML beside an NVML stand-in (links.json): NVML's figure wins, hwloc's is recorded
mkdir "$tmp/xcheck"
cp "$fx/dgx-h100-hwloc-gpu/hwloc.xml" "$fx/dgx-h100-like/links.json" "$tmp/xcheck/"
check "hwloc XML + links.json: exits 0" runs 0 topo --fixture "$tmp/xcheck" --json
check "hwloc XML + links.json: nvml's figure, hwloc's beside it, agreeing" json_ok "$tmp/out" \
	"all(p['source'].startswith('nvml') and p['cross_check']['hwloc_gbps'] == 450 and p['cross_check']['agree'] for p in d['pairs']) and d['devices'][0]['name_source'] == 'nvml'"
python3 - "$tmp/xcheck/links.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["links"].append({"a": "0000:18:00.0", "b": "0000:2a:00.0", "type": "nvlink", "links": 12, "version": 4})
json.dump(d, open(sys.argv[1], "w"))
PY
check "a vendor figure 10 % off hwloc's is flagged" runs 0 topo --fixture "$tmp/xcheck" --json
check "... cross_check.agree is false for that pair only" json_ok "$tmp/out" \
	"[(p['a'], p['b']) for p in d['pairs'] if not p['cross_check']['agree']] == [('0000:18:00.0', '0000:2a:00.0')]"
check "... and the text says so" runs 0 topo --fixture "$tmp/xcheck"
check "... in one line" grep -q "cross-check GPU0-GPU1: nvml says 300.0 GB/s, hwloc XML NVLinkBandwidth (MB/s) 450.0 GB/s" "$tmp/out"
fixture dgx2-trunked "NV6-2SW/150" \
	"len(d['pairs']) == 120 and all(p['theoretical_gbps'] == 150 and p['label'] in ('NV6', 'NV6-2SW') for p in d['pairs']) and sum(p['label'] == 'NV6-2SW' for p in d['pairs']) == 64"
check "fixture dgx2-trunked: no SYS pair" runs 0 topo --fixture "$fx/dgx2-trunked"
check "... no SYS cell in the matrix" sh -c "! grep -q 'SYS/' '$tmp/out'"
check "... the legend explains NV#-kSW" grep -q "NV#-kSW = through k switches in series" "$tmp/out"
fixture two-tier-switch "NV1-3SW/25.0" \
	"[x['host_link']['theoretical_gbps'] for x in d['devices']] == [31.5077, 63.0154, None, 15.7538]"
fixture dgx2-hwloc "NV6/150" \
	"sum(p['label'] == 'SYS' and 'no switch-switch entry' in p['basis'] for p in d['pairs']) == 64"
fixture vm-2cpu "no device with a PCI address" \
	"d['host']['pus'] == 2 and d['devices'] == []"
check "a bare hwloc XML file works as a fixture" runs 0 topo --fixture "$fx/vm-2cpu/hwloc.xml"

check "export exits 0" runs 0 topo --no-vendor --export "$tmp/exported"
check "export writes hwloc.xml, links.json, README" \
	test -s "$tmp/exported/hwloc.xml" -a -s "$tmp/exported/links.json" -a -s "$tmp/exported/README"
check "an exported machine reads back" runs 0 topo --fixture "$tmp/exported" --json
check "the exported machine has this machine's PUs" json_ok "$tmp/out" \
	"d['host']['pus'] == $(python3 -c "import json; print(json.load(open('$tmp/live.json'))['host']['pus'])")"

usage_error "unknown topo option" topo --bogus
usage_error "topo with an argument" topo extra
usage_error "fixture without a value" topo --fixture
usage_error "fixture and sysfs root together" topo --fixture "$fx/vm-2cpu" --sysfs-root /sys
usage_error "missing fixture folder" topo --fixture "$tmp/none"
check "the missing fixture is named" grep -q "$tmp/none" "$tmp/err"
mkdir "$tmp/empty"
usage_error "fixture folder without hwloc.xml" topo --fixture "$tmp/empty"
check "the missing hwloc.xml is named" grep -q "empty/hwloc.xml" "$tmp/err"

mkdir "$tmp/badxml"
printf '<?xml version="1.0"?>\n<topology version="2.0">\n  <object type="Machine"\n</topology>\n' \
	>"$tmp/badxml/hwloc.xml"
usage_error "malformed hwloc XML" topo --fixture "$tmp/badxml"
check "the malformed XML file is named" grep -q "badxml/hwloc.xml" "$tmp/err"
if [ "$NODEBW_HAVE_LIBXML" = 1 ]; then
	check "the malformed XML error has the line" grep -q "badxml/hwloc.xml:[34]:" "$tmp/err"
fi
usage_error "malformed XML given as a file" topo --fixture "$tmp/badxml/hwloc.xml" --json

usage_error "an hwloc 3.x XML (topology version=3.0)" topo --fixture "$fx/hwloc3-xml"
check "the 3.x XML is called a newer format" grep -q "hwloc3-xml/hwloc.xml: an hwloc 3.x XML topology (topology version=\"3.0\"), a newer format" "$tmp/err"
check "the 3.x XML error names the format this nodebw reads" grep -Eq "reads: hwloc 2\.x XML \(built with hwloc 2\.[0-9.]+, HWLOC_API_VERSION 0x0002" "$tmp/err"

mkdir "$tmp/badjson"
cp "$fx/vm-2cpu/hwloc.xml" "$tmp/badjson/"
printf '{\n "devices": [\n  {"bus_id": "0000:01:00.0",}\n ]\n}\n' >"$tmp/badjson/links.json"
usage_error "malformed links.json" topo --fixture "$tmp/badjson"
check "the malformed links.json error has file and line" grep -q "badjson/links.json:3:" "$tmp/err"
printf '{"devices": [{"bus_id": "0000:01:00.0", "speed": 5}]}\n' >"$tmp/badjson/links.json"
usage_error "links.json with an unknown key" topo --fixture "$tmp/badjson"
check "the unknown key is named" grep -q "unknown key 'speed'" "$tmp/err"
done_testing
