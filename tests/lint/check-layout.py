#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Layout rules that keep the code easy to find one's way in (doc/architecture.md), TAP:

1. no function outside tests/ is longer than MAX_LINES lines (from its signature to its
   closing brace; the project's style opens and closes a function body in column 0);
2. every top-level folder that holds C sources is a row of doc/architecture.md's folder
   table, and every folder the table names exists;
3. main() is defined only in tools/, bench/, tests/ and meson/ (configure-time checks);
4. only the results module (common/results*.c) reads the results document's own keys: a
   read (json_object_get, jstr, jnum, jint) of one of RESULTS_KEYS anywhere else fails,
   except the writers in WRITERS updating a record they own; the others take the typed
   views of include/nodebw/results_view.h;
5. README.md says what nodebw is, the two set-up commands, what you get and where to read
   more within its first 60 lines, and no paragraph of it is longer than 8 lines.

Usage: check-layout.py SOURCE_ROOT [MAX_LINES]"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lintlib  # noqa: E402

root = sys.argv[1]
max_lines = int(sys.argv[2]) if len(sys.argv) > 2 else 120
tap = lintlib.Tap()


def sources():
    return lintlib.c_sources(root)


def functions(path):
    """(name, first line, length) of every function body that opens in column 0."""
    lines = open(path, errors="replace").read().split("\n")
    found = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("{") and i > 0:
            j = i - 1
            while j > 0 and lines[j - 1].strip() and \
                    not lines[j - 1].rstrip().endswith((";", "}", "*/")) and \
                    not lines[j - 1].startswith(("#", "//")):
                j -= 1
            m = re.search(r"(\w+)\s*\(", " ".join(lines[j:i]))
            k = i + 1
            while k < len(lines) and not lines[k].startswith("}"):
                k += 1
            found.append((m.group(1) if m else "?", j + 1, k - j + 1))
            i = k
        i += 1
    return found


files = sources()
long_ones = []
for f in files:
    if f.startswith("tests/"):
        continue
    for name, first, length in functions(os.path.join(root, f)):
        if length > max_lines:
            long_ones.append(f"{f}:{first}: {name} has {length} lines")
tap(not long_ones, f"no function outside tests/ is longer than {max_lines} lines "
    f"({len(long_ones)} are)", long_ones)

# The folder table of doc/architecture.md: rows "| `folder/` | ..." (or several folders,
# "| `tests/`, `bench/` | ...").
doc = open(os.path.join(root, "doc", "architecture.md")).read()
named = set()
for cell in re.findall(r"^\| ((?:`[A-Za-z0-9_./-]+/`(?:, )?)+) \|", doc, re.M):
    named |= {c.rstrip("/") for c in re.findall(r"`([A-Za-z0-9_./-]+/)`", cell)}
with_c = {f.split("/")[0] for f in files if "/" in f}
missing = sorted(d for d in with_c if d not in named)
tap(not missing, "every top-level folder with C sources is in doc/architecture.md's table",
    [f"{d}/ is not in the table" for d in missing])
gone = sorted(d for d in named if "/" not in d and not os.path.isdir(os.path.join(root, d)))
tap(not gone, "every folder in doc/architecture.md's table exists",
    [f"{d}/ is named but does not exist" for d in gone])

mains = []
for f in files:
    if f.split("/")[0] in ("tools", "bench", "tests", "meson"):
        continue
    text = open(os.path.join(root, f), errors="replace").read()
    if re.search(r"^int\s+main\s*\(", text, re.M):
        mains.append(f)
tap(not mains, "main() only in tools/, bench/, tests/ and meson/", mains)
# Keys no other document uses, so that a read of one is a read of the results document.
RESULTS_KEYS = ["verification", "streams", "samples_s", "solver_runs", "measurements",
                "hht_sweep", "median_ci", "time_capped", "first_rep_s", "minor_faults_per_rep",
                "cubic_n", "phases_s", "partner_samples_s", "launch_probe", "speed_reference",
                "size_set", "bytes_counting", "host_mem_note", "runtime_id", "pci_bus_id"]
# (file, key): a writer appending to its own record.
WRITERS = {("tools/run.c", "speed_reference")}
read = re.compile(r"(?:json_object_get|jstr|jnum|jint)\([^;]*?\"(" + "|".join(RESULTS_KEYS) +
                  r")\"")
stray = []
for f in files:
    if f.startswith(("tests/", "common/results")) or not f.endswith(".c"):
        continue
    for i, line in enumerate(open(os.path.join(root, f), errors="replace"), 1):
        for k in read.findall(line):
            if (f, k) not in WRITERS:
                stray.append(f"{f}:{i}: reads \"{k}\" (use include/nodebw/results_view.h)")
tap(not stray, "the results document's keys are read only by the results module", stray)
readme = open(os.path.join(root, "README.md")).read().split("\n")
head = "\n".join(readme[:60])
want = ["scripts/quickstart.sh run", "scripts/quickstart.sh test", "## What you get",
        "## Where to read more"]
tap(all(w in head for w in want), "README.md: the two commands, what you get and where to "
    "read more in its first 60 lines", [f"not in the first 60 lines: {w}" for w in want
                                         if w not in head])
paras, cur, start = [], 0, 0
for i, line in enumerate(readme + [""]):
    prose = line.strip() and not line.startswith(("    ", "|", "#", "<!--"))
    if prose:
        if cur == 0:
            start = i + 1
        cur += 1
    else:
        if cur > 8:
            paras.append(f"README.md:{start}: a paragraph of {cur} lines")
        cur = 0
tap(not paras, "README.md: no paragraph longer than 8 lines", paras)
print(f"1..{tap.n}")
sys.exit(1 if tap.failed else 0)
