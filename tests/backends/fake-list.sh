#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `nodebw list` and `nodebw --version` on a node of 8 GPUs per native API, faked: the real
# nodebw with the fake CUDA, HIP and Level Zero plugins ($FAKE_PLUGIN_DIR), whose runtimes
# log every call that would create a context, select a device, allocate or copy (and have no
# kernel launch to call). Listing devices may only ask for counts, names and attributes;
# --version loads no backend at all. (The OpenMP backend's own start-up is libomptarget's and
# not faked here.)
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

apis=""
for api in cuda hip ze; do
	[ -f "$FAKE_PLUGIN_DIR/nodebw-$api.so" ] && apis="$apis $api"
done
forbidden() { # the calls that make a context or touch a device, per API
	case $1 in
	cuda) echo "cudaSetDevice cudaMalloc cudaFree cudaHostAlloc cudaStreamCreate cudaEventCreate cudaMemcpy cudaDeviceSynchronize cuStreamWaitValue32 cuDevicePrimaryCtxSetFlags" ;;
	hip) echo "hipSetDevice hipMalloc hipHostMalloc hipStreamCreate hipEventCreate hipMemcpy hipStreamWaitValue32 hipDeviceSynchronize" ;;
	ze) echo "zeContextCreate zeEventPoolCreate zeCommandListCreate zeMemAlloc" ;;
	esac
}
fake() { # fake NAME nodebw-args...: stdout in $tmp/NAME.out, call logs in $tmp/NAME/
	name=$1; shift
	mkdir -p "$tmp/$name"
	FAKE_CUDA_NDEV=8 FAKE_HIP_NDEV=8 FAKE_ZE_NDEV=8 FAKE_CALLLOG_DIR="$tmp/$name" \
		NODEBW_PLUGIN_DIR=$FAKE_PLUGIN_DIR "$NODEBW" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}
cheap() { # cheap NAME API: the API's log exists and holds none of its forbidden calls
	[ -f "$tmp/$1/$2.log" ] || { diag "no $2 call log"; return 1; }
	for c in $(forbidden "$2"); do
		if grep -q "$c" "$tmp/$1/$2.log"; then
			diag "$2: $c in $(cat "$tmp/$1/$2.log")"
			return 1
		fi
	done
}

fake list list
check "list: exit 0" test $? -eq 0
for api in $apis; do
	check "list: 8 $api devices" test "$(grep -c "^  $api  *[0-7]  " "$tmp/list.out")" -eq 8
	check "list: $api made no context and touched no device" cheap list "$api"
done
fake json list --json
check "list --json: exit 0" test $? -eq 0
for api in $apis; do
	check "list --json: 8 $api devices" $py -c "
import json, sys
d = json.load(open('$tmp/json.out'))
sys.exit(0 if len([x for x in d['devices'] if x['api'] == '$api']) == 8 else 1)"
	check "list --json: $api made no context and touched no device" cheap json "$api"
done
fake version --version
check "--version: exit 0" test $? -eq 0
check "--version: no backend plugin was even loaded" sh -c "test -z \"\$(ls '$tmp/version')\""
done_testing
