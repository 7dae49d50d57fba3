#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One truth, checked in the sources (doc/architecture.md, "One run, one truth"), TAP:

1. every derived product of a results document is computed in one place: the functions
   that derive one (PRODUCTS) are called only by analysis/products.c (nbw_products_derive)
   outside their own file and tests/, except the uses listed in ELSEWHERE with the reason;
2. the files outside the results library read no more results keys than BASELINE records
   for them: a key read is a JSON read (json_object_get, jstr, jnum, jint and the files'
   own getters: any function taking (json_t *, const char *key)) of a string literal that
   is a key of doc/results.schema.json; the library is common/results*.c (the one reader
   and writer) and analysis/ (which derives the products and holds their typed views);
   the one reader of another document whose keys share names (OTHER_READERS) is not
   counted. The count of every file and the total are printed; a file above its
   baseline fails, a file below it asks for the baseline to be lowered, so the count only
   goes down, towards 0.

Usage: check-results-keys.py SOURCE_ROOT [--write-baseline]"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lintlib  # noqa: E402

root = sys.argv[1]
write = "--write-baseline" in sys.argv
BASELINE = os.path.join(root, "tests", "lint", "results-keys.baseline")
tap = lintlib.Tap()


def sources():
    return sorted(f for f in lintlib.c_sources(root)
                  if not f.startswith(("tests/", "bench/", "meson/")))


files = sources()
text = {f: open(os.path.join(root, f), errors="replace").read() for f in files}

# 1. The products, each derived in one place.
PRODUCTS = ["nbw_analysis_comparison_bytes", "nbw_analysis_matrices", "nbw_analysis_matrices_at",
            "nbw_analysis_device_tables", "nbw_analysis_device_tables_at",
            "nbw_analysis_concurrent", "nbw_analysis_concurrent_at", "nbw_analysis_outliers",
            "nbw_analysis_outliers_at", "nbw_analysis_latency", "nbw_gap_compute",
            "nbw_kernel_compare", "nbw_headlines", "nbw_calib_from_results"]
# (function, file): why that file may call it.
ELSEWHERE = {
    ("nbw_calib_from_results", "models/rinput.c"):
        "the calibration is derived once per loaded results (nbw_rinput_calibrate)",
    ("nbw_analysis_comparison_bytes", "fleet/compare_load.c"):
        "a fleet node is reduced to its paths without deriving its whole analysis",
    ("nbw_analysis_comparison_bytes", "analysis/verdicts.c"):
        "the verdicts depend on the site's criteria (nbw_verdicts, once per document and "
        "criteria) and judge at the comparison size",
}
# The analyses without _at derive the comparison size themselves, for callers with no
# products (the unit tests); the products call the _at ones.
for f in ("analysis/matrix.c", "analysis/concurrent.c", "analysis/outliers.c"):
    ELSEWHERE[("nbw_analysis_comparison_bytes", f)] = "its analysis without _at"
calls = re.compile(r"\b(" + "|".join(PRODUCTS) + r")\s*\(")
stray, places = [], {}
for f in files:
    for i, line in enumerate(text[f].split("\n"), 1):
        if line.lstrip().startswith(("*", "/*", "//")):
            continue
        for fn in calls.findall(line):
            defined = re.match(r"^[a-z].*\b" + fn + r"\s*\(", line) is not None
            if defined:
                continue
            places.setdefault(fn, []).append(f"{f}:{i}")
            own = f.startswith("analysis/") and re.search(
                r"^[a-z][^;]*\b" + fn + r"\s*\(", text[f], re.M) is not None
            if f == "analysis/products.c" or own or (fn, f) in ELSEWHERE:
                continue
            stray.append(f"{f}:{i}: calls {fn} (take it from include/nodebw/products.h)")
tap(not stray, "every derived product is computed in analysis/products.c (one place each)",
    stray + [f"{fn}: {', '.join(places.get(fn, ['not called']))}" for fn in PRODUCTS],
    always=True)

# 2. Results keys read outside the library.
schema = json.load(open(os.path.join(root, "doc", "results.schema.json")))
keys = set()


def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "properties" and isinstance(v, dict):
                keys.update(v.keys())
            walk(v)
    elif isinstance(o, list):
        for x in o:
            walk(x)


walk(schema)
# A getter: json_object_get, the shared jstr/jnum/jint, and any function of the file that
# takes (json_t *object, const char *key, ...) and reads it (a file's own str/num/s_of
# wrappers; a writer such as topo_put is not a read).
GETTERS = ["json_object_get", "jstr", "jnum", "jint"]
helper = re.compile(r"^[a-z][^;(]*?\b(\w+)\s*\(\s*(?:const\s+)?json_t\s*\*\s*\w+\s*,\s*"
                    r"const\s+char\s*\*\s*\w+", re.M)
# ... and any macro of the file that reads an object's key: #define S(o, k) ...json_object_get
macro = re.compile(r"^#define\s+(\w+)\(\w+,\s*\w+\)[^\n]*json_object_get", re.M)


def readers(src):
    """The file's (json_t *, const char *key) functions whose body reads the key."""
    out = []
    for m in helper.finditer(src):
        end = src.find("\n}\n", m.end())
        if "json_object_get" in src[m.end():end if end > 0 else len(src)]:
            out.append(m.group(1))
    return out


def reads(src):
    names = GETTERS + readers(src) + macro.findall(src)
    pat = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\s*\(\s*"
                     r"(?:[^,()]|\([^()]*\))*,\s*\"([A-Za-z0-9_]+)\"")
    return pat.findall(src)
library = ("common/results", "analysis/")
# The one reader of another document, whose keys share names with the results document's:
# not a read of the results document.
OTHER_READERS = {
    "report/summary_view.c": "the report's summary (summary.json), built by report/summary.c",
    "models/calib_read.c": "calibration.json, written by models/calib_write.c",
    "common/app.c": "the application description (nodebw-app, doc/app.schema.json)",
    "fleet/compare_view.c": "the fleet's documents (a node's record, the comparison summary, "
                            "fleet-node.json), built by fleet/compare_load.c and compare.c",
    "topology/links.c": "links.json, the vendor sources' answers (a fixture or "
                        "`nodebw topo --export`)",
}
count = {}
for f in files:
    if f.startswith(library) or f in OTHER_READERS:
        continue
    k = sum(1 for key in reads(text[f]) if key in keys)
    if k:
        count[f] = k
total = sum(count.values())
if write:
    with open(BASELINE, "w") as out:
        out.write("# Results keys read outside the results library, per file (tests/lint/"
                  "check-results-keys.py);\n# the count only goes down: lower it when a file "
                  "reads fewer.\n")
        for f in sorted(count):
            out.write(f"{count[f]} {f}\n")
base = {}
for line in open(BASELINE):
    if line.strip() and not line.startswith("#"):
        c, f = line.split()
        base[f] = int(c)
over = [f"{f}: {count[f]} key reads, the baseline allows {base.get(f, 0)}"
        for f in sorted(count) if count[f] > base.get(f, 0)]
under = [f"{f}: {count.get(f, 0)} key reads, below its baseline {base[f]}: lower it"
         for f in sorted(base) if count.get(f, 0) < base[f]]
tap(not over and not under,
    f"results keys read outside the results library: {total} in {len(count)} files "
    f"(baseline {sum(base.values())}; target 0)",
    over + under + [f"{count[f]:4d} {f}" for f in sorted(count, key=lambda x: -count[x])] +
    [f"not counted: {f}, the one reader of {why}" for f, why in sorted(OTHER_READERS.items())],
    always=True)
print(f"1..{tap.n}")
sys.exit(1 if tap.failed else 0)
