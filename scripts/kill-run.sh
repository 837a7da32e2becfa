#!/usr/bin/env bash
# kill-run.sh: kill `t2sbench run` with SIGKILL at random points, resume it
# each time, and check that the run ends as an uninterrupted run does.
#
# Usage: scripts/kill-run.sh [SPEC [KILLS [SEED]]]
#   SPEC    defaults to experiments/quickstart.yaml (sim, no server)
#   KILLS   defaults to 21
#   SEED    seeds the random kill delays (printed; rerun with it to repeat)
# BIN names the binary (default: built from this checkout into the work
# directory). Needs the sqlite3 command line tool.
#
# An uninterrupted run (--out a temporary directory) gives the expected
# verdicts and the run's span. The killed run is then started in another
# temporary directory, killed with SIGKILL after a delay drawn uniformly
# over the time its remaining items are expected to take (the span times
# the share of items not yet committed, plus the start-up), and started
# again, KILLS times: a kill that finds the run already ended is drawn
# again; a run that ends before all its kills is checked and the next
# kills fall on a new run directory. After each kill the script checks
#   - every item committed (done or failed) when the killed session
#     started, which includes every item the kill before it left, is in
#     the store after the kill with the same status and verdict, byte for
#     byte (the last resume is checked so too);
#   - no trial and question has two rows (items, results);
# and when a run directory ends, that its items, statuses and verdicts
# (timings left out) are the uninterrupted run's. A kill landed "while
# writing" when the killed session had recorded itself in the store
# (sessions): after it committed a batch of items (BatchItems or
# BatchWait: the items count grew), or in its first, open batch, which
# the kill loses; "at the run's end" once every item was committed;
# "in start-up" before the session was recorded. Exits 1 at any
# difference.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
spec=${1:-experiments/quickstart.yaml}
kills=${2:-21}
seed=${3:-$(($(date +%s) % 32768))}
RANDOM=$seed
echo "seed $seed (rerun: $0 $spec $kills $seed)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=${BIN:-}
if [[ -z $bin ]]; then
	bin=$work/t2sbench
	go build -o "$bin" ./cmd/t2sbench
fi

