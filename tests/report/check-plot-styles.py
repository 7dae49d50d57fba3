#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the gnuplot scripts (plots/*.gp) of nodebw report folders for readable styles.

    check-plot-styles.py REPORT_DIR_OR_GP_FILE...

Every plot element (a series `datafile index N ... with STYLE` or a reference line
`VALUE with lines ...`) must carry an explicit colour, and a dash type when it draws lines
and a point type when it draws points. Within one plot:
  * no two series look the same (colour + dash type + point type, as far as drawn);
  * no two titled reference lines look the same (colour + dash type), nor like a series;
  * a plot with reference lines sets its y range and every reference line lies strictly
    inside it (not on the border, where it would be invisible);
  * the key (when there is one) is outside the plot area (outside, below, above, or a
    margin), and no `set label` sits inside the graph area (notes never over data).
Heat maps (`with image` / `with labels`) have no key and no series styles to compare.
Prints one line per problem; exit status 0 when there is none, 1 otherwise, 2 on bad use.
"""
import glob
import os
import re
import sys

LINE_STYLES = {"lines", "l", "linespoints", "lp", "steps", "impulses", "fsteps", "histeps"}
MARK_STYLES = {"linespoints", "lp", "points", "p"}
NO_LOOK = {"image", "rgbimage", "labels", "pm3d"}
KEY_OUTSIDE = re.compile(r"\b(outside|below|above|under|over|bmargin|tmargin|lmargin|rmargin)\b")


def logical_lines(text):
    """The script's lines with backslash continuations joined."""
    out, cur = [], ""
    for raw in text.splitlines():
        if raw.endswith("\\"):
            cur += raw[:-1] + " "
            continue
        out.append(cur + raw)
        cur = ""
    if cur:
        out.append(cur)
    return out


def split_elements(plot_args):
    """Split the arguments of `plot` at top-level commas (outside quotes and brackets)."""
    parts, cur, quote, depth = [], "", None, 0
    for ch in plot_args:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def strip_strings(s):
    """\\p s with quoted strings (titles) blanked, so that they never match an option."""
    return re.sub(r"'(?:[^']|'')*'|\"(?:[^\"\\\\]|\\\\.)*\"", "''", s)


def option(spec, names, pattern):
    for n in names:
        m = re.search(r"(?:^|\s)" + n + r"\s+(" + pattern + r")", spec)
        if m:
            return m.group(1)
    return None


def element_look(elem):
    """(kind, source, look, titled, value) of one plot element, or None for a heat map."""
    spec = strip_strings(elem)
    m = re.search(r"\bwith\s+([a-z]+)", spec)
    kind = m.group(1) if m else "lines"
    if kind in NO_LOOK:
        return None
    colour = option(spec, ["linecolor", "lc"], r"rgb\s+''|rgb\s+\S+|palette\s+\S+|-?\d+")
    if colour and colour.startswith("rgb"):
        q = re.search(r"(?:linecolor|lc)\s+rgb\s+('[^']*'|\"[^\"]*\")", elem)
        colour = q.group(1).strip("'\"").lower() if q else colour
    dash = option(spec, ["dashtype", "dt"], r"\([^)]*\)|\d+|''") if kind in LINE_STYLES else "-"
    point = option(spec, ["pointtype", "pt"], r"\d+") if kind in MARK_STYLES else "-"
    titled = not re.search(r"\bnotitle\b", spec) and not re.search(r"\btitle\s+''\s*$", elem)
    src = "series" if re.match(r"\s*(datafile|'[^']*'|\"[^\"]*\")", elem) else "ref"
    value = None
    if src == "ref":
        v = re.match(r"\s*([-+]?[0-9.]+(?:[eE][-+]?\d+)?)\s", elem)
        value = float(v.group(1)) if v else None
    return kind, src, (kind in LINE_STYLES, kind in MARK_STYLES, colour, dash, point), titled, value


