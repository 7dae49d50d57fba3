#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nodebw fleet under a real Slurm: tests/fleet/slurm-local.sh starts munged, slurmctld and
# slurmd (Debian's slurm-wlm) on localhost with a generated one-node slurm.conf, and inside
# it: srun with three tasks acting as three nodes (NODEBW_FLEET_NODE), srun with one task on
# the real node, and the script of 'nodebw fleet --print-sbatch' submitted with
# sbatch --wait. The shared-file-system transport carries the results (the launch folder is
# the submission folder, as on a cluster).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$NODEBW_SOURCE/tests/integration/fleet-lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	ok "# SKIP a local Slurm needs root (munged, slurmctld, slurmd)"
	done_testing
	exit
fi
for b in srun sbatch slurmctld slurmd munged; do
	check "$b is installed (Debian: slurm-wlm, slurm-client, munge)" sh -c "command -v $b >/dev/null || test -x /usr/sbin/$b"
done
RUN="--api omp,host --probe htod,dtoh --threads 1 --mode sync --host-mem pinned --sizes 8,1MiB --no-hht-sweep --no-report"
cd "$tmp" || exit 1
cat >"$tmp/inside.sh" <<EOS
set -u
cd "$tmp"
# 1. three tasks as three nodes
NODEBW_FLEET_NODE='snode-%r' srun -n3 --overcommit --export=ALL "$NODEBW" fleet --output f1 -- \
	$RUN --solver-n 24 --solver-steps 10 --solver-rounds 1 >log1 2>&1
echo "srun3 \$?" >status
# 2. one task on the real node
srun -N1 --ntasks-per-node=1 "$NODEBW" fleet --output f2 -- $RUN --no-solver >log2 2>&1
echo "srun1 \$?" >>status
# 3. the ready sbatch script
"$NODEBW" fleet --print-sbatch --nodes 1 --output f3 --node-time-limit 300 -- $RUN --no-solver >job.sh
sbatch --wait job.sh >log3 2>&1
echo "sbatch \$?" >>status
EOS
timeout 900 sh "$NODEBW_SOURCE/tests/fleet/slurm-local.sh" "$tmp/cluster" -- sh "$tmp/inside.sh" \
	>"$tmp/cluster.log" 2>&1
st=$?
check "the local Slurm came up and ran the three launches (status $st)" test $st -eq 0
[ $st -eq 0 ] || sed 's/^/#   /' "$tmp/cluster.log" | tail -30
check "srun -n3: exit 0" grep -qx "srun3 0" "$tmp/status"
[ -f "$tmp/log1" ] && ! grep -qx "srun3 0" "$tmp/status" && sed 's/^/#   /' "$tmp/log1" | tail -20
check "srun -n3: fleet.json says launcher slurm, transport fs, 3 tasks" json_is "$tmp/f1/fleet.json" \
	"j['launcher'] == 'slurm' and j['transport'] == 'fs' and j['tasks'] == 3 and j['job'].startswith('slurm-')"
check "srun -n3: three nodes ok, each measured by its own task" json_is "$tmp/f1/fleet.json" \
	"[(n['node'], n['leader_rank'], n['status']) for n in j['nodes']] == [('snode-0', 0, 'ok'), ('snode-1', 1, 'ok'), ('snode-2', 2, 'ok')]"
for n in 0 1 2; do
	check "srun -n3: snode-$n's results.json follows the schema" validates "$tmp/f1/nodes/snode-$n/results.json"
done
check "srun -n3: the comparison of the three" json_is "$tmp/f1/report/fleet-summary.json" "len(j['nodes']) == 3"
check "srun -N1: exit 0" grep -qx "srun1 0" "$tmp/status"
host=$(hostname)
check "srun -N1: one node named by its host name ($host)" json_is "$tmp/f2/fleet.json" \
	"[(n['node'], n['status']) for n in j['nodes']] == [('$host', 'ok')]"
check "--print-sbatch: a script with one task per node" sh -c \
	"grep -qx '#SBATCH --ntasks-per-node=1' '$tmp/job.sh' && grep -q 'srun .*--ntasks-per-node=1' '$tmp/job.sh' && bash -n '$tmp/job.sh'"
check "sbatch --wait of it: exit 0" grep -qx "sbatch 0" "$tmp/status"
check "sbatch: the job's fleet finished with its node ok" json_is "$tmp/f3/fleet.json" \
	"j['state'] == 'finished' and [n['status'] for n in j['nodes']] == ['ok']"
check "sbatch: the job log names the fleet's end" sh -c "grep -q 'fleet finished: 1 of 1 nodes ok' '$tmp'/nodebw-fleet-*.log"
done_testing