# verdicts prints every item's trial, question, status, correctness and
# verdict without its timings (pred_ms, gold_ms vary from run to run).
verdicts() {
	sqlite3 "$1/run.db" "SELECT trial_id, question_id, status, correct, json_remove(verdict, '$.pred_ms', '$.gold_ms')
		FROM items ORDER BY 1, 2"
}
# committed prints the items committed (done or failed) with their whole
# verdicts.
committed() {
	[[ -f $1/run.db ]] || return 0
	sqlite3 "$1/run.db" "SELECT trial_id, question_id, status, verdict FROM items
		WHERE status IN ('done', 'failed')" | sort
}
# dups prints the trial and question pairs with more than one row.
dups() {
	[[ -f $1/run.db ]] || return 0
	sqlite3 "$1/run.db" "SELECT 'items', trial_id, question_id, count(*) FROM items GROUP BY 2, 3 HAVING count(*) > 1;
		SELECT 'results', trial_id, question_id, count(*) FROM results GROUP BY 2, 3 HAVING count(*) > 1"
}
count() {
	[[ -f $1/run.db ]] || { echo 0; return; }
	sqlite3 "$1/run.db" "SELECT count(*) FROM items WHERE status IN ('done', 'failed')"
}
sessions() {
	[[ -f $1/run.db ]] || { echo 0; return; }
	sqlite3 "$1/run.db" "SELECT count(*) FROM sessions"
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

start=$(now_ms)
"$bin" run "$spec" --quiet --out "$work/ref" >/dev/null 2>&1
span=$(($(now_ms) - start))
total=$(count "$work/ref")
verdicts "$work/ref" >"$work/want"
echo "uninterrupted run: $total items in ${span} ms; verdicts $(sha256sum <"$work/want" | cut -c1-16)"

fail=0
gen=1
out=$work/run$gen
committed_kills=0 batch_kills=0 end_kills=0 startup=0 redrawn=0 runs_checked=0

# check_end RUN: the ended run's verdicts against the uninterrupted run's.
check_end() {
	verdicts "$1" >"$work/got"
	runs_checked=$((runs_checked + 1))
	if cmp -s "$work/want" "$work/got"; then
		echo "  ${1##*/} ended: $(wc -l <"$work/got") items, verdicts identical to the uninterrupted run's"
	else
		echo "  ${1##*/} ended: verdicts DIFFER from the uninterrupted run's:"
		diff "$work/want" "$work/got" | head -20
		fail=1
	fi
}

k=0
# next_dir checks the run directory that ended and moves the next kills
# to a new one.
next_dir() {
	check_end "$out"
	gen=$((gen + 1))
	out=$work/run$gen
}

while ((k < kills)); do
	before=$(count "$out")
	sess=$(sessions "$out")
	committed "$out" >"$work/seen"
	if ((before == total)); then
		# Every item is committed: the run is resumed to its end (no
		# kill), checked, and the next kills fall on a new directory.
		if ! "$bin" run "$spec" --quiet --out "$out" >/dev/null 2>&1; then
			echo "  the resume of ${out##*/} with every item committed failed"
			fail=1
		fi
		next_dir
		continue
	fi
	# The delay is drawn over what is left of the run: its share of items
	# not yet committed, plus a fifth of the span for the start-up.
	left=$((span * (total - before) / total + span / 5))
	delay=$((RANDOM * 32768 + RANDOM))
	delay=$((delay % left))
	"$bin" run "$spec" --quiet --out "$out" >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill -9 "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" 2>/dev/null || rc=$?
	if ((rc != 137)); then
		# The run ended before the kill: drawn again, on a new run
		# directory once this one is checked.
		redrawn=$((redrawn + 1))
		if ((rc != 0)); then
			echo "  run into ${out##*/} exited $rc"
			fail=1
		fi
		next_dir
		continue
	fi
	k=$((k + 1))
	after=$(count "$out")
	if ((after == total)); then
		where="at the run's end, after the session committed its last $((after - before)) items"
		end_kills=$((end_kills + 1))
	elif ((after > before)); then
		where="while writing, after the session committed $((after - before)) items ($((total - after)) left)"
		committed_kills=$((committed_kills + 1))
	elif (($(sessions "$out") > sess)); then
		where="while writing, in the session's first batch (lost: its items are pending)"
		batch_kills=$((batch_kills + 1))
	else
		where="in start-up (before the session was recorded)"
		startup=$((startup + 1))
	fi
	# What the kill left must hold every item committed before the
	# session started, unchanged (the items the session committed are
	# checked at the next kill, or at the last resume).
	seen=$(wc -l <"$work/seen")
	committed "$out" >"$work/now"
	lost=$(comm -23 "$work/seen" "$work/now" | wc -l)
	d=$(dups "$out")
	status="kept all $seen items committed before, no duplicate row"
	if ((lost > 0)); then
		status="LOST OR CHANGED $lost of $seen items committed before"
		comm -23 "$work/seen" "$work/now" | head -5
		fail=1
	fi
	if [[ -n $d ]]; then
		status="$status; DUPLICATE rows: $d"
		fail=1
	fi
	echo "kill $k at ${delay} ms of ${left} ms into ${out##*/}: $where; $status"
done

# The last run directory is resumed to its end.
committed "$out" >"$work/seen"
if ! "$bin" run "$spec" --quiet --out "$out" >/dev/null 2>&1; then
	echo "  the last resume into ${out##*/} failed"
	fail=1
fi
committed "$out" >"$work/now"
if [[ -n $(comm -23 "$work/seen" "$work/now") ]]; then
	echo "  the last resume LOST OR CHANGED committed items"
	fail=1
fi
if [[ -n $(dups "$out") ]]; then
	echo "  DUPLICATE rows in ${out##*/}: $(dups "$out")"
	fail=1
fi
check_end "$out"
echo "summary: $kills kills: $((committed_kills + batch_kills)) landed while the run was writing its store ($committed_kills after the session had committed a batch, $batch_kills in its first, open batch), $end_kills at the run's end (every item committed), $startup in start-up; $redrawn drawn again (the run had ended); $runs_checked run directories ended with the uninterrupted run's verdicts checked: $([[ $fail == 0 ]] && echo all identical, no duplicate, no committed item lost || echo FAILURES above)"
exit $fail
