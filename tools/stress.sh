#!/bin/bash
# stress.sh: the race harness behind `make stress` (docs/race.md).
#
# THE MODEL.  A sandbox root (mktemp, under the build tree) gets its own svc.configd and a
# svc.startd whose restarter pg write is slowed by a delay point (SMF_DELAY), to hold the race
# window open the way a loaded machine does.  N workers then loop over the work that races:
# write a fresh manifest (a service no one has seen), "svccfg import" it, "svcadm enable -s" it
# at once (tests/stress/stress-iter, which also times the window from the client).  Busy loops
# load the CPUs meanwhile.  The same work runs twice, in two phases:
#   1. SVCCFG_IMPORT_NOWAIT=1, the old import: svcadm must find an instance "misconfigured
#      (lacks "restarter" property group)" at least once: the race, reproduced;
#   2. the import wait on: not one iteration may fail.
# Phase 2 proves the fix only if phase 1 proved, on the same machine, load and delays, that the
# work does race.
#
# INVARIANTS.  Nothing outlives the run: an EXIT trap stops the workers, the load, startd and
# configd (by the pids this script started) and removes the sandbox (unless kept).  Each
# worker writes only its own files, so the counts need no lock.  Every knob that shapes the run
# is printed and written to the JSON, so a run can be compared or repeated.  The seed drives
# random delay specs (rand:A-Bms, see docs/race.md) through SMF_DELAY_SEED.
#
# THE TRACE.  Every process runs with SMF_TRACE=1 (unless --no-trace) and writes its trace file
# into $TRACE_BASE/live, on tmpfs (/dev/shm) where there is one: on ext4 the first store to
# each page of a new file waits for the journal, which halved the throughput of a phase.  After
# each phase its svccfg and svcadm files move to $TRACE_BASE/phase-N; the daemons' files span
# both phases and are hard-linked into each at the end, so that "svctrace check" of a phase
# sees exactly that phase's imports.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SANDBOX_NAME=stress
source "$here/sandbox.sh"
source "$here/../tests/stress/lib-stress.sh"

usage() {
	cat <<EOF
usage: tools/stress.sh [options] BUILD-DIR

The import/enable race, reproduced (phase 1, import wait off) and shown fixed (phase 2, wait on).
Options (each also read from the environment variable named after it; make passes them):
  -w, --workers N      parallel workers (STRESS_WORKERS; default 2 x cores = $((2 * $(nproc))))
  -s, --seconds S      length of each phase (STRESS_SECONDS; default 30)
  -n, --iterations N   iterations per worker per phase instead of a length (STRESS_ITERATIONS)
  -d, --delay SPEC     SMF_DELAY for svc.startd (STRESS_DELAY; default
                       startd.restarter.before_pg_write=20ms; "" for none)
  -l, --load N         busy processes during each phase (STRESS_LOAD; default cores = $(nproc))
      --seed N         seed for random delays (STRESS_SEED; default from the clock)
  -o, --json FILE      results (STRESS_JSON; default stress-results.json)
      --no-trace       run without the trace recorder (STRESS_TRACING=0; default: on, with
                       SMF_TRACE=1 in every process)
      --trace DIR      also copy the raw trace files there (STRESS_TRACE)
      --trace-json F   Chrome JSON trace of the first reproduction, for ui.perfetto.dev
                       (STRESS_TRACE_JSON; default trace.json)
      --report F       HTML report of the first reproduction (STRESS_REPORT; default report.html)
      --phases LIST    which phases run: "1", "2" or "1 2" (STRESS_PHASES; default "1 2");
                       benchmarks run one alone
      --stop-at-first  end phase 1 at its first reproduction (STRESS_STOP_AT_FIRST=1): the
                       time-to-first-reproduction benchmark
  -k, --keep           keep the sandbox and the workers' files (STRESS_KEEP=1)
Exit status: 0 when phase 1 reproduced the race and phase 2 had no failure; 1 otherwise.
EOF
}

workers=${STRESS_WORKERS:-$((2 * $(nproc)))}
seconds=${STRESS_SECONDS:-30}
iterations=${STRESS_ITERATIONS:-0}
delay=${STRESS_DELAY-startd.restarter.before_pg_write=20ms}
load=${STRESS_LOAD:-$(nproc)}
seed=${STRESS_SEED:-}
json=${STRESS_JSON:-stress-results.json}
trace=${STRESS_TRACE:-}
tracing=${STRESS_TRACING:-1}
trace_json=${STRESS_TRACE_JSON:-trace.json}
report=${STRESS_REPORT:-report.html}
keep=${STRESS_KEEP:-}
phases=${STRESS_PHASES:-1 2}
stop_at_first=${STRESS_STOP_AT_FIRST:-}
build=""

