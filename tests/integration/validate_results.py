#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a nodebw results.json against doc/results.schema.json.

Usage: validate_results.py SCHEMA RESULTS.json [--require-matrix]

Always: JSON Schema (draft-07) validation, then a few cross-field checks that a schema
cannot express (probe name = api-direction, sample counts = repetitions, also of the alone
and device samples, halo_n against bytes, checked bytes of a passed verification, no device
listed twice, an OpenMP device's "native" names a listed device with the same PCI bus id,
the gap rows' arithmetic and measurability, each median_ci against the samples it comes
from, converged and stop against it, the last repetition checked).
With --require-matrix, also the content expected from a full OpenMP probe run on this
project's test machines: every htod/dtoh mode x host memory x concurrency and every p2p
sync/async/kernel x single/bidir was measured and verified, host-plugin devices are labelled
as host memory and never as GPUs, their P2P copies are reported as host-staged (a kernel
copy: the destination device reads the source), the skipped
P2P nowait series is listed with its reason, and the gap table is present. Measurements of
the other APIs (host, cuda, hip, ze) may be present too; of those only a failed
verification is an error here (a measurement error, e.g. out of device memory, is not).

Exit status: 0 valid, 1 the results file is invalid (or unreadable), 2 bad usage or an
unusable schema.
"""

import argparse
import itertools
import json
import math
import sys

try:
    import jsonschema
except ImportError:  # pragma: no cover - depends on the interpreter
    sys.stderr.write(
        "validate_results.py: the jsonschema module is missing "
        "(Debian: apt install python3-jsonschema; run with /usr/bin/python3)\n"
    )
    sys.exit(2)

MAX_SHOWN = 10


class Invalid(Exception):
    pass


def json_path(parts):
    """'$.measurements[3].mode' from a jsonschema path deque."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += "[%d]" % p
        elif p.isidentifier():
            out += "." + p
        else:
            out += "[%s]" % json.dumps(p)
    return out


def _reject_constant(name):
    raise ValueError("%s is not valid JSON" % name)


