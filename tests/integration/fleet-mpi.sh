#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nodebw fleet under Debian's Open MPI on one machine, each rank acting as another node
# (NODEBW_FLEET_NODE, the test aid): three ranks as three nodes through the MPI transport,
# with the other ranks given launch folders of their own that must stay untouched (no
# shared file system is used); two ranks on one node (one measures, one waits); and an
# MPMD launch where one node's run fails and another's is stopped at its time limit while
# the third's results are kept.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$NODEBW_SOURCE/tests/integration/fleet-lib.sh"
mpirun="mpirun --allow-run-as-root --oversubscribe"
if ! command -v mpirun >/dev/null; then
	not_ok "mpirun is installed (Debian: openmpi-bin, libopenmpi-dev)"
	done_testing
	exit
fi
plugin="$(dirname "$NODEBW")/../fleet/nodebw-fleet-mpi.so"
check "the MPI plugin is built (Debian: libopenmpi-dev)" test -f "$plugin"
# A short characterisation: two probes of two APIs at two sizes and a small solver set.
RUN="--api omp,host --probe htod,dtoh --threads 1 --mode sync --host-mem pinned
--sizes 8,1MiB --no-hht-sweep --solver-n 24 --solver-steps 10 --solver-rounds 1 --no-report"

# 1. Three ranks, three nodes; ranks 1 and 2 name launch folders that must stay unused.
out="$tmp/f1"
# The ranks' local measuring folders already in /tmp (left by an earlier run that was killed)
# are not this launch's.
ls /tmp | grep 'nodebw-fleet-ompi-.*-node-[012]$' >"$tmp/fleet-before" || true
# shellcheck disable=SC2086
timeout 600 $mpirun -np 1 -x NODEBW_FLEET_NODE=node-0 "$NODEBW" fleet --output "$out" -- $RUN : \
	-np 1 -x NODEBW_FLEET_NODE=node-1 "$NODEBW" fleet --output "$tmp/unused-1" -- $RUN : \
	-np 1 -x NODEBW_FLEET_NODE=node-2 "$NODEBW" fleet --output "$tmp/unused-2" -- $RUN \
	>"$tmp/log1" 2>&1
st=$?
check "3 ranks: mpirun exits 0" test $st -eq 0
[ $st -eq 0 ] || sed 's/^/#   /' "$tmp/log1" | tail -20
check "3 ranks: fleet.json says transport mpi, launcher openmpi, 3 tasks" json_is "$out/fleet.json" \
	"j['transport'] == 'mpi' and j['launcher'] == 'openmpi' and j['tasks'] == 3 and j['state'] == 'finished'"
check "3 ranks: three nodes, each ok and measured by its own rank" json_is "$out/fleet.json" \
	"[(n['node'], n['leader_rank'], n['status']) for n in j['nodes']] == [('node-0', 0, 'ok'), ('node-1', 1, 'ok'), ('node-2', 2, 'ok')]"
for n in 0 1 2; do
	d="$out/nodes/node-$n"
	check "3 ranks: node-$n's results.json follows the schema" validates "$d/results.json"
	check "3 ranks: node-$n's fleet-node.json: ok, rank $n, node-$n" json_is "$d/fleet-node.json" \
		"j['status'] == 'ok' and j['rank'] == $n and j['node'] == 'node-$n' and j['exit_status'] == 0"
	check "3 ranks: node-$n's solver runs are there" json_is "$d/results.json" "len(j['solver_runs']) > 0"
done
check "3 ranks: the other ranks never wrote their own --output (no shared file system used)" \
	test ! -e "$tmp/unused-1" -a ! -e "$tmp/unused-2"
check "3 ranks: ranks 1 and 2 handed their folders to rank 0" \
	test "$(grep -c "folder (.* bytes) handed to rank 0" "$tmp/log1")" -eq 2
check "3 ranks: no half-placed folder is left" sh -c "! ls -a '$out/nodes' | grep -q part"
check "3 ranks: the comparison report of three nodes" json_is "$out/report/fleet-summary.json" \
	"len(j['nodes']) == 3 and len(j['groups']) == 1"
check "3 ranks: the local measuring folders are removed" sh -c \
	"! ls /tmp | grep 'nodebw-fleet-ompi-.*-node-[012]\$' | grep -qvxF -f '$tmp/fleet-before'"
