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
# too long for unix socket names. munged runs in the foreground (-F, and --force since it is
# root) on its own key and socket; slurm.conf's AuthInfo=socket=... points auth/munge and
# cred/munge at that socket, so /etc/munge, /run/munge and /etc/slurm are never touched.
# The node is named after the short host name (what slurmctld compares SlurmctldHost with)
# and addressed as 127.0.0.1, so the host name need not resolve. Ports are random in
# 20000-59999 and checked free in /proc/net/tcp*. slurmctld and slurmd run with -D; the
# script waits (at most 30 s) for sinfo to show the node idle, for `srun -N1 -n1 true` to
# work and for slurmctld's first scheduling pass (before it, sbatch jobs stay pending ~3 s).
#
# Teardown: a trap on EXIT/INT/TERM cancels the jobs left, stops slurmd, slurmctld and
# munged (TERM, then KILL), kills what still carries this cluster's SLURM_CONF in its
# environment (stray slurmstepd, orphaned tasks) and waits for it all. The daemons run in
# their own sessions (setsid), so that a Ctrl-C or a test harness's TERM to our process
# group reaches COMMAND but not them (srun hangs when the cluster dies under it), and a
# watchdog (this script, --watchdog, in its own session) does the teardown if the script is
# killed before it could (e.g. meson's SIGKILL to the group 0.5 s after its SIGTERM). A
# WORKDIR left by an earlier run (marked by WORKDIR/.slurm-local) has whatever that run left
# running killed, is emptied and reused; a non-empty WORKDIR without that mark is refused.
#
# Exit status: COMMAND's; 77 (skip) when not root or a program is missing; 1 when the
# cluster does not come up (the daemon logs' tails are printed); 2 on a usage error.

# shellcheck disable=SC2317 # (functions that only the traps call)
me=slurm-local
say() { echo "$me: $*" >&2; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*"; exit 1; }

PATH=$PATH:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

now_ms() { # milliseconds since the epoch (GNU date), or seconds * 1000
	t=$(date +%s%N 2>/dev/null)
	case $t in *N | '') echo $(($(date +%s) * 1000)) ;; *) echo $((t / 1000000)) ;; esac
}
secs() { echo "$(($1 / 1000)).$(printf %03d $(($1 % 1000)))"; }
nap() { sleep 0.2 2>/dev/null || sleep 1; }
# alive PID: the process exists and is not a zombie
alive() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	[ -e "/proc/$1" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]
}
# ours PID: PID is alive and its command line names WORKDIR (all that we start does)
ours() {
	alive "$1" || return 1
	c=" $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
	case $c in *"$workdir/"* | *" $workdir "*) return 0 ;; esac
	return 1
}
# env_pids: processes (not this one) whose environment holds this cluster's SLURM_CONF
env_pids() {
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		[ "$p" = $$ ] && continue
		grep -qzxF -- "SLURM_CONF=$conf" "$e" 2>/dev/null && echo "$p"
	done
}
# daemon_pid NAME: the pid of daemon NAME from WORKDIR/daemons.pid, if it still runs
daemon_pid() {
	while read -r n p; do
		[ "$n" = "$1" ] && ours "$p" && echo "$p"
	done 2>/dev/null <"$workdir/daemons.pid"
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
			say "pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)) did not stop on TERM: KILL"
			kill -KILL "$p" 2>/dev/null
		fi
	done
	for p in "$@"; do wait "$p" 2>/dev/null; done
	return 0
}
# teardown: stop all that this cluster runs; idempotent, and safe against reused pids
teardown() {
	td_ctld=$(daemon_pid slurmctld)
	if [ -n "$td_ctld" ]; then
		td_jobs=$(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null)
		if [ -n "$td_jobs" ]; then
			say "cancelling jobs left: $(echo "$td_jobs" | tr '\n' ' ')"
			# shellcheck disable=SC2086
			SLURM_CONF=$conf timeout 5 scancel $td_jobs 2>/dev/null
			i=0
			while [ "$i" -lt 25 ] && [ -n "$(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null)" ]; do
				nap
				i=$((i + 1))
			done
		fi
	fi
	# shellcheck disable=SC2046,SC2086
	stop_pids 10 $(daemon_pid slurmd) $td_ctld
	for _ in 1 2; do # stray slurmstepd, slurmscriptd, tasks: they carry SLURM_CONF
		# shellcheck disable=SC2046
		stop_pids 3 $(env_pids)
	done
	# shellcheck disable=SC2046
	stop_pids 5 $(daemon_pid munged)
	td_run=$(cat "$workdir/.slurm-local" 2>/dev/null)
	case $td_run in /tmp/slurm-local.*) rm -rf "$td_run" ;; esac
	return 0
}

