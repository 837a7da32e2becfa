#!/usr/bin/env bash
# merge-crash.sh: kill `t2sbench merge` with SIGKILL at random points, merge
# again, and check that the merged run holds the items, the model calls and
# the token totals of the unsharded run, every time.
#
# Usage: scripts/merge-crash.sh [SPEC [ROUNDS [SEED]]]
#   SPEC    defaults to experiments/quickstart.yaml (sim, no server)
#   ROUNDS  defaults to 10
#   SEED    seeds the random kill delays (printed; rerun with it to repeat)
# BIN names the binary (default bin/t2sbench, built by `make build`).
# Needs the sqlite3 command line tool. Exits 1 at the first difference.
set -euo pipefail
bin=${BIN:-bin/t2sbench}
spec=${1:-experiments/quickstart.yaml}
rounds=${2:-10}
seed=${3:-$(( $(date +%s) % 32768 ))}
RANDOM=$seed
echo "seed $seed (rerun: $0 $spec $rounds $seed)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" run "$spec" --quiet --out "$work/full" >/dev/null 2>&1
for i in 1 2 3; do
	"$bin" run "$spec" --quiet --shard "$i/3" --out "$work/s$i" >/dev/null 2>&1
done

# counts prints what is compared: items by status and verdict, and the
# call log's rows, tokens and per-item calls (digested).
counts() {
	sqlite3 "$1/run.db" "
		SELECT 'items', count(*), sum(status = 'done'), sum(correct) FROM items;
		SELECT 'calls', count(*), sum(prompt_tokens), sum(completion_tokens), sum(state = 'sent') FROM model_calls;" |
		tr '\n' ' '
	sqlite3 "$1/run.db" "
		SELECT trial_id, question_id, status, correct FROM items ORDER BY 1, 2;
		SELECT trial_id, question_id, role, n, prompt_tokens, completion_tokens, state
			FROM model_calls ORDER BY 1, 2, 3, 4, 5, 6, 7;" | sha256sum | cut -c1-16
}
want=$(counts "$work/full")
echo "unsharded: $want"

# The faster of two merges bounds the kill delays.
ms=1000000
for t in timed timed2; do
	start=$(date +%s%N)
	"$bin" merge "$work/$t" "$work/s1" "$work/s2" "$work/s3" >/dev/null
	ms=$(( ms < ($(date +%s%N) - start) / 1000000 ? ms : ($(date +%s%N) - start) / 1000000 ))
done
echo "a merge takes ${ms} ms; kills fall in [0, ${ms}) ms, drawn again when the merge had ended"

fail=0
for r in $(seq 1 "$rounds"); do
	# Odd rounds merge into a new directory, even ones into the output a
	# merge already wrote.
	out="$work/m$r"
	if (( r % 2 == 0 )); then
		out="$work/timed"
	fi
	for try in $(seq 1 10); do
		delay=$(( RANDOM % ms ))
		"$bin" merge "$out" "$work/s1" "$work/s2" "$work/s3" >/dev/null 2>&1 &
		pid=$!
		sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
		killed=no
		kill -9 "$pid" 2>/dev/null && killed=yes
		wait "$pid" 2>/dev/null || true
		[[ $killed == yes ]] && break
	done
	if [[ $killed != yes ]]; then
		echo "round $r: no merge was still running at its kill"; fail=1; continue
	fi
	left="killed before or after building"
	if [[ -e "$out/.merge-tmp/run.db" ]]; then left="killed while building"; fi
	if ! "$bin" merge "$out" "$work/s1" "$work/s2" "$work/s3" >"$work/said"; then
		echo "round $r: merge after the kill failed"; fail=1; continue
	fi
	got=$(counts "$out")
	said=$(grep -o '[0-9]* items, [0-9]* model calls' "$work/said")
	verdict=equal
	if [[ "$got" != "$want" ]]; then verdict=DIFFERENT; fail=1; fi
	if ! "$bin" cache verify "$out" >/dev/null 2>&1; then verdict="$verdict, cache verify FAILED"; fail=1; fi
	echo "round $r: kill -9 at ${delay} ms (try $try) into ${out##*/}, $left; merged again: $got ($said) $verdict"
done
exit $fail
