#!/usr/bin/env python3
"""check.py: runs SPIN over model/protocol.pml for every fix variant and client kind.

THE MODEL of this script.  A *cell* is one (variant, client) pair: the model is generated
with that cell's -D switches, compiled into a verifier (pan) and searched exhaustively: no
partial-order reduction (-DNOREDUCE), no bitstate or hash-compact storage, no state
compression that could lose a state, safety only (-DSAFETY: assertions and invalid end states;
every run of the model is finite, so no liveness search is needed: --cycles checks that).  A
cell is *verified* (no error, every reachable state visited), *violated* (a client saw I
without its restarter pg), or another error (deadlock, a wrong end state of enable -s, a queue
bound too small).

For a violated cell the trail is replayed (spin -t) and its "@@" lines are read back through
model/steps.tsv into readable steps; the counter-example becomes an SMF_DELAY schedule:

  1. the violating read R is the client's read that found no restarter pg;
  2. the write W is the first write of I's restarter pg after R (the window closes there);
  3. its causal chain is every step of configd's notifications to startd and of startd's threads
     that carries the commit id W's event came from (the model passes commit ids along, as the
     trace does: docs/trace-format.md);
  4. the chain's steps after R are the ones the client overtook; the first of them is where
     the real run must be held: the delay point that stretches it (steps.tsv) gets the delay.
     A point not in this tree's SMF_POINTS is skipped for the next overtaken step's point;
     configd's points are never chosen (configd's one thread serves the client too, so a delay
     there holds the client back as well).
  5. the amount is not in the model (it has no time): it must exceed what the client does
     between that step and R (printed: requests and process starts); --delay, default 500ms.

Output: the counter-example, the schedule, the variant x client table with state counts and
times; --json FILE writes the same for tests.  Exit 0 when every cell ran (whatever its
verdict), 1 when SPIN or the compiler failed or a search was incomplete, 2 on usage errors.
"""

import argparse
import concurrent.futures
import copy
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import labels

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "protocol.pml")
STEPS = os.path.join(HERE, "steps.tsv")
DELAY_H = os.path.join(HERE, "..", "lib", "include", "smf", "delay.h")

# The fix variants of svcrace (docs/race.md), as the model's switches.
VARIANTS = [
    ("none", []),
    ("import-wait", ["FIX_IMPORT_WAIT"]),
    ("add-wait", ["FIX_ADD_WAIT"]),
    ("svcadm-wait", ["FIX_SVCADM_WAIT"]),
    ("configd-eager", ["FIX_CONFIGD_EAGER"]),
    ("default", ["FIX_IMPORT_WAIT", "FIX_ADD_WAIT"]),
]
CLIENTS = [(1, "import+enable"), (2, "add+enable"), (3, "import+svcs"), (4, "add+svcs")]

# The verifier: exhaustive, safety properties, no reduction (see the docstring).  With --cycles
# it looks for cycles instead (-DNP, pan -l; assertions and end states off: -A -E): none means
# every run is finite, which property (3) relies on.
CC_FLAGS = ["-O0", "-w", "-DNOREDUCE", "-DVECTORSZ=1024", "-DMEMLIM=4096"]
PAN_FLAGS = ["-m20000", "-w22", "-n"]
MODE_FLAGS = {"safety": (["-DSAFETY"], []), "cycles": (["-DNP"], ["-l", "-A", "-E"])}


def die(msg, code=1):
    print(f"model: {msg}", file=sys.stderr)
    sys.exit(code)


def names(defs, prefix):
    """number -> lower-case name for the #defines with that prefix."""
    return {v: k[len(prefix):].lower() for k, v in defs.items() if k.startswith(prefix)}


def read_steps(path):
    steps = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            key, actor, text, source, point, role, trace = line.rstrip("\n").split("\t")
            steps[key] = {"actor": actor, "text": text, "source": source, "point": point,
                          "role": role, "trace": trace}
    return steps


def read_points(path):
    """The names of SMF_POINTS in delay.h: the points this tree has."""
    try:
        with open(path) as f:
            return re.findall(r'X\(SMF_POINT_\w+,\s*"([^"]+)"', f.read())
    except OSError:
        return []