while [ $# -gt 0 ]; do
	case $1 in
	-w | --workers) workers=$2; shift ;;
	-s | --seconds) seconds=$2; shift ;;
	-n | --iterations) iterations=$2; shift ;;
	-d | --delay) delay=$2; shift ;;
	-l | --load) load=$2; shift ;;
	--seed) seed=$2; shift ;;
	-o | --json) json=$2; shift ;;
	--trace) trace=$2; shift ;;
	--no-trace) tracing=0 ;;
	--trace-json) trace_json=$2; shift ;;
	--report) report=$2; shift ;;
	-k | --keep) keep=1 ;;
	--phases) phases=$2; shift ;;
	--stop-at-first) stop_at_first=1 ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "stress: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) [ -z "$build" ] || { usage >&2; exit 2; }; build=$1 ;;
	esac
	shift
done
[ -n "$build" ] || { usage >&2; exit 2; }
for v in workers seconds iterations load; do
	[[ "${!v}" =~ ^[0-9]+$ ]] || { echo "stress: --$v must be a whole number, not '${!v}'" >&2; exit 2; }
done
[ "$workers" -gt 0 ] || { echo "stress: --workers must be at least 1" >&2; exit 2; }
case $phases in
"1" | "2" | "1 2") ;;
*) echo "stress: --phases must be \"1\", \"2\" or \"1 2\", not '$phases'" >&2; exit 2 ;;
esac
# has_phase N: whether phase N runs.
has_phase() { [[ " $phases " == *" $1 "* ]]; }
[ "$iterations" -gt 0 ] || [ "$seconds" -gt 0 ] ||
	{ echo "stress: --seconds or --iterations must be positive" >&2; exit 2; }
[ -n "$seed" ] || seed=$(($(now_us) % 2147483647))
[[ "$seed" =~ ^[0-9]+$ ]] || { echo "stress: --seed must be a whole number" >&2; exit 2; }

[ -z "$trace" ] || tracing=1
[ "$tracing" = 0 ] || tracing=1
[ -z "$keep" ] || SANDBOX_KEEP=always
build=$(cd "$build" && pwd)
sandbox_use_build "$build"
STRESS_ITER=$build/tests/stress/stress-iter
for p in SVC_CONFIGD SVC_STARTD SVCCFG SVCADM STRESS_ITER $([ "$tracing" = 0 ] || echo SVCTRACE); do
	[ -x "${!p}" ] || { echo "stress: ${!p} is not built (ninja -C $build)" >&2; exit 1; }
done

# ---------------------------------------------------------------------------------------------
# The sandbox and its daemons (tools/sandbox.sh: ROOT, CONFIGD_PID, STARTD_PID)

TRACE_BASE=""
LOAD_PIDS=()
WORKER_PIDS=()

# The workers and the load first, then the sandbox: startd (SIGTERM: it stops its services
# while configd still answers), configd, the sandbox and the trace files.
stress_cleanup() {
	local rc=$? p
	set +e
	for p in "${WORKER_PIDS[@]}" "${LOAD_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	sandbox_cleanup "$rc"
}

sandbox_new "$build/stress.XXXXXX"
unset SMF_DELAY SVCCFG_IMPORT_NOWAIT SVCCFG_IMPORT_TIMEOUT SMF_TRACE SMF_TRACE_DIR
if [ "$tracing" = 1 ]; then
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		sandbox_tmpdir TRACE_BASE /dev/shm/minismf-stress-trace.XXXXXX
	else
		TRACE_BASE=$ROOT/trace
	fi
	mkdir -p "$TRACE_BASE/live"
	export SMF_TRACE=1 SMF_TRACE_DIR=$TRACE_BASE/live
fi
trap stress_cleanup EXIT
echo "stress: sandbox: $ROOT"

