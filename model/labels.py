#!/usr/bin/env python3
"""labels.py: the labels of trace conformance, from model/steps.tsv and model/abstracted.tsv.

THE MODEL of this script.  A step of model/protocol.pml that leaves a trace event has a label:
steps.tsv's role and trace columns (who records the event, and the event's pattern, e.g.
"scf.read:restarter found").  Steps with the same role and pattern share the label: the trace
cannot tell them apart, and the model tells them apart by the label's value (svcadm's exit
status: 3 after "misconfigured", 0 once online).  A label's number is its group's rank in
steps.tsv, from 1; a recorded label is number * 16 + value (a short, value < 16).

Three outputs, one table:
  --pml FILE   labels.pml, included by protocol.pml: L_<KEY> for every labelled step,
               LBL_SERVE(who, op) and LBL_ANSWER(who, op) for configd calls (a commit is
               recorded by configd.write, a read or an interest by the caller's scf.* event);
  --c FILE     a C header for svctrace conform: every (role, pattern) -> label and value,
               the events model/abstracted.tsv leaves out (stutter or end, and why), and the
               model's numbering svctrace needs (the switches' positions, the client kinds).
  --pan DIR    the guided verifier's sources (pan.c, pan.h, pan.m, pan.b, pan.t, pan.p):
               spin (--spin, default "spin") -DGUIDED=1 -a over protocol.pml with labels.pml,
               what meson compiles into svctrace-model.
A placeholder {event} or {kind} in a pattern stands for each restarter event (RE_*) or
notification (N_*) of the model: one row each, the value being its number.

Exit 0, or 1 with a message when a table is malformed (an unknown role, value or placeholder).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "protocol.pml")
STEPS = os.path.join(HERE, "steps.tsv")
ABSTRACTED = os.path.join(HERE, "abstracted.tsv")

ROLES = ["cmd1", "cmd2", "graph", "worker", "repo", "dispatcher", "configd", "startd", "other",
         "*"]
# A value a label carries besides its number, computed by svctrace conform from the event.
VALUES = {"found": "a read that found the pg (scf.read: a generation, not absent)",
          "ok": "a method that exited 0",
          "status": "the process's exit status"}
# The words a trace pattern uses for the model's notifications (N_*) to startd: what they are
# about.  None: not one startd's repository thread forwards (the restarter pg's come back from
# startd's own writes and are dropped: model/abstracted.tsv).
KIND_WORDS = {"ADDED": "instance", "GENERAL": "general", "SVCGENERAL": "svc-general",
              "RESTARTER": None}
# The model's processes (W_*) by the role of their calls.
WHO = {"cmd1": "W_CMD1", "cmd2": "W_CMD2", "graph": "W_GRAPH", "worker": "W_WORKER"}


def die(msg):
    print(f"labels: {msg}", file=sys.stderr)
    sys.exit(1)


def read_defines(path):
    """The model's numbering (#define NAME N), one home: protocol.pml."""
    d = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"#define\s+(\w+)\s+(\d+)\b", line)
            if m:
                d[m.group(1)] = int(m.group(2))
    return d


def read_tsv(path, ncols):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != ncols:
                die(f"{path}:{n}: {len(cols)} columns, not {ncols}")
            rows.append((n, cols))
    return rows


def expand(pattern, defs):
    """[(pattern, fixed value or None)] for a pattern with at most one placeholder."""
    if "{event}" in pattern:
        return [(pattern.replace("{event}", k[3:].lower()), v)
                for k, v in sorted(defs.items(), key=lambda kv: kv[1]) if k.startswith("RE_")]
    if "{kind}" in pattern:
        out = []
        for k, v in sorted(defs.items(), key=lambda kv: kv[1]):
            if k.startswith("N_"):
                if k[2:] not in KIND_WORDS:
                    die(f"notification {k} has no word in labels.py KIND_WORDS")
                if KIND_WORDS[k[2:]] is None:
                    continue
                out.append((pattern.replace("{kind}", KIND_WORDS[k[2:]]), v))
        return out
    if "{" in pattern:
        die(f"unknown placeholder in {pattern!r}")
    return [(pattern, None)]


def build():
    defs = read_defines(MODEL)
    steps = []  # (key, role, pattern, value kind)
    for n, c in read_tsv(STEPS, 7):
        key, role, trace = c[0], c[5], c[6]
        if role not in ROLES or role == "*":
            die(f"{STEPS}:{n}: {key}: unknown role {role!r}")
        if trace == "-":
            steps.append((key, role, None, None))
            continue
        pattern, _, value = trace.partition(" ")
        if value and value not in VALUES:
            die(f"{STEPS}:{n}: {key}: unknown value {value!r}")
        steps.append((key, role, pattern, value or None))
    groups = {}  # (role, pattern, value) -> number
    labels = {}  # key -> number
    for key, role, pattern, value in steps:
        if pattern is None:
            continue
        g = groups.setdefault((role, pattern, value), len(groups) + 1)
        labels[key] = g
    rows = []  # (role, pattern, verdict, label, value kind, value, text)
    for (role, pattern, value), g in groups.items():
        keys = [k for k, l in labels.items() if l == g]
        for p, fixed in expand(pattern, defs):
            if fixed is not None and value:
                die(f"{pattern}: a placeholder and a value {value!r} at once")
            rows.append((role, p, "label", g, value or ("fixed" if fixed is not None else "none"),
                         fixed or 0, " ".join(keys)))
    for n, c in read_tsv(ABSTRACTED, 4):
        role, pattern, verdict, why = c
        if role not in ROLES:
            die(f"{ABSTRACTED}:{n}: unknown role {role!r}")
        if verdict not in ("stutter", "end"):
            die(f"{ABSTRACTED}:{n}: verdict {verdict!r} is neither stutter nor end")
        rows.append((role, pattern, verdict, 0, "none", 0, why))
    seen = set()
    for r in rows:
        if (r[0], r[1]) in seen:
            die(f"({r[0]}, {r[1]}) is in the tables twice")
        seen.add((r[0], r[1]))
    return defs, steps, labels, rows