class Model:
    def __init__(self):
        d = labels.read_defines(MODEL)
        self.ops = names(d, "OP_")
        self.who = {d["W_CMD1"]: "cmd1", d["W_CMD2"]: "cmd2", d["W_GRAPH"]: "graph",
                    d["W_WORKER"]: "worker"}
        self.states = {v: k for k, v in {
            "absent": d["S_NONE"], "uninitialized": d["S_UNINIT"], "offline": d["S_OFFLINE"],
            "online": d["S_ONLINE"], "disabled": d["S_DISABLED"], "maintenance": d["S_MAINT"],
        }.items()}
        self.enabled = {d["E_ABSENT"]: "absent", d["E_FALSE"]: "false", d["E_TRUE"]: "true"}
        self.kinds = {d["N_GENERAL"]: "general", d["N_ADDED"]: "added",
                      d["N_RESTARTER"]: "restarter", d["N_SVCGENERAL"]: "svc_general"}
        self.kind_names = {d["N_GENERAL"]: "PgChanged general", d["N_ADDED"]: "InstanceAdded",
                           d["N_RESTARTER"]: "PgChanged restarter",
                           d["N_SVCGENERAL"]: "PgChanged general of S"}
        self.gevents = {d["GE_PG"]: "the notification (general)",
                        d["GE_ADDED"]: "the notification (InstanceAdded)",
                        d["GE_STATE"]: "a state report",
                        d["GE_SVC"]: "the notification (general of S)"}
        self.events = {v: k[3:] for k, v in d.items() if k.startswith("RE_")}
        self.steps = read_steps(STEPS)

    # Two-valued placeholders: (text for 0, text for anything else).
    FLAGS = {"bool": ("false", "true"), "created": ("exists", "created (empty)"),
             "endis": ("DISABLE", "ENABLE"), "method": ("fails (maintenance)", "succeeds")}
    # OP_LIST_PGS's answer (LISTED_* bits).
    LISTED = {0: "neither general nor restarter", 1: "general, no restarter",
              2: "restarter, no general", 3: "general and restarter"}

    def fmt(self, value, typ):
        if typ in self.FLAGS:
            return self.FLAGS[typ][1 if value else 0]
        if typ == "ostate":
            return "" if value == 0 else ": " + self.states.get(value, str(value))
        table = {"state": self.states, "enabled": self.enabled, "gevent": self.gevents,
                 "event": self.events, "kind": self.kind_names, "listed": self.LISTED}[typ]
        return table.get(value, str(value))

    def parse_trail(self, text, client):
        """The trail's '@@' lines as steps: key, actor, text, point, cause (commit id)."""
        cmd2 = "svcadm" if client in (1, 2) else "svcs"
        cause = {"graph": 0, "worker": 0}
        out = []
        for line in text.splitlines():
            if not line.startswith("@@ "):
                continue
            f = line.split()
            kind, vals = f[1], {}
            if kind == "call":
                who, op, arg, res, cid = (int(x) for x in f[2:7])
                actor = self.who[who]
                key = f"call.{actor}.{self.ops[op]}"
                vals = {"arg": arg, "res": res}
                c = cause.get(actor, cid)
                commit = cid
            elif kind == "send":
                key = f"send.{f[2]}.{self.kinds[int(f[3])]}"
                c = commit = int(f[4])
            elif kind == "recv":
                actor = self.who[int(f[2])]
                key = f"recv.{actor}.restarter"
                c, commit = cause.get(actor, 0), 0
            else:
                key = f"step.{f[2]}"
                nums = [int(x) for x in f[3:]]
                c, commit = nums[-1], 0
                vals = {"a1": nums[0], "a2": nums[1] if len(nums) > 2 else 0}
                if key in ("step.graph.take", "step.graph.sight", "step.worker.take"):
                    cause[key.split(".")[1]] = c
            s = self.steps.get(key)
            if not s:
                die(f"step {key} is not in {STEPS}")
            words = re.sub(r"\{(\w+):(\w+)\}", lambda m: self.fmt(vals[m.group(1)], m.group(2)),
                           s["text"])
            words = words.replace("{cmd2}", cmd2).replace("{manifest}", "false").replace(
                "{absent}", 'svcadm says "misconfigured (lacks "restarter" property group)", '
                'exit 3' if cmd2 == "svcadm" else "svcs shows no state")
            out.append({"key": key, "actor": s["actor"].replace("{cmd2}", cmd2),
                        "text": words, "source": s["source"], "point": s["point"],
                        "cause": c, "commit": commit})
        return out


