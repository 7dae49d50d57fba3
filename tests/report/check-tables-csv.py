#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that the CSV tables (tables/*.csv) of nodebw report folders are machine-friendly.

    check-tables-csv.py REPORT_DIR_OR_CSV_FILE...

Read with Python's csv module, every file must have (doc/report.md, "The CSV tables"):
  * a header whose cells match ^[a-z][a-z0-9_]*$ and are unique;
  * rows exactly as wide as the header;
  * one value per cell: no cell is a number with a unit, a percent sign or a parenthesised
    note after it ("12.3%", "8 B", "1.05 MB", "1 (single)", "5 GB/s");
  * numeric columns that hold numbers only: a column with a number in it, or named with a
    unit suffix (_gbps, _pct, _us, _s, _bytes, ...), has only numbers or empty cells (no
    "-", "+12", "n/a"); a column with numbers beside only such placeholders is numeric.
Prints one line per problem; exit status 0 when there is none, 1 otherwise, 2 on bad use.
"""
import csv
import glob
import os
import re
import sys

NAME = re.compile(r"^[a-z][a-z0-9_]*$")
NUMBER = re.compile(r"^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
UNITS = r"(%|B|kB|MB|GB|TB|KiB|MiB|GiB|bytes|B/s|GB/s|MB/s|us|ms|ns|s|x)"
WITH_UNIT = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*(" + UNITS + r"(\s|$|\()|\()")
MARKERS = {"-", "--", "n/a", "na", "x", "unknown", "?", "nan", "inf", "-inf", "none",
           "no link", "not measured", "\u2014"}
UNIT_SUFFIX = re.compile(r"_(gbps|pct|us|ms|ns|s|bytes|b|x|ratio)$")


def check_file(path):
    name = os.path.basename(path)
    problems = []
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        return [f"{name}: empty file (no header)"]
    header, body = rows[0], rows[1:]
    for h in header:
        if not NAME.match(h):
            problems.append(f"{name}: header cell {h!r} is not ^[a-z][a-z0-9_]*$")
    dups = sorted({h for h in header if header.count(h) > 1})
    if dups:
        problems.append(f"{name}: repeated header cells {dups}")
    for i, row in enumerate(body, 2):
        if len(row) != len(header):
            problems.append(f"{name}:{i}: {len(row)} cells, the header has {len(header)}")
    for c, h in enumerate(header):
        cells = [row[c] for row in body if c < len(row)]
        for i, v in enumerate(cells):
            if WITH_UNIT.match(v.strip()):
                problems.append(f"{name}: column {h}: {v!r} carries a unit, a percent sign "
                                "or a note")
                break
        # Numeric: named with a unit, or numbers beside placeholders only ("3" beside
        # "3->6" is a text column of device ids and pairs).
        numeric = bool(UNIT_SUFFIX.search(h)) or (
            any(NUMBER.match(v) for v in cells) and
            all(v == "" or NUMBER.match(v) or v.strip().lower() in MARKERS for v in cells))
        if not numeric:
            continue
        bad = [v for v in cells if v != "" and not NUMBER.match(v)]
        if bad:
            problems.append(f"{name}: numeric column {h} has non-numbers {bad[:3]}")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    files = []
    for a in argv[1:]:
        if os.path.isdir(a):
            found = sorted(glob.glob(os.path.join(a, "tables", "*.csv")) or
                           glob.glob(os.path.join(a, "*.csv")))
            if not found:
                print(f"{a}: no tables/*.csv", file=sys.stderr)
                return 2
            files += found
        else:
            files.append(a)
    problems = []
    for f in files:
        problems += check_file(f)
    for p in problems:
        print(p)
    print(f"# {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
