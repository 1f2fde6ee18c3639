# lib-stress.sh: the pieces of tools/stress.sh that know about the work itself (sourced, bash):
# the manifest of one iteration, the worker loop, and the summary of a phase.
#
# One iteration = one fresh service, imported, then enabled with "svcadm enable -s" at once
# (tests/stress/stress-iter does both and times the window).  A worker appends one line per
# iteration to its own file, so workers never share a file and need no lock:
#
#   ITER  START_US  END_US  CLASS  IMPORT_RC  ENABLE_RC  IMPORT_US  WINDOW_US  IMPORT_PID  ENABLE_PID
#
# START_US and END_US are microseconds since the phase began; IMPORT_US is when the import
# returned, after START_US (the race is decided then: svcadm's read comes right after); CLASS is "ok", "race" (svcadm exit 3 with the
# misconfigured message: the race manifested) or "other" (any other failure); WINDOW_US is the
# race window seen from the client (0: closed when the import returned, -1: unknown).  The pids
# of svccfg and svcadm name their trace files (svccfg.<pid>.trace) when tracing is on.

STRESS_RACE_MSG='is misconfigured (lacks "restarter" property group).'

now_us() { echo "${EPOCHREALTIME/./}"; }

# stress_manifest NAME: svc:/stress/NAME:default (tests/manifests.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../manifests.sh"
stress_manifest() { transient_manifest "stress/$1" "stress-$1"; }

# stress_classify IMPORT_RC ENABLE_RC STDERR-FILE
stress_classify() {
	if [ "$1" -eq 0 ] && [ "$2" -eq 0 ]; then
		echo ok
	elif [ "$2" -eq 3 ] && grep -qF -- "$STRESS_RACE_MSG" "$3"; then
		echo race
	else
		echo other
	fi
}

# stress_more I MAX END_US: whether a worker that ran I iterations goes on (never once
# $STRESS_STOP_FILE, when set, exists).
stress_more() {
	if [ -n "${STRESS_STOP_FILE:-}" ] && [ -e "$STRESS_STOP_FILE" ]; then
		return 1
	elif [ "$2" -gt 0 ]; then
		[ "$1" -lt "$2" ]
	else
		[ "$(now_us)" -lt "$3" ]
	fi
}

# stress_worker PHASE K DIR T0_US END_US MAX_ITER: loops until END_US (microseconds, absolute)
# or MAX_ITER iterations (0: no limit).  Needs STRESS_ITER, SVCCFG, SVCADM and SMF_ROOT.  Keeps
# the stderr of its first race and of its first other failure in DIR for the report.
stress_worker() {
	local phase=$1 k=$2 dir=$3 t0=$4 end=$5 max=$6
	local i=0 name mf err out cls import_rc enable_rc import_us window start import_pid enable_pid
	err="$dir/w$k.err"
	mf="$dir/w$k.xml"
	while stress_more "$i" "$max" "$end"; do
		i=$((i + 1))
		name="p${phase}w${k}i$i"
		stress_manifest "$name" >"$mf"
		start=$(($(now_us) - t0))
		if ! out=$("$STRESS_ITER" "svc:/stress/$name:default" "$mf" "$SVCCFG" "$SVCADM" 2>"$err"); then
			echo "stress: worker $k: iteration $i could not run: $(cat "$err")" >&2
			return 1
		fi
		# out: import=RC enable=RC import_us=N window_us=N import_pid=P enable_pid=P
		read -r import_rc enable_rc import_us window import_pid enable_pid \
			<<<"$(sed -E 's/[a-z_]+=//g' <<<"$out")"
		cls=$(stress_classify "$import_rc" "$enable_rc" "$err")
		printf '%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n' "$i" "$start" $(($(now_us) - t0)) \
			"$cls" "$import_rc" "$enable_rc" "$import_us" "$window" "$import_pid" \
			"$enable_pid" >>"$dir/w$k.tsv"
		[ "$cls" != race ] || [ -z "${STRESS_STOP_FILE:-}" ] || : >"$STRESS_STOP_FILE"
		if [ "$cls" != ok ] && [ ! -e "$dir/w$k.$cls" ]; then
			{
				echo "svc:/stress/$name:default"
				cat "$err"
			} >"$dir/w$k.$cls"
		fi
	done
}

# stress_summary DIR: one line of key=value pairs for the phase whose worker files are in DIR:
# iterations, failures (race + other), race, other, latent (window > 0), first_us (when the
# import of the first race returned, -1: none), first_iter and first_worker (whose iteration it
# was), windows p50/p99/max in µs over the iterations whose window is known (-1: none).
stress_summary() {
	local files=("$1"/w*.tsv)
	[ -e "${files[0]}" ] || files=(/dev/null)
	awk -F'\t' '
		BEGIN { first = -1; fi = -1; fw = -1 }
		{ n++ }
		$4 == "race" {
			race++
			if (first < 0 || $2 + $7 < first) {
				first = $2 + $7; fi = $1; fw = FILENAME
				sub(/.*\/w/, "", fw); sub(/\.tsv$/, "", fw)
			}
		}
		$4 == "other" { other++ }
		$8 > 0 { latent++ }
		END {
			printf "iterations=%d failures=%d race=%d other=%d latent=%d ", n, race + other,
				race, other, latent
			printf "first_us=%d first_iter=%d first_worker=%d ", first, fi, fw
		}' "${files[@]}"
	cut -f8 "${files[@]}" | awk '$1 >= 0' | sort -n | awk '
		{ w[m++] = $1 }
		function pct(p) { return m ? w[int((m - 1) * p + 0.5)] : -1 }
		END { printf "p50_us=%d p99_us=%d max_us=%d\n", pct(0.5), pct(0.99), m ? w[m - 1] : -1 }'
}