# --- the watchdog: slurm-local.sh --watchdog PID WORKDIR ------------------------------------
if [ "${1:-}" = --watchdog ] && [ $# -eq 3 ]; then
	main=$2
	workdir=$3
	conf=$workdir/slurm.conf
	trap '' INT HUP # TERM, from the script once it has torn down, ends us
	while alive "$main"; do sleep 1; done
	say "watchdog: pid $main is gone without tearing down: tearing down"
	teardown
	say "watchdog: done"
	exit 0
fi

# --- checks -----------------------------------------------------------------------------------
if [ $# -lt 3 ] || [ "$2" != -- ]; then
	echo "usage: $0 WORKDIR -- COMMAND [ARGS...]" >&2
	exit 2
fi
workdir=$1
shift 2
[ "$(id -u)" = 0 ] || skip "needs root (munged and slurmd run as root here)"
for prog in munged munge slurmctld slurmd sinfo srun scontrol squeue scancel sdiag \
	setsid timeout od grep; do
	command -v "$prog" >/dev/null 2>&1 || skip "$prog not found"
done
[ -r /dev/urandom ] || skip "/dev/urandom not readable"
[ -r "$0" ] || skip "cannot read $0 (needed for the watchdog)"

# --- WORKDIR ----------------------------------------------------------------------------------
mkdir -p "$workdir" || fail "cannot create $workdir"
workdir=$(cd "$workdir" && pwd -P) || fail "cannot enter WORKDIR"
[ "$workdir" != / ] || fail "WORKDIR must not be /"
conf=$workdir/slurm.conf
if [ -e "$workdir/.slurm-local" ]; then
	# An earlier run's: stop what it may have left running, then start afresh.
	wd=$(daemon_pid watchdog)
	[ -n "$wd" ] && kill -KILL "-$wd" "$wd" 2>/dev/null
	# shellcheck disable=SC2046,SC2086
	left=$(printf '%s\n' $(daemon_pid munged) $(daemon_pid slurmctld) $(daemon_pid slurmd) \
		$(env_pids) | sort -un | tr '\n' ' ')
	if [ -n "${left% }" ]; then
		say "stopping what an earlier run in $workdir left running: ${left% }"
		teardown
	fi
	old_run=$(cat "$workdir/.slurm-local" 2>/dev/null)
	case $old_run in /tmp/slurm-local.*) rm -rf "$old_run" ;; esac
	find "$workdir" -mindepth 1 -delete 2>/dev/null || rm -rf "${workdir:?}"/* "${workdir:?}"/.[!.]*
elif [ -n "$(ls -A "$workdir")" ]; then
	fail "$workdir is not empty and was not made by $me: refusing to use it"
fi
chmod 0755 "$workdir" # munged wants its socket folder searchable, nothing group/world-writable
# unix socket names are limited to 108 bytes: slurmd's spool holds NODE_JOB.STEP sockets
run=$workdir
if [ ${#workdir} -gt 48 ]; then
	run=$(mktemp -d /tmp/slurm-local.XXXXXX) || fail "mktemp failed"
	chmod 0755 "$run"
fi
echo "$run" >"$workdir/.slurm-local"
mkdir -p "$workdir/state" "$run/spool" "$workdir/log" || fail "cannot make folders in $workdir"
: >"$workdir/daemons.pid"

# --- teardown on exit -------------------------------------------------------------------------
t0=$(now_ms)
setsid /bin/sh "$0" --watchdog $$ "$workdir" </dev/null >"$workdir/log/watchdog.log" 2>&1 &
wd_pid=$!
echo "watchdog $wd_pid" >>"$workdir/daemons.pid"
cleaned=''
cleanup() {
	[ -n "$cleaned" ] && return 0
	cleaned=1
	trap '' INT TERM
	teardown
	kill -TERM "-$wd_pid" "$wd_pid" 2>/dev/null # it leads a session (and its sleep)
	wait "$wd_pid" 2>/dev/null
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
	for f in "$workdir"/log/*.out; do # daemons run with -D/-F: all they log is in there
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
# start NAME COMMAND...: start a daemon in the background, in a session of its own
start() {
	st_name=$1
	shift
	setsid "$@" </dev/null >"$workdir/log/$st_name.out" 2>&1 &
	st_pid=$! # setsid only forks when it leads a process group: a background job does not
	echo "$st_name $st_pid" >>"$workdir/daemons.pid"
}

# --- munge ------------------------------------------------------------------------------------
sock=$run/munge.sock
key=$workdir/munge.key
umask 077
dd if=/dev/urandom of="$key" bs=1024 count=1 2>/dev/null || fail "cannot write $key"
umask 022
chmod 0400 "$key" # owned by root, who runs munged: munged checks owner and mode
start munged munged -F --force --socket="$sock" --key-file="$key" \
	--pid-file="$workdir/munged.pid" --seed-file="$workdir/munged.seed" \
	--log-file="$workdir/log/munged.log" # (with -F, munged logs to stderr: munged.out)
munged_pid=$st_pid
i=0
until munge -S "$sock" -n </dev/null >/dev/null 2>&1; do
	alive "$munged_pid" || bail "munged exited"
	[ $i -lt 50 ] || bail "munged did not answer within 10 s"
	nap
	i=$((i + 1))
done

# --- slurm.conf -------------------------------------------------------------------------------
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
# slurmd loads a cgroup plugin whatever ProctrackType and TaskPlugin say, and the default
# (autodetect) stops slurmd when nothing is mounted on /sys/fs/cgroup (a chroot, such as a
# fresh Debian root file system). There, cgroup/v1 without automount starts and is never
# used (proctrack/linuxproc, task/none); where cgroups are mounted, autodetect stays.
if ! grep -q ' /sys/fs/cgroup' /proc/self/mounts 2>/dev/null; then
	say "no cgroup file system on /sys/fs/cgroup: CgroupPlugin=cgroup/v1 (unused)"
	printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' >"$workdir/cgroup.conf"
fi
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
# sbatch --wait polls every 2 s while 2 >= MinJobAge/2, else after 2, 8, 32... s
MinJobAge=4
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=10
NodeName=$node NodeHostname=$node NodeAddr=127.0.0.1 CPUs=$ncpu RealMemory=256 State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
say "cluster in $workdir: node $node ($ncpu CPUs, 127.0.0.1), slurmctld port $ctld_port, slurmd port $slurmd_port"

# --- slurmctld, slurmd ------------------------------------------------------------------------
# SLURM_CONF goes into the daemons' environment (and so into slurmstepd's and slurmscriptd's,
# which teardown finds by it), not into this script's.
start slurmctld env SLURM_CONF="$conf" slurmctld -D -c -f "$conf"
ctld_pid=$st_pid
i=0
until SLURM_CONF=$conf timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; do
	alive "$ctld_pid" || bail "slurmctld exited"
	[ $i -lt 100 ] || bail "slurmctld did not answer within 20 s"
	nap
	i=$((i + 1))
done
start slurmd env SLURM_CONF="$conf" slurmd -D -f "$conf" -N "$node"
slurmd_pid=$st_pid

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
# Let the probe's job finish completing, and wait for slurmctld's first main scheduling pass:
# sbatch jobs only start from the background loop, batch_sched_delay (3 s until that first
# pass reads SchedulerParameters) after the last pass or the start; srun's start at once.
sched_passes() {
	SLURM_CONF=$conf timeout 5 sdiag 2>/dev/null |
		sed -n '/^Main schedule/,/Total cycles/s/^[[:space:]]*Total cycles:[[:space:]]*//p'
}
while :; do
	[ "$(SLURM_CONF=$conf timeout 5 sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ] &&
		[ -z "$(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null)" ] &&
		[ "$(sched_passes)" -gt 0 ] 2>/dev/null && break
	[ "$(now_ms)" -lt "$deadline" ] || bail "slurmctld did not settle within 30 s"
	nap
done
t1=$(now_ms)
say "cluster up in $(secs $((t1 - t0))) s; running: $*"

# --- COMMAND ----------------------------------------------------------------------------------
SLURM_CONF=$conf "$@"
rc=$?
say "command exited with status $rc after $(secs $(($(now_ms) - t1))) s"
exit $rc