# Both daemons get the same SMF_DELAY and seed: each acts on the points of its own (configd.*,
# startd.*) and never reaches the other's.  Their trace files span both phases, and every
# instance's worker thread in startd claims a 64 KiB page of its own: the default 256 MiB holds
# about 3,000 of them, fewer than two phases import on a fast machine.  The file is sparse, so
# only the pages used cost memory.
daemon_trace_size=$((2 << 30))
SMF_TRACE_SIZE=$daemon_trace_size SMF_DELAY_SEED=$seed SMF_DELAY=$delay sandbox_start_configd
SMF_TRACE_SIZE=$daemon_trace_size SMF_DELAY_SEED=$seed SMF_DELAY=$delay sandbox_start_startd

# ---------------------------------------------------------------------------------------------
# The phases

# busy SECONDS: one CPU kept busy, never longer than SECONDS even if nobody kills it.
busy() {
	local end=$((SECONDS + $1))
	while [ "$SECONDS" -lt "$end" ]; do :; done
}

# run_phase N: runs the workers (and the load) of phase N; its files go to $ROOT/phase-N.
run_phase() {
	local n=$1 dir="$ROOT/phase-$1" t0 end k rc=0 bound
	mkdir -p "$dir"
	# The load outlives no phase: killed when the workers are done, bounded in case it is not.
	bound=$([ "$iterations" -gt 0 ] && echo 600 || echo $((seconds + 60)))
	for ((k = 0; k < load; k++)); do
		busy "$bound" &
		LOAD_PIDS+=($!)
	done
	t0=$(now_us)
	end=$((t0 + seconds * 1000000))
	for ((k = 0; k < workers; k++)); do
		stress_worker "$n" "$k" "$dir" "$t0" "$end" "$iterations" &
		WORKER_PIDS+=($!)
	done
	for k in "${WORKER_PIDS[@]}"; do
		wait "$k" || rc=1
	done
	WORKER_PIDS=()
	echo $(($(now_us) - t0)) >"$dir/elapsed_us"
	# The phase's own trace files: its svccfg and svcadm processes (the daemons' files span
	# both phases and are linked in at the end).
	if [ "$tracing" = 1 ]; then
		mkdir -p "$TRACE_BASE/phase-$n"
		find "$TRACE_BASE/live" -maxdepth 1 \( -name 'svccfg.*.trace' -o \
			-name 'svcadm.*.trace' \) -exec mv -t "$TRACE_BASE/phase-$n" {} +
	fi
	for k in "${LOAD_PIDS[@]}"; do
		kill -KILL "$k" 2>/dev/null || true
		wait "$k" 2>/dev/null || true
	done
	LOAD_PIDS=()
	[ "$rc" -eq 0 ] || { echo "stress: a worker of phase $n could not run; see above" >&2; exit 1; }
}

echo "stress: $workers workers, $([ "$iterations" -gt 0 ] && echo "$iterations iterations each" ||
	echo "${seconds} s") per phase, load $load, delay '${delay}', seed $seed"
echo "stress: knobs: tools/stress.sh --help (make stress STRESS_ARGS=--help), docs/race.md"
if has_phase 1; then
	echo "stress: phase 1: SVCCFG_IMPORT_NOWAIT=1 (the race must show)"
	# With --stop-at-first, the first worker to see the race creates the stop file and the
	# others end after their current iteration.
	SVCCFG_IMPORT_NOWAIT=1 STRESS_STOP_FILE=${stop_at_first:+$ROOT/phase-1/stop} run_phase 1
fi
if has_phase 2; then
	echo "stress: phase 2: the import wait on (no iteration may fail)"
	run_phase 2
fi

# ---------------------------------------------------------------------------------------------
# The report