def schedule(steps, points, delay):
    """The SMF_DELAY schedule of a counter-example (see the docstring), or None."""
    r = next((k for k, s in enumerate(steps) if s["key"] == "step.client.absent"), None)
    if r is None:
        return None
    w = next((k for k in range(r + 1, len(steps))
              if steps[k]["key"].endswith(".write_rpg_first")), None)
    res = {"read": r + 1, "write": w + 1 if w is not None else None}
    if w is None:
        res.update(smf_delay=None, why="nobody ever writes I's restarter pg in this run: the "
                   "client sees a permanent absence, not a window a delay could widen")
        return res
    c = steps[w]["cause"]
    chain = [k for k in range(r + 1, w + 1) if steps[k]["cause"] == c and
             (steps[k]["actor"].startswith("startd") or steps[k]["key"].startswith("send.startd"))]
    held, chosen, skipped = chain[0], None, []
    for k in chain:
        p = steps[k]["point"]
        if p.startswith("startd.") and p in points:
            chosen = k
            break
        if p != "-" and p not in skipped:
            skipped.append(p)
    # What the client does from the chain's first notification to startd to its read.
    first = min(k for k, s in enumerate(steps)
                if s["cause"] == c and s["key"].startswith("send.startd"))
    client = [s for s in steps[first:r + 1] if s["actor"] in ("svccfg", "svcadm", "svcs")
              and s["key"].startswith("call.")]
    procs = len({s["actor"] for s in steps[first:r + 1] if s["actor"] in ("svcadm", "svcs")})
    res.update(cause=c, chain=[k + 1 for k in chain], held=held + 1,
               held_point=steps[held]["point"], skipped=skipped,
               client_requests=len(client), client_processes=procs)
    if chosen is None:
        res.update(smf_delay=None, why="no delay point of this tree lies on the chain")
        return res
    p = steps[chosen]["point"]
    res.update(point=p, point_step=chosen + 1, smf_delay=f"{p}={delay}")
    return res


def run(cmd, cwd, timeout=600):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def parse_pan(out):
    g = lambda rx, conv=int: (lambda m: conv(m.group(1)) if m else None)(re.search(rx, out))
    r = {"errors": g(r"errors: (\d+)"), "states": g(r"(\d+) states, stored"),
         "transitions": g(r"(\d+) transitions \("), "depth": g(r"depth reached (\d+)"),
         "pan_seconds": g(r"elapsed time ([\d.e+-]+) seconds", float) or 0.0}
    if "max search depth too small" in out:
        r["verdict"], r["error"] = "incomplete", "max search depth too small"
    elif r["errors"] == 0:
        r["verdict"] = "verified"
    elif "assertion violated  !(seen_absent)" in out:
        r["verdict"], r["error"] = "violated", "a client saw I without its restarter pg"
    elif "assertion violated" in out:
        m = re.search(r"assertion violated\s+(.*?) \(at depth", out)
        r["verdict"], r["error"] = "error", "assertion violated: " + (m.group(1) if m else "?")
    elif "invalid end state" in out:
        r["verdict"], r["error"] = "deadlock", "invalid end state (a process blocked forever)"
    else:
        r["verdict"], r["error"] = "incomplete", "unrecognised pan output"
    return r


def blocked(replay):
    """The processes a trail ends with that are not at an end label: where each waits."""
    with open(MODEL) as f:
        lines = f.read().splitlines()
    out = []
    rx = r"proc\s+\d+ \((\w+):\d+\) protocol\.pml:(\d+) \(state \d+\)(.*)"
    for m in re.finditer(rx, replay):
        if "valid end state" not in m.group(3):
            n = int(m.group(2))
            out.append({"process": m.group(1), "line": n, "text": lines[n - 1].strip()})
    return out


# Cells whose switches generate the same verifier (add-wait changes nothing for an import
# client, for one) are searched once: generated-files digest -> {"done", "result", "cell"}.
_searched = {}
_searched_lock = threading.Lock()


def generated_digest(d, mode):
    h = hashlib.sha256(mode.encode())
    for n in sorted(os.listdir(d)):
        if n.startswith("pan."):
            with open(os.path.join(d, n), "rb") as f:
                h.update(n.encode() + b"\0" + f.read())
    return h.hexdigest()


