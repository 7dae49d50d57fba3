#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# slurm-local.sh WORKDIR -- COMMAND [ARGS...]
#
# Starts a throwaway single-node Slurm cluster on this host, runs COMMAND in it with
# SLURM_CONF exported (so that srun, sbatch, salloc, sinfo... inside COMMAND use it), then
# tears everything down and exits with COMMAND's status. Meant for the test suite: run as
# root, works without systemd and in a chroot-like container (no cgroups, no services).
#
# How: everything lives in WORKDIR (munge key, slurm.conf, state, logs, pid files); the
# sockets and slurmd's spool go to a short folder under /tmp instead when WORKDIR's path is
# too long for a unix socket. munged runs in the foreground (-F, --force since it is root)
# on its own key and socket; slurm.conf's AuthInfo=socket=... points auth/munge and
# cred/munge at that socket, so /etc/munge, /run/munge and /etc/slurm are never touched.
# The one node is named after the short host name (what slurmctld compares SlurmctldHost
# with) but addressed as 127.0.0.1, so the host name need not resolve. Ports are random in
# 20000-59999 and checked free in /proc/net/tcp*. slurmctld and slurmd run with -D in the
# background; the script waits (at most 30 s) for sinfo to show the node idle and for
# `srun -N1 -n1 true` to work. A trap on EXIT/INT/TERM cancels the jobs left, stops slurmd,
# slurmctld and munged (TERM, then KILL), kills what is left that carries this cluster's
# SLURM_CONF in its environment (stray slurmstepd, orphaned tasks) and waits for it all.
# A WORKDIR left by an earlier run (marked by WORKDIR/.slurm-local) is cleaned, daemons it
# left running killed, and reused; a non-empty WORKDIR without that mark is refused.
#
# Exit status: COMMAND's; 77 (skip) when not root or a program is missing; 1 when the
# cluster does not come up (the daemon logs' tails are printed); 2 on a usage error.