def check_script(path):
    text = open(path, encoding="utf-8").read()
    lines = logical_lines(text)
    problems = []
    name = os.path.basename(path)
    plot_args = None
    key_lines, labels, yrange, logy = [], [], None, False
    for ln in lines:
        s = ln.strip()
        if s.startswith("#"):
            continue
        if re.match(r"plot\s", s) or s == "plot":
            plot_args = s[4:]
        elif re.match(r"(set\s+key|unset\s+key)\b", s):
            key_lines.append(s)
        elif re.match(r"set\s+label\b", s):
            labels.append(s)
        elif re.match(r"set\s+logscale\s+\S*y", s):
            logy = True
        else:
            m = re.match(r"set\s+yrange\s*\[\s*([^:\]]*)\s*:\s*([^\]]*)\]", s)
            if m:
                yrange = m.groups()
    if plot_args is None:
        return [f"{name}: no plot command"]
    elems = [e for e in (element_look(x) for x in split_elements(plot_args)) if e]
    series = [e for e in elems if e[1] == "series"]
    refs = [e for e in elems if e[1] == "ref"]
    for kind, src, look, _, _ in elems:
        lines_, marks, colour, dash, point = look
        if not colour:
            problems.append(f"{name}: a {src} 'with {kind}' has no explicit colour")
        if lines_ and not dash:
            problems.append(f"{name}: a {src} 'with {kind}' has no explicit dash type")
        if marks and not point:
            problems.append(f"{name}: a {src} 'with {kind}' has no explicit point type")
    seen = {}
    for i, e in enumerate(series):
        if e[2] in seen:
            problems.append(f"{name}: series {seen[e[2]]} and {i} have the same style {e[2][2:]}")
        else:
            seen[e[2]] = i
    ref_seen = {}
    series_looks = {(e[2][2], e[2][3]) for e in series}
    for i, e in enumerate(refs):
        if not e[3]:
            continue  # a mirror copy (notitle) of the titled line before it
        look = (e[2][2], e[2][3])
        if look in ref_seen:
            problems.append(f"{name}: reference lines {ref_seen[look]} and {i} share the style "
                            f"{look}")
        else:
            ref_seen[look] = i
        if look in series_looks:
            problems.append(f"{name}: reference line {i} looks like a series {look}")
    if refs:
        lo = hi = None
        try:
            lo, hi = float(yrange[0]), float(yrange[1])
        except (TypeError, ValueError):
            problems.append(f"{name}: reference lines but no numeric y range: they may lie on "
                            "the border")
        if lo is not None:
            lo, hi = min(lo, hi), max(lo, hi)
            for e in refs:
                v = e[4]
                if v is None:
                    continue
                if logy:
                    inside = v > 0 and lo > 0 and v > lo * 1.01 and v < hi / 1.01
                else:
                    room = 0.01 * (hi - lo)
                    inside = lo + room < v < hi - room
                if not inside:
                    problems.append(f"{name}: reference line at {v:g} is not inside the y "
                                    f"range [{lo:g}:{hi:g}]")
    titled = any(e[3] for e in elems)
    key_off = any(k.startswith("unset") or re.search(r"\b(off|nokey)\b", k) for k in key_lines)
    if titled and not key_off:
        if not key_lines:
            problems.append(f"{name}: no 'set key': gnuplot's default key is inside the plot")
        for k in key_lines:
            if re.search(r"\binside\b", k) or not KEY_OUTSIDE.search(strip_strings(k)):
                problems.append(f"{name}: the key is inside the plot area: {k}")
    for lab in labels:
        at = re.search(r"\bat\s+(.*)", strip_strings(lab))
        if not at:
            problems.append(f"{name}: a label without a position: {lab}")
            continue
        pos = at.group(1)
        g = re.match(r"graph\s+([-0-9.eE+]+)\s*,\s*graph\s+([-0-9.eE+]+)", pos)
        if g and 0 <= float(g.group(1)) <= 1 and 0 <= float(g.group(2)) <= 1 \
                and "offset" not in pos:
            problems.append(f"{name}: a label inside the graph area: {lab}")
        elif re.match(r"(first|second)\b", pos) or re.match(r"[-0-9.]", pos):
            problems.append(f"{name}: a label at data coordinates (over the data): {lab}")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    scripts = []
    for a in argv[1:]:
        if os.path.isdir(a):
            found = sorted(glob.glob(os.path.join(a, "plots", "*.gp")) or
                           glob.glob(os.path.join(a, "*.gp")))
            if not found:
                print(f"{a}: no plots/*.gp", file=sys.stderr)
                return 2
            scripts += found
        else:
            scripts.append(a)
    problems = []
    for s in scripts:
        problems += check_script(s)
    for p in problems:
        print(p)
    print(f"# {len(scripts)} scripts, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