def run_cell(model, variant, switches, client, first_sight, keep, extra=(), mode="safety"):
    d = tempfile.mkdtemp(prefix="minismf-model.")
    try:
        shutil.copy(MODEL, d)
        labels.write_pml(os.path.join(d, "labels.pml"))
        defs = [f"-D{s}=1" for s in switches] + [f"-DCLIENT={client}",
                                                  f"-DSTARTD_FIRST_SIGHT={first_sight}"]
        defs += [f"-D{x}" for x in extra]
        t0 = time.monotonic()
        p = run(["spin"] + defs + ["-a", "protocol.pml"], d)
        if p.returncode != 0:
            die(f"spin -a failed for {variant}/{client}:\n{p.stdout}{p.stderr}")
        t_gen = time.monotonic()
        key = generated_digest(d, mode)
        with _searched_lock:
            entry = _searched.get(key)
            mine = entry is None
            if mine:
                entry = _searched[key] = {"done": threading.Event(), "result": None,
                                          "cell": f"{variant} / {dict(CLIENTS)[client]}"}
        if not mine:
            entry["done"].wait()
            if entry["result"] is None:
                die(f"{variant}/{client}: the search of the same model failed")
            r = copy.deepcopy(entry["result"])
            r.update(variant=variant, same_model_as=entry["cell"],
                     compile_seconds=round(t_gen - t0, 3), verify_seconds=0.0)
            return r
        try:
            r = search(model, d, defs, variant, client, first_sight, extra, mode, t0)
            entry["result"] = r
        finally:
            entry["done"].set()
        if keep:
            dst = os.path.join(keep, f"{variant}.{client}.{first_sight}")
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(d, dst)
        return r
    finally:
        shutil.rmtree(d, ignore_errors=True)


def search(model, d, defs, variant, client, first_sight, extra, mode, t0):
    """Compiles the verifier generated in d, runs it, reads its verdict and trail."""
    p = run(["gcc"] + CC_FLAGS + MODE_FLAGS[mode][0] + ["-o", "pan", "pan.c"], d)
    if p.returncode != 0:
        die(f"cc failed for {variant}/{client}:\n{p.stderr}")
    t1 = time.monotonic()
    p = run(["./pan"] + PAN_FLAGS + MODE_FLAGS[mode][1], d)
    t2 = time.monotonic()
    r = parse_pan(p.stdout + p.stderr)
    if mode == "cycles":
        r["verdict"] = {"verified": "acyclic", "incomplete": "incomplete"}.get(
            r["verdict"], "cycle")
    r.update(variant=variant, client=dict(CLIENTS)[client], first_sight=first_sight,
             defines=list(extra),
             compile_seconds=round(t1 - t0, 3), verify_seconds=round(t2 - t1, 3))
    if r["verdict"] in ("violated", "deadlock", "error") and \
            os.path.exists(os.path.join(d, "protocol.pml.trail")):
        t = run(["spin", "-T", "-t"] + defs + ["protocol.pml"], d)
        r["steps"] = model.parse_trail(t.stdout, client)
        r["blocked"] = blocked(t.stdout) if r["verdict"] == "deadlock" else []
    return r


def print_steps(steps, sched, whole=False):
    marks = {}
    if sched:
        marks[sched["read"]] = "<== the client reads: no restarter pg"
        if sched.get("write"):
            marks[sched["write"]] = "<== the pg is written: the window closes"
        if sched.get("held"):
            marks.setdefault(sched["held"], "<-- first step the client overtook")
    last = sched["write"] if sched and sched.get("write") and not whole else len(steps)
    for k, s in enumerate(steps[:last], 1):
        cause = ""
        if s["commit"] and s["cause"] and s["commit"] != s["cause"]:
            cause = f"[commit {s['commit']}, from commit {s['cause']}]"
        elif s["commit"]:
            cause = f"[commit {s['commit']}]"
        elif s["cause"]:
            cause = f"[from commit {s['cause']}]"
        print(f"  {k:3} {s['actor']:<18} {s['text']} {cause} {marks.get(k, '')}".rstrip())
    if last < len(steps):
        print(f"      ... {len(steps) - last} more steps to the end of the run (startd carries "
              f"on; the client has ended)")