def _no_duplicates(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError("duplicate key %s" % json.dumps(k))
        obj[k] = v
    return obj


def load_json(path, strict):
    with open(path, encoding="utf-8") as f:
        if strict:
            return json.load(f, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
        return json.load(f)


def short(value, limit=80):
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(err):
    """jsonschema's message, with a long instance (a whole sample array) abbreviated."""
    msg = err.message
    inst = repr(err.instance)
    if len(inst) > 60 and inst in msg:
        if isinstance(err.instance, list):
            brief = "[array of %d items]" % len(err.instance)
        elif isinstance(err.instance, dict):
            brief = "{object with keys %s}" % ", ".join(sorted(err.instance))
        else:
            brief = inst[:57] + "..."
        msg = msg.replace(inst, brief)
    return msg


def _from_conditional(err):
    """True for errors raised by the if/then/else rules that tie fields together."""
    return any(p in ("allOf", "then", "else") for p in err.schema_path)


def _rule(schema, err):
    """The description of the if/then/else rule an error came from, or None."""
    node, rule = schema, None
    for part in err.schema_path:
        while isinstance(node, dict) and "$ref" in node and part not in node:
            ref = node["$ref"]
            if not ref.startswith("#/"):
                return rule
            node = schema
            for key in ref[2:].split("/"):
                node = node[key]
        if part in ("then", "else") and isinstance(node, dict):
            rule = node.get("description", rule)
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return rule
    return rule


def describe_error(err, schema):
    """One line per schema error; for oneOf, also why each alternative did not match."""
    msg = "%s: %s" % (json_path(err.absolute_path), _message(err))
    if _from_conditional(err):
        rule = _rule(schema, err)
        if rule:
            msg += " [rule: %s]" % rule
    if err.context:
        alts = []
        for sub in err.context:
            rel = json_path(sub.absolute_path)
            text = _message(sub) if rel == json_path(err.absolute_path) else "%s: %s" % (rel, _message(sub))
            if text not in alts:
                alts.append(text)
        msg += " (" + "; or ".join(alts) + ")"
    return msg


def schema_errors(schema, doc):
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    # A value that breaks a plain rule usually breaks a cross-field rule at the same place
    # too; report the plain one only.
    plain = {tuple(e.absolute_path) for e in errors if not _from_conditional(e)}
    errors = [e for e in errors if not (_from_conditional(e) and tuple(e.absolute_path) in plain)]
    return [describe_error(e, schema) for e in errors]


def consistency_errors(doc):
    """Invariants the writer keeps that JSON Schema cannot state."""
    errs = []
    for i, m in enumerate(doc["measurements"]):
        where = "$.measurements[%d]" % i
        probe = "%s-%s" % (m["api"], m["direction"])
        if m["probe"] != probe:
            errs.append("%s.probe: %s, but api and direction make %s" % (where, short(m["probe"]), short(probe)))
        reps = m["repetitions"]
        counts = [("samples_s", len(m["samples_s"])), ("gbps.n", m["gbps"]["n"]), ("seconds.n", m["seconds"]["n"])]
        for k, s in enumerate(m["streams"]):
            counts.append(("streams[%d].samples_s" % k, len(s["samples_s"])))
            counts.append(("streams[%d].gbps.n" % k, s["gbps"]["n"]))
            if "alone_samples_s" in s:
                n_alone = len(s["alone_samples_s"])
                if s["alone_gbps"]["n"] != n_alone:
                    errs.append("%s.streams[%d].alone_gbps.n: %d, but %d alone samples"
                                % (where, k, s["alone_gbps"]["n"], n_alone))
                if not 1 <= n_alone <= reps:
                    errs.append("%s.streams[%d].alone_samples_s: %d samples, expected 1 to %d"
                                % (where, k, n_alone, reps))
        for k, s in enumerate(m["streams"]):
            if "device_samples_s" in s:
                counts.append(("streams[%d].device_samples_s" % k, len(s["device_samples_s"])))
                counts.append(("streams[%d].device_gbps.n" % k, s["device_gbps"]["n"]))
        for name, n in counts:
            if n != reps:
                errs.append("%s.%s: %d samples, but repetitions is %d" % (where, name, n, reps))
        if m["halo_n"] is not None and m["bytes"] != 8 * m["halo_n"] ** 2:
            errs.append("%s.halo_n: %d, but bytes %d is not 8 x N^2 for it" % (where, m["halo_n"], m["bytes"]))
        errs += ci_errors(where, m)
        ver = m["verification"]
        # A chase's check is its final index (8 B per stream), not the bytes of the chain; a
        # face probe's the whole destination box (the face and the bytes left untouched).
        per_stream = 8 if m["mode"] == "chase" else m["bytes"]
        if "shape" in m:
            b = m["shape"]["box"]
            per_stream = b[0] * b[1] * b[2] * m["shape"]["element_bytes"]
        if ver["status"] == "passed" and ver["checked_bytes"] != per_stream * len(m["streams"]):
            errs.append(
                "%s.verification.checked_bytes: %d, but a passed check covers bytes x streams = %d"
                % (where, ver["checked_bytes"], per_stream * len(m["streams"]))
            )
    seen = {}
    for i, d in enumerate(doc["devices"]):
        key = (d["api"], d["id"])
        if key in seen:
            errs.append("$.devices[%d]: device %s %d is listed twice" % (i, d["api"], d["id"]))
        seen.setdefault(key, d)
    for i, d in enumerate(doc["devices"]):
        if "native" not in d:
            continue
        n = seen.get((d["native"]["api"], d["native"]["id"]))
        if n is None:
            errs.append(
                "$.devices[%d].native: %s device %d is not listed in $.devices"
                % (i, d["native"]["api"], d["native"]["id"])
            )
        elif n["pci_bus_id"] != d["pci_bus_id"]:
            errs.append(
                "$.devices[%d].pci_bus_id: %s, but its native %s device %d has %s"
                % (i, short(d["pci_bus_id"]), n["api"], n["id"], short(n["pci_bus_id"]))
            )
    if "gaps" in doc:
        errs += gap_errors(doc["gaps"])
    return errs


def _close(a, b, scale):
    """a equals b up to the rounding of numbers written with 10 significant digits."""
    return abs(a - b) <= 1e-8 * max(abs(scale), 1e-300) + 1e-15


def median_ranks(n, level):
    """The 1-based ranks (j, k) and coverage of the order-statistics interval of a median."""

    # coverage(j) = 1 - 2 sum_{i<j} C(n, i) / 2^n, in exact integers (n reaches thousands of
    # repetitions, beyond a double's 2^1023), the binomial sum kept as j grows.
    total = 2**n

    def coverage(j, below):
        return 0.0 if 2 * j > n else 1.0 - 2 * below / total

    j, below, term = 1, 1, 1  # below = sum_{i<j} C(n, i); term = C(n, j - 1)
    while True:
        nxt_term = term * (n - j + 1) // j  # C(n, j)
        if coverage(j + 1, below + nxt_term) < level:
            break
        j, below, term = j + 1, below + nxt_term, nxt_term
    return j, n + 1 - j, coverage(j, below)


def ci_errors(where, m):
    """median_ci against the samples it comes from, converged against it, stop against
    converged, and the last checked repetition against the count."""
    errs = []
    ci, samples = m.get("median_ci"), m["samples_s"]
    if ci is not None and samples:
        x = sorted(samples)
        n = len(x)
        j, k, cov = median_ranks(n, ci["level"])
        med = (x[(n - 1) // 2] + x[n // 2]) / 2
        hw = 100.0 * max(med - x[j - 1], x[k - 1] - med) / med if med > 0 else None
        if ci["ranks"] != [j, k]:
            errs.append("%s.median_ci.ranks: %r, but %d samples at %r give [%d, %d]" % (where, ci["ranks"], n, ci["level"], j, k))
        elif not (_close(ci["lo_s"], x[j - 1], x[j - 1]) and _close(ci["hi_s"], x[k - 1], x[k - 1])):
            errs.append("%s.median_ci: [%r, %r], but samples %d and %d are [%r, %r]" % (where, ci["lo_s"], ci["hi_s"], j, k, x[j - 1], x[k - 1]))
        if not _close(ci["coverage"], cov, 1.0):
            errs.append("%s.median_ci.coverage: %r, but ranks %d, %d of %d cover %r" % (where, ci["coverage"], j, k, n, cov))
        # A difference of samples written with 10 digits: close in percent, not relative.
        if hw is not None and abs(ci["half_width_pct"] - hw) > 1e-6 * max(1.0, hw):
            errs.append("%s.median_ci.half_width_pct: %r, but the samples give %r" % (where, ci["half_width_pct"], hw))
        if "converged" in m and hw is not None and abs(hw - 1.0) > 1e-6:
            want = hw <= 1.0 and cov >= ci["level"]
            if m["converged"] != want:
                errs.append("%s.converged: %r, but the interval is +-%.3f %% at coverage %.4f" % (where, m["converged"], hw, cov))
    # A fixed count, or a size ended by a stop request: converged says whether the interval
    # met the target, whatever ended the count.
    if "stop" in m and m["stop"] not in ("fixed --reps", "interrupted: the run was asked to stop"):
        if (m["stop"] == "interval within +-1 %") != m["converged"]:
            errs.append("%s.stop: %r with converged %r" % (where, m["stop"], m["converged"]))
    if "time_capped" in m and m["time_capped"] != m["stop"].startswith("time cap"):
        errs.append("%s.time_capped: %r with stop %r" % (where, m["time_capped"], m["stop"]))
    if "first_rep_s" in m and m.get("samples_s") and m["first_rep_s"] != m["samples_s"][0]:
        errs.append("%s.first_rep_s: %r is not samples_s[0]" % (where, m["first_rep_s"]))
    if m.get("error") is not None and (m.get("median_ci") is not None or "stop" in m):
        errs.append("%s: a measurement with an error has an interval or a stop" % where)
    checked = m["verification"].get("checked_repetitions")
    if checked and m["repetitions"]:
        last = int(checked.replace("-", ",").split(",")[-1])
        first = int(checked.replace("-", ",").split(",")[0])
        if first != 1 or last != m["repetitions"]:
            errs.append("%s.verification.checked_repetitions: %r, but the first and the last of %d repetitions are checked" % (where, checked, m["repetitions"]))
    return errs


def gap_errors(gaps):
    errs = []
    for i, r in enumerate(gaps["rows"]):
        where = "$.gaps.rows[%d]" % i
        nat, omp = r["native_gbps"], r["omp_gbps"]
        scale = max(abs(nat), abs(omp))
        if not _close(r["gap_gbps"], nat - omp, scale):
            errs.append("%s.gap_gbps: %r, but native_gbps - omp_gbps = %r" % (where, r["gap_gbps"], nat - omp))
        if not _close(r["relative_gap"], r["gap_gbps"] / nat, scale / nat):
            errs.append(
                "%s.relative_gap: %r, but gap_gbps / native_gbps = %r" % (where, r["relative_gap"], r["gap_gbps"] / nat)
            )
        if "measurable" in r:
            (olo, ohi), (nlo, nhi) = r["omp_ci_gbps"], r["native_ci_gbps"]
            if r["measurable"] == (olo <= nhi and nlo <= ohi):
                errs.append("%s.measurable: %r, but the intervals %r and %r %s" % (where, r["measurable"], r["omp_ci_gbps"], r["native_ci_gbps"], "overlap" if r["measurable"] else "do not overlap"))
        extra = (r["omp_s"] - r["native_s"]) * 1e6
        if not _close(r["extra_us"], extra, 1e6 * max(r["omp_s"], r["native_s"])):
            errs.append("%s.extra_us: %r, but (omp_s - native_s) x 1e6 = %r" % (where, r["extra_us"], extra))
    seen = set()
    for i, g in enumerate(gaps["summary"]):
        key = (g["native_api"], g["direction"], g["omp_mode"], g["host_mem"], g["devices"])
        if key in seen:
            errs.append("$.gaps.summary[%d]: group %s is listed twice" % (i, "/".join(map(str, key))))
        seen.add(key)
    rows = len(gaps["rows"])
    per_group = sum(g["sizes"] for g in gaps["summary"] if g["direction"] != "all")
    overall = sum(g["sizes"] for g in gaps["summary"] if g["direction"] == "all")
    if per_group != rows or overall != rows:
        errs.append(
            "$.gaps.summary: sizes add up to %d (per group) and %d (direction all), but there are %d rows"
            % (per_group, overall, rows)
        )
    return errs


HOST_DIRS = ("htod", "dtoh")
HOST_MODES = ("sync", "async", "nowait", "kernel")
HOST_MEMS = ("pageable", "pinned")
HOST_CONCS = ("single", "dual")
P2P_MODES = ("sync", "async", "kernel")
P2P_CONCS = ("single", "bidir")


def required_combinations():
    combos = [(d, mo, me, c) for d, mo, me, c in itertools.product(HOST_DIRS, HOST_MODES, HOST_MEMS, HOST_CONCS)]
    combos += [("p2p", mo, "none", c) for mo, c in itertools.product(P2P_MODES, P2P_CONCS)]
    return combos


def matrix_errors(doc):
    errs = []
    ms = doc["measurements"]

    # Every series of the OpenMP probe run itself (sweep children are counted separately).
    have = {}
    for m in ms:
        if m["api"] == "omp" and "hht_sweep" not in m:
            key = (m["direction"], m["mode"], m["host_mem"], m["concurrency"])
            have[key] = have.get(key, 0) + 1
    missing = [c for c in required_combinations() if c not in have]
    for c in missing:
        errs.append("$.measurements: no omp measurement with direction %s, mode %s, host_mem %s, concurrency %s" % c)

    # Every OpenMP measurement worked; of the other APIs' measurements, none delivered wrong
    # data (an error such as a failed allocation is theirs to report, not the matrix's).
    for i, m in enumerate(ms):
        where = "$.measurements[%d]" % i
        if m["api"] != "omp":
            if m["verification"]["status"] == "failed":
                errs.append("%s.verification.status: failed (%s)" % (where, m["verification"]["detail"]))
            continue
        if m["error"] is not None:
            errs.append("%s.error: %s" % (where, short(m["error"], 160)))
        if m["verification"]["status"] != "passed":
            errs.append(
                "%s.verification.status: %s (%s)"
                % (where, short(m["verification"]["status"]), m["verification"]["detail"])
            )

    kinds = {}
    for i, d in enumerate(doc["devices"]):
        kinds[(d["api"], d["id"])] = d["kind"]
        if d["kind"] == "host-plugin":
            if d["is_gpu"] is not False:
                errs.append("$.devices[%d].is_gpu: a host-plugin device is labelled as a GPU" % i)
            if "host" not in d["memory"].lower():
                errs.append(
                    "$.devices[%d].memory: %s does not say that host-plugin memory is host memory"
                    % (i, short(d["memory"]))
                )
    if doc["devices"] and not any(d["is_gpu"] for d in doc["devices"]):
        for i, d in enumerate(doc["devices"]):
            if d["api"] == "omp" and d["kind"] != "host-plugin":
                errs.append(
                    "$.devices[%d].kind: %s, but with no GPU every omp device should be host-plugin"
                    % (i, short(d["kind"]))
                )
    if not any(d["api"] == "omp" for d in doc["devices"]):
        errs.append("$.devices: no omp device listed")

    for i, m in enumerate(ms):
        if m["direction"] != "p2p":
            continue
        ends = {s[k] for s in m["streams"] for k in ("src", "dst") if s[k] != "host"}
        if not any(kinds.get((m["api"], e)) == "host-plugin" for e in ends):
            continue
        if m["mode"] == "kernel":
            if "the destination device reads the source" not in m["path"]:
                errs.append(
                    "$.measurements[%d].path: a P2P kernel copy does not say the destination device's kernel loads the source: %s"
                    % (i, short(m["path"], 160))
                )
        elif "host-staged" not in m["path"]:
            errs.append(
                "$.measurements[%d].path: P2P between host-plugin devices is not reported as host-staged: %s"
                % (i, short(m["path"], 160))
            )

    if not any(
        s["api"] == "omp" and s["probe"] == "omp-p2p" and s["what"].split()[:1] == ["nowait"] and s["reason"].strip()
        for s in doc["skipped"]
    ):
        errs.append('$.skipped: no entry for omp-p2p "nowait" with a reason')

    if doc.get("state") != "complete":
        errs.append("$.state: %s, not complete" % short(doc.get("state")))
    if doc.get("interrupted") is not False:
        errs.append(
            "$.interrupted: %s, not false: the run did not finish"
            % ("absent (a checkpoint file)" if "interrupted" not in doc else short(doc["interrupted"]))
        )
    if "gaps" not in doc:
        errs.append("$.gaps: absent, but a finished run always writes the gap table")
    if "1e9" not in doc["units"]["bandwidth"]:
        errs.append("$.units.bandwidth: %s does not say GB/s = 1e9 B/s" % short(doc["units"]["bandwidth"]))
    return errs, len(required_combinations()) - len(missing)


def report(path, kind, errs):
    print("%s: INVALID (%s): %d problem%s" % (path, kind, len(errs), "" if len(errs) == 1 else "s"))
    for e in errs[:MAX_SHOWN]:
        print("  " + e)
    if len(errs) > MAX_SHOWN:
        print("  ... and %d more" % (len(errs) - MAX_SHOWN))


def main(argv):
    ap = argparse.ArgumentParser(description="Validate a nodebw results.json against the results schema.")
    ap.add_argument("schema", help="doc/results.schema.json")
    ap.add_argument("results", help="a results.json written by nodebw")
    ap.add_argument(
        "--require-matrix",
        action="store_true",
        help="also require the full OpenMP probe matrix, all verified, with host-plugin labelling",
    )
    args = ap.parse_args(argv)

    try:
        schema = load_json(args.schema, strict=False)
        jsonschema.Draft7Validator.check_schema(schema)
    except (OSError, ValueError) as e:
        print("%s: cannot read the schema: %s" % (args.schema, e), file=sys.stderr)
        return 2
    except jsonschema.exceptions.SchemaError as e:
        print("%s: not a valid draft-07 schema: %s" % (args.schema, e.message), file=sys.stderr)
        return 2
    try:
        doc = load_json(args.results, strict=True)
    except (OSError, ValueError) as e:
        print("%s: INVALID: cannot read it as JSON: %s" % (args.results, e))
        return 1

    errs = schema_errors(schema, doc)
    if errs:
        report(args.results, "schema", errs)
        return 1
    errs = consistency_errors(doc)
    if errs:
        report(args.results, "consistency", errs)
        return 1
    matrix = ""
    if args.require_matrix:
        errs, ncombos = matrix_errors(doc)
        if errs:
            report(args.results, "matrix", errs)
            return 1
        matrix = "; matrix complete (%d omp combinations, all verified)" % ncombos

    ms = doc["measurements"]
    passed = sum(1 for m in ms if m["verification"]["status"] == "passed")
    swept = sum(1 for m in ms if "hht_sweep" in m)
    per_api = {}
    for m in ms:
        per_api[m["api"]] = per_api.get(m["api"], 0) + 1
    gaps = doc.get("gaps")
    print(
        "%s: valid %s v%d: %d measurement%s (%s; %d verified%s), %d device%s, %d skipped, %s%s"
        % (
            args.results,
            doc["schema"],
            doc["schema_version"],
            len(ms),
            "" if len(ms) == 1 else "s",
            ", ".join("%s %d" % kv for kv in per_api.items()) or "none",
            passed,
            ", %d from the hidden-helper sweep" % swept if swept else "",
            len(doc["devices"]),
            "" if len(doc["devices"]) == 1 else "s",
            len(doc["skipped"]),
            "%d gap row%s" % (len(gaps["rows"]), "" if len(gaps["rows"]) == 1 else "s") if gaps else "no gap table",
            matrix,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