declare -A S1 S2
summary_into() {
	local -n into=$1
	local kv
	for kv in $(stress_summary "$2"); do
		into[${kv%%=*}]=${kv#*=}
	done
	into['elapsed_us']=$(cat "$2/elapsed_us")
}
! has_phase 1 || summary_into S1 "$ROOT/phase-1"
! has_phase 2 || summary_into S2 "$ROOT/phase-2"

# trace_check N: svctrace check over phase N's trace (its CLI files and the daemons' files) into
# phase-N/check.json, and its figures into T<N>: imports that returned before their restarter pg
# existed (latent), svcadm reads that found none (manifested), and the windows (µs).
declare -A T1 T2
trace_check() {
	local n=$1 dir="$ROOT/phase-$1" rc=0 kv
	local -n into=T$1
	ln -f "$TRACE_BASE"/live/svc.configd.*.trace "$TRACE_BASE"/live/svc.startd.*.trace \
		"$TRACE_BASE/phase-$n/"
	"$SVCTRACE" check --json "$TRACE_BASE/phase-$n" >"$dir/check.json" 2>"$dir/check.err" || rc=$?
	if [ "$rc" -gt 1 ] || ! jq -e .summary "$dir/check.json" >/dev/null 2>&1; then
		echo "stress: svctrace check of phase $n failed (exit $rc): $(cat "$dir/check.err")" >&2
		exit 1
	fi
	# Lost events or strings (a file filled up) make windows unreliable: say it loudly.
	[ ! -s "$dir/check.err" ] || sed 's/^/stress: phase '"$n"': /' "$dir/check.err" >&2
	for kv in $(jq -r '. as $r | [.findings[] | select(.latent_window_us != null) | .latent_window_us]
		| sort as $w | ($w | length) as $m
		| def pct(p): if $m == 0 then -1 else $w[((($m - 1) * p) + 0.5) | floor] | floor end;
		"latent=\($m)",
		"manifested=\([$r.findings[] | select(.kind == "manifested")] | length)",
		"open=\([$r.findings[] | select(.open)] | length)",
		"imported=\($r.summary.imported)", "drops=\($r.summary.drops)",
		"p50_us=\(pct(0.5))", "p99_us=\(pct(0.99))", "max_us=\(if $m == 0 then -1 else $w[-1] | floor end)"
		' "$dir/check.json"); do
		into[${kv%%=*}]=${kv#*=}
	done
	# Trace conformance (docs/model.md): every instance the phase created must be a run the
	# SPIN model allows; what does not is printed and fails the run.
	rc=0
	"$SVCTRACE" conform --json "$TRACE_BASE/phase-$n" >"$dir/conform.json" 2>"$dir/conform.err" ||
		rc=$?
	if [ "$rc" -gt 1 ] || ! jq -e .summary "$dir/conform.json" >/dev/null 2>&1; then
		echo "stress: svctrace conform of phase $n failed (exit $rc): $(cat "$dir/conform.err")" >&2
		exit 1
	fi
	for kv in $(jq -r '.summary | "conform=\(.conform)", "nonconforming=\(.nonconforming)",
		"checked=\(.checked)"' "$dir/conform.json"); do
		into[${kv%%=*}]=${kv#*=}
	done
	echo "stress: phase $n: ${into[conform]} of ${into[checked]} instances conform to the model" \
		"(svctrace conform)"
	[ "${into[nonconforming]}" -eq 0 ] || "$SVCTRACE" conform "$TRACE_BASE/phase-$n" >&2 || true
	local -n iters=S$1
	[ "${into[imported]}" -eq "${iters[iterations]}" ] ||
		echo "stress: phase $n: warning: the trace holds ${into[imported]} imports of" \
			"${iters[iterations]} iterations; its counts cover only those" >&2
}
if [ "$tracing" = 1 ]; then
	! has_phase 1 || trace_check 1
	! has_phase 2 || trace_check 2
fi

# ms US: microseconds as milliseconds with 3 decimals, "-" when unknown (< 0).
ms() { [ "$1" -lt 0 ] && echo - || printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
rate() { [ "$2" -gt 0 ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", 100 * a / b }' || echo -; }
first() { [ "$1" -lt 0 ] && echo - || printf '%d.%03d s' $(($1 / 1000000)) $(($1 / 1000 % 1000)); }

# row S T LABEL: a phase's line; latent and windows from the trace T when there is one.
row() {
	local src=$2
	[ "$tracing" = 1 ] || src=$1
	local -n s=$1 w=$src
	printf '%-12s %10d %9d %6s %6s %11s %7d %10s %10s %10s\n' "$3" "${s[iterations]}" \
		"${s[failures]}" "${s[race]}" "$(rate "${s[failures]}" "${s[iterations]}")" \
		"$(first "${s[first_us]}")" "${w[latent]}" "$(ms "${w[p50_us]}")" \
		"$(ms "${w[p99_us]}")" "$(ms "${w[max_us]}")"
}

echo
if [ "$tracing" = 1 ]; then
	echo "latent: imports that returned before the restarter pg existed; window: from that return to"
	echo "the pg's creation in svc.configd (both from the trace, svctrace check)"
else
	echo "latent and window: as seen by the client (stress-iter), the trace recorder was off"
fi
printf '%-12s %10s %9s %6s %6s %11s %7s %10s %10s %10s\n' phase iterations failures race rate \
	"first repro" latent "window p50" "p99 (ms)" "max (ms)"
! has_phase 1 || row S1 T1 "1 no wait"
! has_phase 2 || row S2 T2 "2 wait"
echo

# The first reproduction, for the report: which instance, what svcadm said.
first_fmri="" first_msg=""
f=""
! has_phase 1 || f="$ROOT/phase-1/w${S1[first_worker]}.race"
if [ -n "$f" ] && [ "${S1[race]}" -gt 0 ] && [ -e "$f" ]; then
	first_fmri=$(head -n 1 "$f")
	first_msg=$(sed -n 2p "$f")
	echo "stress: first reproduction: $first_msg"
fi
for n in 1 2; do
	for f in "$ROOT/phase-$n"/w*.other; do
		[ -e "$f" ] || continue
		echo "stress: phase $n: other failure: $(head -n 1 "$f"): $(tail -n +2 "$f" | head -n 5)" >&2
	done
done

# The trace and the report of the first reproduction (or, without one, of the first finding),
# from the whole phase: trace.json keeps the instance's span +-20% (svctrace export --fmri), so
# it shows what else ran in the window without the megabytes of the rest of the run.
trace_outputs() {
	local dir="$TRACE_BASE/phase-1" focus=() fmri=$first_fmri
	[ -d "$dir" ] || dir="$TRACE_BASE/phase-2"
	[ -n "$fmri" ] || [ ! -s "$ROOT/phase-1/check.json" ] ||
		fmri=$(jq -r '.findings[0].fmri // empty' "$ROOT/phase-1/check.json")
	[ -z "$fmri" ] || focus=(--fmri "$fmri")
	"$SVCTRACE" export "$dir" "${focus[@]}" -o "$trace_json" ||
		{ echo "stress: svctrace export failed" >&2; exit 1; }
	"$SVCTRACE" html "$dir" "${focus[@]}" -o "$report" ||
		{ echo "stress: svctrace html failed" >&2; exit 1; }
	echo "stress: trace of the first reproduction: $trace_json (open it in ui.perfetto.dev)"
	echo "stress: its report: $report"
}

trace_files=0
if [ "$tracing" = 1 ]; then
	trace_outputs
	if [ -n "$trace" ]; then
		mkdir -p "$trace"
		for n in 1 2; do
			[ -d "$TRACE_BASE/phase-$n" ] || continue
			mkdir -p "$trace/phase-$n"
			cp -a "$TRACE_BASE/phase-$n/." "$trace/phase-$n/"
		done
		trace_files=$(find "$trace" -type f | wc -l)
		echo "stress: $trace_files trace files copied to $trace (phase-1/, phase-2/)"
	fi
fi

# trace_json T: a phase's figures from the trace, or null when the recorder was off.
trace_json() {
	local -n t=$1
	[ "$tracing" = 1 ] || { echo null; return; }
	jq -n --argjson latent "${t[latent]}" --argjson manifested "${t[manifested]}" \
		--argjson open "${t[open]}" --argjson imported "${t[imported]}" \
		--argjson drops "${t[drops]}" --argjson p50 "${t[p50_us]}" --argjson p99 "${t[p99_us]}" \
		--argjson max "${t[max_us]}" --argjson checked "${t[checked]}" \
		--argjson conform "${t[conform]}" --argjson nonconforming "${t[nonconforming]}" '{
		imported: $imported, latent: $latent, manifested: $manifested, open: $open,
		drops: $drops,
		conformance: {checked: $checked, conform: $conform, nonconforming: $nonconforming},
		window_us: (if $p50 < 0 then null else {p50: $p50, p99: $p99, max: $max} end) }'
}

# phase_json S T MODE: one phase; latent and window_us are the client's view (stress-iter),
# trace the recorder's (svctrace check).
phase_json() {
	local -n s=$1
	jq -n --arg mode "$3" --argjson n "${s[iterations]}" --argjson f "${s[failures]}" \
		--argjson trace "$(trace_json "$2")" \
		--argjson race "${s[race]}" --argjson other "${s[other]}" --argjson latent "${s[latent]}" \
		--argjson first "${s[first_us]}" --argjson fiter "${s[first_iter]}" \
		--argjson p50 "${s[p50_us]}" --argjson p99 "${s[p99_us]}" --argjson max "${s[max_us]}" \
		--argjson el "${s[elapsed_us]}" '{
		import: $mode, iterations: $n, failures: $f, race: $race, other: $other,
		failure_rate: (if $n > 0 then $f / $n else null end),
		first_reproduction_us: (if $first < 0 then null else $first end),
		first_reproduction_iteration: (if $fiter < 0 then null else $fiter end),
		latent: $latent,
		window_us: (if $p50 < 0 then null else {p50: $p50, p99: $p99, max: $max} end),
		trace: $trace, elapsed_us: $el }'
}

jq -n --argjson workers "$workers" --argjson seconds "$seconds" --argjson iterations "$iterations" \
	--arg delay "$delay" --argjson load "$load" --argjson seed "$seed" --arg trace "$trace" \
	--arg phases "$phases" --arg stop "${stop_at_first:+1}" \
	--argjson trace_files "$trace_files" --arg fmri "$first_fmri" --arg msg "$first_msg" \
	--arg root "$ROOT" --argjson configd "$CONFIGD_PID" --argjson startd "$STARTD_PID" \
	--argjson p1 "$(has_phase 1 && phase_json S1 T1 nowait || echo null)" \
	--argjson p2 "$(has_phase 2 && phase_json S2 T2 wait || echo null)" \
	--arg trace_json "$([ "$tracing" = 0 ] || echo "$trace_json")" \
	--arg report "$([ "$tracing" = 0 ] || echo "$report")" '{
	knobs: {workers: $workers, seconds: (if $iterations > 0 then null else $seconds end),
		iterations: (if $iterations > 0 then $iterations else null end), delay: $delay,
		load: $load, seed: $seed, seed_used: ($delay | contains("rand:")),
		phases: ($phases | split(" ") | map(tonumber)), stop_at_first: ($stop == "1")},
	phases: [$p1, $p2],
	first_reproduction: (if $fmri == "" then null else {fmri: $fmri, message: $msg} end),
	trace: (if $trace_json == "" then null else {json: $trace_json, report: $report,
		raw: (if $trace == "" then null else {dir: $trace, files: $trace_files} end)} end),
	sandbox: $root, pids: {configd: $configd, startd: $startd},
	ok: (($p1 == null or ($p1.race > 0 and $p1.other == 0)) and
	     ($p2 == null or ($p2.failures == 0 and ($p2.trace == null or $p2.trace.latent == 0))) and
	     ([$p1, $p2] | map(select(. != null and .trace != null) | .trace.conformance.nonconforming)
	      | add // 0) == 0) }' \
	>"$json"
echo "stress: results in $json"

status=0
if has_phase 1 && [ "${S1[race]}" -eq 0 ]; then
	echo "stress: FAIL: phase 1 did not reproduce the race (more load, workers or delay?)" >&2
	status=1
fi
if has_phase 1 && [ "${S1[other]}" -ne 0 ]; then
	echo "stress: FAIL: phase 1 had ${S1[other]} failures other than the race" >&2
	status=1
fi
if has_phase 2 && [ "$tracing" = 1 ] && [ "${T2[latent]}" -ne 0 ]; then
	echo "stress: FAIL: with the wait on, the trace shows ${T2[latent]} imports that returned" \
		"before their restarter pg existed (svctrace check $TRACE_BASE/phase-2, with --keep)" >&2
	status=1
fi
for n in 1 2; do
	has_phase "$n" && [ "$tracing" = 1 ] || continue
	declare -n tn=T$n
	if [ "${tn[nonconforming]}" -ne 0 ]; then
		echo "stress: FAIL: phase $n: ${tn[nonconforming]} instances do not conform to the model" \
			"(svctrace conform $TRACE_BASE/phase-$n, with --keep)" >&2
		status=1
	fi
	unset -n tn
done
if has_phase 2 && [ "${S2[failures]}" -ne 0 ]; then
	echo "stress: FAIL: phase 2 (the import wait on) had ${S2[failures]} failures" >&2
	status=1
fi
if [ "$status" -eq 0 ]; then
	case $phases in
	"1 2") echo "stress: OK: the race reproduced without the wait, never with it" ;;
	1) echo "stress: OK: the race reproduced without the wait" ;;
	2) echo "stress: OK: no failure with the wait" ;;
	esac
fi
exit "$status"