def print_schedule(sched, points):
    if sched is None:
        return
    if sched["smf_delay"] is None:
        print(f"  no schedule: {sched['why']}")
        return
    print(f"  SMF_DELAY='{sched['smf_delay']}'   (svc.startd's environment)")
    print(f"  how: the client's read (step {sched['read']}) came before the restarter pg write "
          f"(step {sched['write']}); the steps of the chain from commit {sched['cause']} to that "
          f"write that came after the read are {', '.join(map(str, sched['chain']))}.")
    print(f"  The first step it overtook is step {sched['held']}, stretched by "
          f"{sched['held_point']}" + ("" if sched['held_point'] in points else
                                      " (not in this tree's SMF_POINTS yet)") +
          f"; the chosen point is {sched['point']} (step {sched['point_step']}), the first on the "
          f"chain this tree has.")
    print(f"  The delay must outlast what the client does meanwhile: "
          f"{sched['client_requests']} requests to configd and {sched['client_processes']} "
          f"process start (milliseconds unloaded; docs/model.md).")


def table(cells, first_sight):
    rows = [c for c in cells if c["first_sight"] == first_sight]
    head = f"  {'variant':<14}" + "".join(f"{n:>22}" for _, n in CLIENTS)
    print(head)
    for v, _ in VARIANTS:
        line = f"  {v:<14}"
        for _, n in CLIENTS:
            c = next(x for x in rows if x["variant"] == v and x["client"] == n)
            if c["verdict"] == "verified":
                cell = f"verified {c['states']:>8}"
            else:
                cell = c["verdict"]
            line += f"{cell:>22}"
        print(line)