check "3 ranks: a second fleet into the same folder is refused" sh -c \
	"\"$NODEBW\" fleet --output '$out' >/dev/null 2>'$tmp/e'; test \$? -eq 2 && grep -q 'holds a fleet already' '$tmp/e'"

# The fast tier stops after the three-node launch (it runs the MPI transport end to end).
if [ "${NODEBW_TIER:-long}" = fast ]; then
	done_testing
	exit
fi

# 2. Two ranks on one node: one measures, one waits.
out="$tmp/f2"
# shellcheck disable=SC2086
NODEBW_FLEET_NODE=twin timeout 600 $mpirun -np 2 -x NODEBW_FLEET_NODE "$NODEBW" fleet \
	--output "$out" -- $RUN --no-solver >"$tmp/log2" 2>&1
check "2 ranks on one node: mpirun exits 0" test $? -eq 0
check "2 ranks on one node: one node with 2 ranks, measured by rank 0" json_is "$out/fleet.json" \
	"[(n['node'], n['ranks'], n['leader_rank'], n['status']) for n in j['nodes']] == [('twin', 2, 0, 'ok')]"
check "2 ranks on one node: rank 1 waited" grep -q "rank 1, twin.*rank 0 measures this node; this rank waits" "$tmp/log2"
# mpirun binds two ranks to one core each: the node's run must still get every CPU.
all=$(nproc --all)
check "2 ranks on one node: the run had every CPU although mpirun bound the rank" json_is \
	"$out/nodes/twin/fleet-node.json" "j['run_cpus'] == ('0' if $all == 1 else '0-%d' % ($all - 1))"
diag "twin: the task had CPUs $($py -c "import json; print(json.load(open('$out/nodes/twin/fleet-node.json'))['task_cpus'])"), the run $($py -c "import json; print(json.load(open('$out/nodes/twin/fleet-node.json'))['run_cpus'])")"

# 3. One node's run fails (a device id the host API lacks: its options parse, so the fleet
# launches it; options that do not parse are refused before the launch), one is stopped at its
# limit, one is fine. The slow run's sizes take tens of seconds each (16 MiB, 40000
# repetitions); at the limit's SIGTERM it ends the size it is in after the next verified
# repetition and writes what it has, so its results never depend on where the limit falls
# (an earlier run went on to the end of the size, past the grace period, and was killed
# before it wrote anything). A node that finishes is "ok", not "timeout": the run is far
# longer than the limit.
out="$tmp/f3"
SLOW="--api omp --probe htod --threads 1 --mode sync --host-mem pinned --sizes 8,16MiB
--no-hht-sweep --no-solver --no-report --reps 40000"
# shellcheck disable=SC2086
timeout 600 $mpirun -np 1 -x NODEBW_FLEET_NODE=good "$NODEBW" fleet --output "$out" -- $RUN --no-solver : \
	-np 1 -x NODEBW_FLEET_NODE=bad "$NODEBW" fleet --output "$out" -- --api host --devices 63 : \
	-np 1 -x NODEBW_FLEET_NODE=slow "$NODEBW" fleet --output "$out" --node-time-limit 25 -- $SLOW \
	>"$tmp/log3" 2>&1
st=$?
check "failures: mpirun exits non-zero (rank 0: 3)" test $st -ne 0
check "failures: good is ok, bad failed with the run's reason, slow timed out" json_is "$out/fleet.json" \
	"[(n['node'], n['status']) for n in j['nodes']] == [('good', 'ok'), ('bad', 'failed'), ('slow', 'timeout')] and 'device id 63' in j['nodes'][1]['reason'] and 'time limit of 25 s' in j['nodes'][2]['reason']"
check "failures: good's results are kept and follow the schema" validates "$out/nodes/good/results.json"
check "failures: slow kept what it measured before the limit (state interrupted)" json_is \
	"$out/nodes/slow/results.json" "j['state'] == 'interrupted' and len(j['measurements']) >= 1"
check "failures: bad's log is in its folder" grep -q "device id 63" "$out/nodes/bad/fleet-node.log"
check "failures: the comparison lists bad as unreadable" json_is "$out/report/fleet-summary.json" \
	"[n['status'] for n in j['nodes'] if n['node'] == 'bad'] == ['unreadable']"
done_testing
