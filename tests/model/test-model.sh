#!/bin/bash
# The model test (docs/model.md): SPIN over model/protocol.pml, in tools/model.sh's quick mode.
#   - variant none: every client kind is violated, and the counter-example's SMF_DELAY schedule
#     names delay points of this tree (lib/include/smf/delay.h);
#   - each fix: verified, by an exhaustive search with a state count, for exactly the client
#     kinds it closes, and still violated for the others (the model shows which windows stay);
#   - properties (2) and (3) can fail: a deliberate bug in each is caught;
#   - each queue bound is the smallest that holds (one less overflows in some cell);
#   - every delay point model/steps.tsv names is one of this tree's SMF_POINTS, and the
#     printed table lists none as missing.
# No spin: a failure that says to run `make deps`, never a silent pass.
# usage: test-model.sh SOURCE-ROOT
set -u
SRC=${1:?usage: test-model.sh SOURCE-ROOT}

fail() {
	echo "test-model: $*" >&2
	exit 1
}

command -v spin >/dev/null 2>&1 ||
	fail "spin is not installed: run 'make deps' (it installs the Debian package spin)"
command -v gcc >/dev/null 2>&1 || fail "gcc is not installed: run 'make deps'"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/test-model.XXXXXX") || fail "mktemp"
trap 'rm -rf "$OUT"' EXIT

start=$(date +%s%N)
"$SRC/tools/model.sh" --quick --json "$OUT/model.json" >"$OUT/out" 2>"$OUT/err" ||
	fail "tools/model.sh --quick failed: $(cat "$OUT/err")"
cat "$OUT/out"
echo "test-model: tools/model.sh --quick took $((($(date +%s%N) - start) / 1000000)) ms"
grep -q "^  SMF_DELAY='" "$OUT/out" || fail "no SMF_DELAY schedule printed"
grep -q "VIOLATION" "$OUT/out" || fail "no violation in the printed counter-example"

cell() { # NAME VARIANT CLIENT DEFINE: one search, its JSON in $OUT/NAME.json
	"$SRC/tools/model.sh" --cell "$2" "$3" --define "$4" --json "$OUT/$1.json" >/dev/null \
		2>"$OUT/err" || fail "tools/model.sh --cell $2 $3 --define $4 failed: $(cat "$OUT/err")"
}
cell mutant1 import-wait import+enable MUTANT=1
cell mutant2 import-wait import+enable MUTANT=2
# The queue bounds are the smallest that hold: one less overflows in some cell.
cell bound-nq_startd configd-eager import+enable NQ_STARTD=3
cell bound-graph_q configd-eager import+enable GRAPH_Q=3
cell bound-inst_q configd-eager import+enable RESTARTER_Q=2
cell bound-nq_cmd svcadm-wait import+enable NQ_CMD=4

grep -q "SMF_POINTS lacks" "$OUT/out" && fail "the table lists delay points SMF_POINTS lacks"

python3 - "$OUT" "$SRC/lib/include/smf/delay.h" "$SRC/model/steps.tsv" <<'PY' || exit 1
import json, re, sys

out, delay_h, steps_tsv = sys.argv[1], sys.argv[2], sys.argv[3]
points = re.findall(r'X\(SMF_POINT_\w+,\s*"([^"]+)"', open(delay_h).read())
cells = json.load(open(f"{out}/model.json"))["cells"]
clients = ["import+enable", "add+enable", "import+svcs", "add+svcs"]
# Which client kinds each variant closes (docs/model.md, "The table"): written here, not
# taken from the script under test.
closes = {
    "none": [],
    "import-wait": ["import+enable", "import+svcs"],
    "add-wait": ["add+enable", "add+svcs"],
    "svcadm-wait": ["import+enable", "add+enable"],
    "configd-eager": clients,
    "default": clients,
}
bad = []
# Every point a step names exists: a schedule may name any of them.
for line in open(steps_tsv):
    if line.startswith("#") or not line.strip():
        continue
    cols = line.rstrip("\n").split("\t")
    if cols[4] != "-" and cols[4] not in points:
        bad.append(f"steps.tsv: {cols[0]} names the delay point {cols[4]}, not in SMF_POINTS")
seen = set()
for c in cells:
    v, k = c["variant"], c["client"]
    seen.add((v, k))
    want = "verified" if k in closes[v] else "violated"
    if c["verdict"] != want:
        bad.append(f"{v} / {k}: {c['verdict']} ({c.get('error', '')}), expected {want}")
    if want == "verified" and not (c["states"] or 0) > 0:
        bad.append(f"{v} / {k}: verified with no state count")
    if v == "none":
        s = c.get("schedule") or {}
        if not s.get("smf_delay"):
            bad.append(f"none / {k}: no SMF_DELAY schedule ({s.get('why', 'no trail')})")
        else:
            for entry in s["smf_delay"].split(","):
                name, _, spec = entry.partition("=")
                if name not in points:
                    bad.append(f"none / {k}: schedule names {name}, not in SMF_POINTS {points}")
                if not re.fullmatch(r"\d+(us|ms|s)", spec):
                    bad.append(f"none / {k}: schedule delay {spec!r} is not fixed")
missing = {(v, k) for v in closes for k in clients} - seen
if missing:
    bad.append(f"cells not searched: {sorted(missing)}")
m1 = json.load(open(f"{out}/mutant1.json"))["cells"][0]
if not (m1["verdict"] == "error" and "method_failed" in m1.get("error", "")):
    bad.append(f"MUTANT=1 (a success recorded as maintenance) not caught: {m1['verdict']}")
m2 = json.load(open(f"{out}/mutant2.json"))["cells"][0]
if m2["verdict"] != "deadlock":
    bad.append(f"MUTANT=2 (START never queued: enable -s waits forever) not caught: "
               f"{m2['verdict']}")
for q in ["nq_startd", "graph_q", "inst_q", "nq_cmd"]:
    b = json.load(open(f"{out}/bound-{q}.json"))["cells"][0]
    if not (b["verdict"] == "error" and f"q_full({q}" in b.get("error", "")):
        bad.append(f"{q} one smaller than its bound: {b['verdict']} {b.get('error', '')}, "
                   "expected an overflow: the bound is not the smallest")
for b in bad:
    print("test-model:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "test-model: ok"