def cycles(a, model):
    """Every cell, code before and after issue 10, searched for a cycle: none may have one."""
    t0 = time.monotonic()
    jobs = [(v, sw, c, fs) for fs in (1, 0) for v, sw in VARIANTS for c, _ in CLIENTS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        cells = list(ex.map(lambda j: run_cell(model, *j, a.keep, mode="cycles"), jobs))
    for c in cells:
        if c["verdict"] != "acyclic":
            print(f"  {c['variant']} / {c['client']} (first sight {c['first_sight']}): "
                  f"{c['verdict']} {c.get('error', '')}")
    ok = all(c["verdict"] == "acyclic" for c in cells)
    print(f"{len(cells)} searches for cycles: {'none has one' if ok else 'CYCLES FOUND'}; "
          f"largest {max(c['states'] or 0 for c in cells)} states, "
          f"{sum(c['verify_seconds'] for c in cells):.1f} s searching, "
          f"{time.monotonic() - t0:.1f} s wall")
    return 0 if ok else 1


def one_cell(a, model, points, ver):
    client = next(c for c, n in CLIENTS if n == a.cell[1])
    c = run_cell(model, a.cell[0], dict(VARIANTS)[a.cell[0]], client,
                 0 if a.before_issue_10 else 1, a.keep, a.define)
    print(f"{a.cell[0]} / {a.cell[1]}{' (before issue 10)' if a.before_issue_10 else ''}"
          f"{''.join(' -D' + x for x in a.define)}: {c['verdict']}"
          + (f" ({c['error']})" if c.get("error") else "") +
          f"; {c['states']} states, {c['transitions']} transitions, depth {c['depth']}, "
          f"{c['verify_seconds']:.2f} s searching ({ver})")
    if "steps" in c:
        c["schedule"] = schedule(c["steps"], points, a.delay)
        print_steps(c["steps"], c["schedule"], whole=True)
        for b in c["blocked"]:
            print(f"  blocked forever: {b['process']} at protocol.pml:{b['line']}: {b['text']}")
        if c["schedule"]:
            print("As an SMF_DELAY schedule:")
            print_schedule(c["schedule"], points)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"spin": ver, "points": points, "cells": [c]}, f, indent=1)
    return 1 if c["verdict"] == "incomplete" else 0


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head is not an error
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="only the table of the code as issue 10 makes it (the test's mode)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--delay", default="500ms", help="the schedule's delay (default 500ms)")
    ap.add_argument("--keep", metavar="DIR", help="keep each cell's pan.c, pan and trail here")
    ap.add_argument("--cycles", action="store_true",
                    help="search every cell for cycles instead (is every run finite?)")
    ap.add_argument("--cell", nargs=2, metavar=("VARIANT", "CLIENT"),
                    help="one search only, its whole trail printed (e.g. --cell none add+svcs)")
    ap.add_argument("--define", action="append", default=[], metavar="NAME=VALUE",
                    help="with --cell: one more switch of protocol.pml (e.g. MUTANT=1)")
    ap.add_argument("--before-issue-10", action="store_true",
                    help="with --cell: STARTD_FIRST_SIGHT=0, the daemons before issue 10")
    a = ap.parse_args()
    if not re.fullmatch(r"\d+(us|ms|s)", a.delay):
        die(f"--delay {a.delay}: not N(us|ms|s)", 2)
    if a.cell:
        if a.cell[0] not in dict(VARIANTS) or a.cell[1] not in dict((n, c) for c, n in CLIENTS):
            die(f"--cell: variants are {', '.join(v for v, _ in VARIANTS)}; clients are "
                f"{', '.join(n for _, n in CLIENTS)}", 2)
        for x in a.define:
            if not re.fullmatch(r"[A-Z_]+=\d+", x):
                die(f"--define {x}: not NAME=NUMBER", 2)
    elif a.define or a.before_issue_10:
        die("--define and --before-issue-10 go with --cell", 2)
    for prog in ("spin", "gcc"):
        if not shutil.which(prog):
            die(f"{prog} not found; `make deps` installs it (Debian package "
                f"{'spin' if prog == 'spin' else 'gcc'})")
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    model = Model()
    points = read_points(DELAY_H)
    ver = run(["spin", "-V"], HERE).stdout.strip()
    if a.cell:
        return one_cell(a, model, points, ver)
    if a.cycles:
        return cycles(a, model)
    t0 = time.monotonic()
    jobs = [(v, sw, c, fs) for fs in ([1] if a.quick else [1, 0])
            for v, sw in VARIANTS for c, _ in CLIENTS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        cells = list(ex.map(lambda j: run_cell(model, *j, a.keep), jobs))
    wall = time.monotonic() - t0
    for c in cells:
        if "steps" in c:
            c["schedule"] = schedule(c["steps"], points, a.delay)

    print(f"SPIN model of the import/enable protocol (model/protocol.pml; {ver})")
    missing = sorted({s["point"] for s in model.steps.values()} - set(points) - {"-"})
    if missing:
        print(f"Delay points model/steps.tsv names that this tree's SMF_POINTS lacks (issue 10 "
              f"adds them): {', '.join(missing)}")
    main_cell = next(c for c in cells if c["variant"] == "none" and
                     c["client"] == "import+enable" and c["first_sight"] == 1)
    print("\nCounter-example, variant none, client `svccfg import I && svcadm enable -s I`:")
    if main_cell["verdict"] == "violated":
        print_steps(main_cell["steps"], main_cell["schedule"])
        print("\nThe same run as an SMF_DELAY schedule:")
        print_schedule(main_cell["schedule"], points)
    else:
        print(f"  none found: {main_cell['verdict']}")
    print("\nSchedules of the other clients under none:")
    for c in cells:
        if c["variant"] == "none" and c["first_sight"] == 1 and c is not main_cell:
            s = c.get("schedule")
            line = (s["smf_delay"] or s["why"]) if s else c["verdict"]
            if s and s["smf_delay"] and s["held_point"] != s["point"]:
                line += f"   (held at {s['held_point']} once this tree has it)"
            print(f"  {c['client']:<14} {line}")

    print("\nVariant x client (verified: exhaustive search, states stored; "
          "violated: a client saw I without its restarter pg):")
    table(cells, 1)
    if not a.quick:
        print("\nThe same before issue 10 (configd announces no instance creation, startd's graph "
              "writes no first-sight pg; STARTD_FIRST_SIGHT=0):")
        table(cells, 0)
    for c in cells:
        if c["verdict"] not in ("verified", "violated"):
            print(f"  note: {c['variant']} / {c['client']}"
                  f"{'' if c['first_sight'] else ' (before issue 10)'}: {c['error']}")
    ver_cells = [c for c in cells if c["verdict"] == "verified"]
    same = sum(1 for c in cells if c.get("same_model_as"))
    print(f"\n{len(cells)} cells, {len(ver_cells)} verified; {len(cells) - same} distinct "
          f"verifiers (a switch that changes nothing for a client gives the same one); largest "
          f"{max((c['states'] for c in ver_cells), default=0)} states; "
          f"{sum(c['verify_seconds'] for c in cells):.1f} s searching, "
          f"{sum(c['compile_seconds'] for c in cells):.1f} s generating and compiling; "
          f"{wall:.1f} s wall with {a.jobs} job(s).")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"spin": ver, "points": points, "missing_points": missing,
                       "wall_seconds": round(wall, 3),
                       "jobs": a.jobs, "cells": cells}, f, indent=1)
    bad = [c for c in cells if c["verdict"] == "incomplete"]
    for c in bad:
        print(f"model: {c['variant']}/{c['client']}: search incomplete: {c['error']}",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
