#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Kill `nodebw probe` and `nodebw run` at random moments (SIGKILL, SIGTERM, SIGINT; twenty
times each by default) and check every results folder left behind: it is complete or says
it is not (results.json "state"), results.json and results.csv hold the same measurements,
no temporary file, child folder or lock remains once the next nodebw has run beside it,
and no nodebw process of the trial outlives it. TAP output; the seed is printed.

Environment: NODEBW (the program), KILL_TRIALS (per command and signal, default 20),
KILL_SEED, KILL_SIGNALS (the signals per command, e.g. "probe=KILL,TERM run=INT"; default
all three for both)."""
import csv
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

NODEBW = os.environ["NODEBW"]
TRIALS = int(os.environ.get("KILL_TRIALS", "20"))
SEED = int(os.environ.get("KILL_SEED", str(int(time.time()))))
STATES = {"running", "complete", "interrupted", "failed", "killed"}
ALL_SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)


def signals_of(name):
    """The signals KILL_SIGNALS names for command \p name (all three when not named)."""
    for part in os.environ.get("KILL_SIGNALS", "").split():
        cmd, _, sigs = part.partition("=")
        if cmd == name:
            return tuple(getattr(signal, "SIG" + x) for x in sigs.split(",") if x)
    return ALL_SIGNALS

# Small but whole: OpenMP and host probes, two streams, the hidden-helper sweep (a child
# process); the run adds solver children, the calibration and the report (gnuplot).
COMMANDS = {
    "probe": ["probe", "--api", "host,omp", "--devices", "0,1", "--mode", "sync,async",
              "--host-mem", "pinned", "--sizes", "8,64K", "--threads", "1,2", "--max-time",
              "0.02", "--hht-sweep", "--quiet"],
    "run": ["run", "--api", "omp", "--devices", "0,1", "--mode", "sync,async", "--host-mem",
            "pinned", "--sizes", "8,64K", "--threads", "1,2", "--max-time", "0.02",
            "--solver-n", "12,16", "--solver-steps", "3", "--solver-rounds", "1", "--quiet"],
}
# The next nodebw beside a killed folder: a tiny probe into a sibling folder.
NEXT = ["probe", "--api", "host", "--probe", "htod", "--mode", "sync", "--threads", "1",
        "--sizes", "8", "--quiet"]

out = []
failures = 0


def tap(ok, desc, detail=None):
    global failures
    out.append(("ok" if ok else "not ok") + f" {len(out) + 1} - {desc}")
    print(out[-1], flush=True)
    if not ok:
        failures += 1
        for line in (detail or "").splitlines():
            print("# " + line, flush=True)


def strays(folder):
    """Temporary files, children's folders, unfinished images, the lock."""
    found = []
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            if (name.startswith((".hht-", ".solver-", ".planes-")) or ".tmp" in name
                    or name.endswith(".part") or name == ".nodebw.lock"):
                found.append(os.path.relpath(os.path.join(root, name), folder))
    return found


def check_folder(folder, rc, sig):
    """Problems of a folder left by a finished (or killed) command; [] when fine."""
    problems = []
    rj = os.path.join(folder, "results.json")
    rcsv = os.path.join(folder, "results.csv")
    if not os.path.exists(rj):
        # Killed before the first checkpoint: nothing claims to be results.
        if os.path.exists(rcsv):
            problems.append("results.csv without results.json")
        if rc == 0:
            problems.append("exit status 0 but no results.json")
        return problems
    try:
        doc = json.load(open(rj))
    except ValueError as e:
        return [f"results.json is not JSON: {e}"]
    state = doc.get("state")
    if state not in STATES:
        problems.append(f"state {state!r}")
    if rc == 0 and state != "complete":
        problems.append(f"exit status 0 with state {state}")
    if state == "complete" and doc.get("interrupted"):
        problems.append("complete and interrupted")
    if state in ("interrupted", "killed") and not doc.get("interrupted"):
        problems.append(f"{state} but interrupted false")
    if state == "interrupted" and sig is not None and \
            signal.Signals(sig).name not in doc.get("state_detail", "") and rc != 0:
        problems.append(f"interrupted by {signal.Signals(sig).name} but the detail says "
                        f"{doc.get('state_detail')!r}")
    nmeas = len(doc.get("measurements", []))
    if not os.path.exists(rcsv):
        problems.append("results.json without results.csv")
    else:
        with open(rcsv, newline="") as f:
            rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
        if len(rows) - 1 != nmeas:
            problems.append(f"results.csv has {len(rows) - 1} rows, results.json "
                            f"{nmeas} measurements")
    return problems