# shellcheck disable=SC2317 # (functions that only the EXIT trap calls)
me=slurm-local
say() { echo "$me: $*" >&2; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*"; exit 1; }

if [ $# -lt 3 ] || [ "$2" != -- ]; then
	echo "usage: $0 WORKDIR -- COMMAND [ARGS...]" >&2
	exit 2
fi
workdir=$1
shift 2

PATH=$PATH:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
[ "$(id -u)" = 0 ] || skip "needs root (munged and slurmd run as root here)"
for prog in munged munge slurmctld slurmd sinfo srun scontrol squeue scancel timeout od grep; do
	command -v "$prog" >/dev/null 2>&1 || skip "$prog not found"
done
[ -r /dev/urandom ] || skip "/dev/urandom not readable"

now_ms() { # milliseconds since the epoch (GNU date), or seconds * 1000
	t=$(date +%s%N 2>/dev/null)
	case $t in *N | '') echo $(($(date +%s) * 1000)) ;; *) echo $((t / 1000000)) ;; esac
}
nap() { sleep 0.2 2>/dev/null || sleep 1; }
# alive PID: the process exists and is not a zombie
alive() { [ -e "/proc/$1" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; }
# ours PID: PID's command line names WORKDIR (munged, slurmctld and slurmd get paths in it)
ours() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$workdir/"; }
# env_pids: processes (not this script) whose environment holds this cluster's SLURM_CONF
env_pids() {
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		[ "$p" = $$ ] && continue
		grep -qzxF -- "SLURM_CONF=$conf" "$e" 2>/dev/null && echo "$p"
	done
}
# stop_pids SECONDS PID...: TERM, wait at most SECONDS, then KILL; reaps our children
stop_pids() {
	sp_t=$1
	shift
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	sp_i=0
	while [ "$sp_i" -lt $((sp_t * 5)) ]; do
		sp_any=
		for p in "$@"; do alive "$p" && sp_any=1; done
		[ -z "$sp_any" ] && break
		nap
		sp_i=$((sp_i + 1))
	done
	for p in "$@"; do
		if alive "$p"; then
			say "pid $p did not stop on TERM: KILL"
			kill -KILL "$p" 2>/dev/null
		fi
	done
	for p in "$@"; do wait "$p" 2>/dev/null; done
	return 0
}

# --- WORKDIR ------------------------------------------------------------------------------
mkdir -p "$workdir" || fail "cannot create $workdir"
workdir=$(cd "$workdir" && pwd -P) || fail "cannot enter WORKDIR"
[ "$workdir" != / ] || fail "WORKDIR must not be /"
conf=$workdir/slurm.conf
if [ -e "$workdir/.slurm-local" ]; then
	# An earlier run's: kill what it may have left running, then start afresh.
	old_run=$(cat "$workdir/.slurm-local" 2>/dev/null)
	left=
	for f in "$workdir"/*.pid; do
		[ -f "$f" ] || continue
		p=$(cat "$f" 2>/dev/null)
		case $p in '' | *[!0-9]*) continue ;; esac
		alive "$p" && ours "$p" && left="$left $p"
	done
	# shellcheck disable=SC2046,SC2086
	left=$(printf '%s\n' $left $(env_pids) | sort -un | tr '\n' ' ')
	left=${left% }
	if [ -n "$left" ]; then
		say "killing processes left running by an earlier run in $workdir: $left"
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null
		i=0
		for p in $left; do
			while alive "$p" && [ $i -lt 50 ]; do nap; i=$((i + 1)); done
		done
	fi
	case $old_run in /tmp/slurm-local.*) rm -rf "$old_run" ;; esac
	find "$workdir" -mindepth 1 -delete 2>/dev/null || rm -rf "${workdir:?}"/* "${workdir:?}"/.[!.]*
elif [ -n "$(ls -A "$workdir")" ]; then
	fail "$workdir is not empty and was not made by $me: refusing to use it"
fi
chmod 0755 "$workdir" # munged wants its socket folder searchable, nothing group/world-writable
# unix socket paths are limited to 108 bytes: slurmd's spool holds NODE_JOB.STEP sockets
run=$workdir
if [ ${#workdir} -gt 48 ]; then
	run=$(mktemp -d /tmp/slurm-local.XXXXXX) || fail "mktemp failed"
	chmod 0755 "$run"
fi
echo "$run" >"$workdir/.slurm-local"
mkdir -p "$workdir/state" "$run/spool" "$workdir/log" || fail "cannot make folders in $workdir"

munged_pid='' ctld_pid='' slurmd_pid='' cleaned=''
cleanup() {
	[ -n "$cleaned" ] && return 0
	cleaned=1
	trap '' INT TERM
	if [ -n "$ctld_pid" ] && alive "$ctld_pid"; then
		jobs=$(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null)
		if [ -n "$jobs" ]; then
			say "cancelling jobs left: $(echo "$jobs" | tr "\n" " ")"
			# shellcheck disable=SC2086
			SLURM_CONF=$conf timeout 5 scancel $jobs 2>/dev/null
			i=0
			while [ "$i" -lt 25 ] && [ -n "$(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null)" ]; do
				nap
				i=$((i + 1))
			done
		fi
	fi
	# shellcheck disable=SC2086
	stop_pids 10 $slurmd_pid $ctld_pid
	for _ in 1 2; do # stray slurmstepd and tasks: they carry SLURM_CONF
		# shellcheck disable=SC2046
		stop_pids 3 $(env_pids)
	done
	# shellcheck disable=SC2086
	stop_pids 5 $munged_pid
	[ "$run" != "$workdir" ] && rm -rf "$run"
	say "stopped (logs in $workdir/log)"
}
on_exit() {
	st=$?
	cleanup
	exit "$st"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

logs_tail() {
	for f in "$workdir"/log/*.out; do # daemons run with -D/-F: everything they log
		[ -s "$f" ] || continue
		echo "==== $f (last 25 lines) ====" >&2
		tail -n 25 "$f" >&2
	done
}
# bail REASON: print the logs' tails and fail (the EXIT trap stops what was started)
bail() {
	logs_tail
	fail "$*"
}

# --- munge --------------------------------------------------------------------------------
t0=$(now_ms)
sock=$run/munge.sock
key=$workdir/munge.key
umask 077
dd if=/dev/urandom of="$key" bs=1024 count=1 2>/dev/null || fail "cannot write $key"
umask 022
chmod 0400 "$key" # owned by root, who runs munged: munged checks owner and mode
munged -F --force --socket="$sock" --key-file="$key" --pid-file="$workdir/munged.pid" \
	--log-file="$workdir/log/munged.log" --seed-file="$workdir/munged.seed" \
	</dev/null >"$workdir/log/munged.out" 2>&1 &
munged_pid=$!
i=0
until munge -S "$sock" -n </dev/null >/dev/null 2>&1; do
	alive "$munged_pid" || bail "munged exited"
	[ $i -lt 50 ] || bail "munged did not answer within 10 s"
	nap
	i=$((i + 1))
done

# --- slurm.conf ---------------------------------------------------------------------------
node=$(uname -n)
node=${node%%.*} # slurmctld checks SlurmctldHost against gethostname() cut at the first dot
[ -n "$node" ] || node=localhost
ncpu=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
port_free() {
	h=$(printf ':%04X ' "$1")
	! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q "$h"
}
pick_port() {
	while :; do
		r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' \n')
		p=$((20000 + r % 40000))
		[ "$p" != "${1:-}" ] && port_free "$p" && echo "$p" && return
	done
}
ctld_port=$(pick_port)
slurmd_port=$(pick_port "$ctld_port")
: >"$workdir/plugstack.conf"
cat >"$conf" <<EOF
# made by tests/fleet/slurm-local.sh for one throwaway run
ClusterName=slurmlocal
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$workdir/state
SlurmdSpoolDir=$run/spool
SlurmctldPidFile=$workdir/slurmctld.pid
SlurmdPidFile=$workdir/slurmd.pid
SlurmctldLogFile=$workdir/log/slurmctld.log
SlurmdLogFile=$workdir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$workdir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SlurmdParameters=config_overrides
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
InactiveLimit=0
KillWait=5
MinJobAge=4
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=10
NodeName=$node NodeHostname=$node NodeAddr=127.0.0.1 CPUs=$ncpu RealMemory=256 State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
say "cluster in $workdir: node $node ($ncpu CPUs, 127.0.0.1), slurmctld port $ctld_port, slurmd port $slurmd_port"

# --- daemons ------------------------------------------------------------------------------
SLURM_CONF=$conf
export SLURM_CONF # for the daemons (and so for slurmstepd: cleanup finds strays by it)
slurmctld -D -c -f "$conf" </dev/null >"$workdir/log/slurmctld.out" 2>&1 &
ctld_pid=$!
unset SLURM_CONF
i=0
until SLURM_CONF=$conf timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; do
	alive "$ctld_pid" || bail "slurmctld exited"
	[ $i -lt 100 ] || bail "slurmctld did not answer within 20 s"
	nap
	i=$((i + 1))
done
SLURM_CONF=$conf
export SLURM_CONF
slurmd -D -f "$conf" -N "$node" </dev/null >"$workdir/log/slurmd.out" 2>&1 &
slurmd_pid=$!
unset SLURM_CONF

deadline=$(($(now_ms) + 30000))
state=
while :; do
	alive "$ctld_pid" || bail "slurmctld exited"
	alive "$slurmd_pid" || bail "slurmd exited"
	state=$(SLURM_CONF=$conf timeout 5 sinfo -h -n "$node" -o %t 2>/dev/null)
	if [ "$state" = idle ] &&
		SLURM_CONF=$conf timeout 10 srun -N1 -n1 -t 1 -J slurm-local-probe true </dev/null >/dev/null 2>&1; then
		break
	fi
	[ "$(now_ms)" -lt "$deadline" ] || bail "cluster not up within 30 s (node state: ${state:-?})"
	nap
done
# Let the probe's job finish completing, and wait for slurmctld's first main scheduling cycle
# (about 3 s after it starts): until then batch jobs (sbatch) stay pending; srun's do not.
sched_cycles() {
	SLURM_CONF=$conf timeout 5 sdiag 2>/dev/null |
		sed -n '/^Main schedule/,/Total cycles/s/^[[:space:]]*Total cycles:[[:space:]]*//p'
}
while [ "$(now_ms)" -lt "$deadline" ]; do
	[ "$(SLURM_CONF=$conf timeout 5 sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ] &&
		[ -z "$(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null)" ] &&
		{ ! command -v sdiag >/dev/null 2>&1 || [ "$(sched_cycles)" -gt 0 ] 2>/dev/null; } && break
	nap
done
t1=$(now_ms)
ms=$((t1 - t0))
say "cluster up in $((ms / 1000)).$(printf %03d $((ms % 1000))) s; running: $*"

# --- COMMAND ------------------------------------------------------------------------------
SLURM_CONF=$conf "$@"
rc=$?
ms=$(($(now_ms) - t1))
say "command exited with status $rc after $((ms / 1000)).$(printf %03d $((ms % 1000))) s"
exit $rc
