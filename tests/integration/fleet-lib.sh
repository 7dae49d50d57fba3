# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the fleet's engine tests (fleet-mpi.sh, fleet-slurm.sh), sourced after tap.sh.
validate="$NODEBW_SOURCE/tests/integration/validate_results.py"
schema="$NODEBW_SOURCE/doc/results.schema.json"
py=/usr/bin/python3
# validates FILE: results.json follows the schema (the validator's words as TAP comments)
validates() {
	v_out=$($py "$validate" "$schema" "$1" 2>&1)
	v_st=$?
	[ -z "$v_out" ] || printf '%s\n' "$v_out" | sed 's/^/# /'
	return $v_st
}
# json_is FILE EXPR: a Python expression on the JSON document (j) is true
json_is() {
	$py -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