def live(folder):
    r = subprocess.run(["pgrep", "-f", folder], capture_output=True, text=True)
    return [p for p in r.stdout.split() if int(p) != os.getpid()]


def trial(base, name, args, sig, when, k):
    folder = os.path.join(base, f"{name}-{signal.Signals(sig).name}-{k}")
    p = subprocess.Popen([NODEBW] + args + ["--output", folder], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(when)
    if p.poll() is None:
        p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        return [f"did not end within 120 s of {signal.Signals(sig).name}"], folder, -1, when
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    problems = []
    # Children die with their group; give them up to 5 s to be gone, polling.
    deadline = time.monotonic() + 5
    left = live(folder)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = live(folder)
    if left:
        problems.append(f"processes still running: {left}")
        for pid in left:
            os.kill(int(pid), signal.SIGKILL)
    if rc not in (0, 3, 128 + sig):
        problems.append(f"exit status {rc}: {err.strip()[-300:]}")
    # The next nodebw beside it recovers what a SIGKILL left.
    nxt = os.path.join(base, f"next-{k}-{signal.Signals(sig).name}-{name}")
    r = subprocess.run([NODEBW] + NEXT + ["--output", nxt], capture_output=True, text=True)
    if r.returncode != 0:
        problems.append(f"the next run failed ({r.returncode}): {r.stderr.strip()[-300:]}")
    shutil.rmtree(nxt, ignore_errors=True)
    if os.path.isdir(folder):
        s = strays(folder)
        if s:
            problems.append(f"left after the next run: {s[:6]}")
        problems += check_folder(folder, rc, sig)
    return problems, folder, rc, when


def main():
    print(f"# seed {SEED}, {TRIALS} trials per command and signal", flush=True)
    rnd = random.Random(SEED)
    base = tempfile.mkdtemp(prefix="nodebw-kill-")
    try:
        for name, args in COMMANDS.items():
            # One whole run first: how long the command takes, and what complete looks like.
            folder = os.path.join(base, f"{name}-whole")
            t0 = time.monotonic()
            r = subprocess.run([NODEBW] + args + ["--output", folder], capture_output=True,
                               text=True)
            took = time.monotonic() - t0
            probs = check_folder(folder, r.returncode, None) + [f"stray {s}" for s in
                                                                 strays(folder)]
            if r.returncode != 0:
                probs.append(f"exit status {r.returncode}: {r.stderr.strip()[-400:]}")
            tap(not probs, f"{name}: a whole run ({took:.1f} s) is complete and clean",
                "\n".join(probs))
            shutil.rmtree(folder, ignore_errors=True)
            for sig in signals_of(name):
                for k in range(TRIALS):
                    when = rnd.uniform(0.0, took * 1.05)
                    probs, folder, rc, when = trial(base, name, args, sig, when, k)
                    tap(not probs, f"{name}: {signal.Signals(sig).name} after {when:.2f} s "
                        f"(exit {rc})", "\n".join(probs))
                    if not probs:
                        shutil.rmtree(folder, ignore_errors=True)
    finally:
        if failures == 0:
            shutil.rmtree(base, ignore_errors=True)
        else:
            print(f"# folders kept in {base}", flush=True)
    print(f"1..{len(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
