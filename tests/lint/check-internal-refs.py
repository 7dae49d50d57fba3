#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The product speaks of itself only (TAP): no reference to a tracker's issue number or to the
work that made it in README.md, doc/, every command's --help text, and a report written from
a recorded results file (every page). A citation of another project's issue (a line that
names its repository or links it) is a source, not an internal reference.

Usage: check-internal-refs.py SOURCE_ROOT NODEBW"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lintlib import Tap  # noqa: E402

# "issue 12", "(issue #12)", "ticket 7", "#12" at a word's start after "see"/"in";
# and the words of the process that wrote the code.
PATTERNS = [
    (re.compile(r"\b(issue|ticket|bug)\s*#?\d+", re.I), "a tracker's number"),
    (re.compile(r"\b(see|in|per|from)\s+#\d+\b", re.I), "a tracker's number"),
    (re.compile(r"\b(closing note|this session|work session|the brief|developers' brief|"
                r"helper agent|sub-?agent)\b", re.I), "a word of the work process"),
]
# A line citing another project's tracker: its repository named or linked.
CITATION = re.compile(r"github\.com/|[\w.-]+/[\w.-]+ issue|llvm-project issue|"
                      r"nvbandwidth issue|nccl(-tests)? issue", re.I)


def findings(name, text):
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for pat, what in PATTERNS:
            m = pat.search(line)
            if m and not CITATION.search(line):
                out.append(f"{name}:{n}: {what}: {m.group(0)!r}")
    return out


def main():
    root, nodebw = sys.argv[1], sys.argv[2]
    tap = Tap()
    docs = [os.path.join(root, "README.md")]
    for d, _, files in os.walk(os.path.join(root, "doc")):
        docs += [os.path.join(d, f) for f in files if f.endswith(".md")]
    bad = []
    for p in sorted(docs):
        with open(p, encoding="utf-8") as f:
            bad += findings(os.path.relpath(p, root), f.read())
    tap(not bad, f"README.md and doc/ ({len(docs)} files) have no internal reference", bad[:10])

    top = subprocess.run([nodebw, "--help"], capture_output=True, text=True).stdout
    cmds = re.findall(r"^  ([a-z]+)\s{2,}", top.split("Commands:", 1)[-1], re.M)
    bad = findings("nodebw --help", top)
    for c in cmds:
        r = subprocess.run([nodebw, c, "--help"], capture_output=True, text=True)
        bad += findings(f"nodebw {c} --help", r.stdout + r.stderr)
    tap(len(cmds) >= 10 and not bad,
        f"the --help of nodebw and its {len(cmds)} commands have no internal reference",
        bad[:10] or [f"commands found: {cmds}"])

    fixture = os.path.join(root, "tests", "fixtures", "results-run-2cpu-vm.json")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report")
        env = dict(os.environ, NODEBW_GNUPLOT="/nonexistent")  # the text, not the images
        r = subprocess.run([nodebw, "report", "--output", out, fixture], capture_output=True,
                           text=True, env=env)
        pages = sorted(f for f in os.listdir(out) if f.endswith((".md", ".html"))) \
            if r.returncode == 0 else []
        bad = []
        for p in pages:
            with open(os.path.join(out, p), encoding="utf-8") as f:
                bad += findings(p, f.read())
        tap(r.returncode == 0 and "report.md" in pages and len(pages) >= 4 and not bad,
            f"the report's {len(pages)} pages have no internal reference",
            bad[:10] or [r.stderr.strip()[-300:]])

    # The check itself: it finds what it must.
    probe = findings("probe", "The rule of issue 12.\nsee #4\nas the closing note says\n"
                     "NVIDIA/nccl issue 1264 (measured)")
    tap(len(probe) == 3, "the check finds an issue number and a process word, and lets a "
        "citation of another project's issue pass", probe)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