def cond_chain(entries, default="0"):
    """A Promela conditional expression: (c1 -> v1 : (c2 -> v2 : ... default))."""
    out = default
    for c, v in reversed(entries):
        out = f"({c} -> {v} : {out})"
    return out


def write_pml(path):
    defs, steps, labels, _ = build()
    serve, answer = [], []
    for key, role, pattern, value in steps:
        if not key.startswith("call.") or pattern is None:
            continue
        _, who, op = key.split(".")
        if who not in WHO or f"OP_{op.upper()}" not in defs:
            die(f"{key}: no model call {WHO.get(who)} / OP_{op.upper()}")
        cond = f"(w) == {WHO[who]} && (o) == OP_{op.upper()}"
        (serve if pattern.startswith("configd.write") else answer).append((cond, labels[key]))
    with open(path, "w") as f:
        f.write("/* labels.pml: generated by model/labels.py from model/steps.tsv; do not edit. */\n")
        for key, _, pattern, _ in steps:
            if pattern is not None:
                f.write(f"#define L_{key.upper().replace('.', '_')} {labels[key]}\n")
        f.write(f"#define LBL_SERVE(w, o) {cond_chain(serve)}\n")
        f.write(f"#define LBL_ANSWER(w, o) {cond_chain(answer)}\n")


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_c(path):
    defs, _, _, rows = build()
    with open(path, "w") as f:
        f.write("/* conform-table.h: generated by model/labels.py from model/steps.tsv, "
                "model/abstracted.tsv\n * and model/protocol.pml; do not edit. */\n")
        f.write("#ifndef CONFORM_TABLE_H\n#define CONFORM_TABLE_H\n\n")
        for name in ["SW_IMPORT_WAIT", "SW_ADD_WAIT", "SW_SVCADM_WAIT", "SW_CONFIGD_EAGER",
                     "SW_CLIENT", "SW_FIRST_SIGHT", "SW_SVC_GENERAL", "SW_DETAIL", "SW_COUNT",
                     "GMAX", "C_IMPORT_ENABLE", "C_ADD_ENABLE", "C_IMPORT_SVCS", "C_ADD_SVCS"]:
            if name not in defs:
                die(f"protocol.pml defines no {name}")
            f.write(f"#define MODEL_{name} {defs[name]}\n")
        # Every file of svctrace conform includes the numbering; one reads the rules.
        f.write("\nstatic const conform_rule_t conform_rules[] __attribute__((unused)) = {\n")
        for role, pattern, verdict, label, vkind, value, text in rows:
            f.write(f"\t{{{c_str(role)}, {c_str(pattern)}, CONFORM_{verdict.upper()}, {label}, "
                    f"CONFORM_VALUE_{vkind.upper()}, {value}, {c_str(text)}}},\n")
        f.write("};\n\n#endif\n")


PAN_FILES = ["pan.c", "pan.h", "pan.m", "pan.b", "pan.t", "pan.p"]


def write_pan(outdir, spin):
    """spin -DGUIDED=1 -a in a scratch directory; the generated files into outdir."""
    d = tempfile.mkdtemp(prefix="minismf-labels.")
    try:
        shutil.copy(MODEL, d)
        write_pml(os.path.join(d, "labels.pml"))
        p = subprocess.run([spin, "-DGUIDED=1", "-a", "protocol.pml"], cwd=d,
                           capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(os.path.join(d, "pan.c")):
            die(f"{spin} -DGUIDED=1 -a failed:\n{p.stdout}{p.stderr}")
        os.makedirs(outdir, exist_ok=True)
        for n in PAN_FILES:
            shutil.copy(os.path.join(d, n), os.path.join(outdir, n))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pml", metavar="FILE")
    ap.add_argument("--c", metavar="FILE")
    ap.add_argument("--pan", metavar="DIR")
    ap.add_argument("--spin", default="spin")
    a = ap.parse_args()
    if not a.pml and not a.c and not a.pan:
        ap.error("nothing to write: --pml FILE, --c FILE, --pan DIR")
    if a.pml:
        write_pml(a.pml)
    if a.c:
        write_c(a.c)
    if a.pan:
        write_pan(a.pan, a.spin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
