#!/usr/bin/env bash
# bench-store.sh: peak memory and time of reading a run store as it grows.
#
# Writes two synthetic run stores (scripts/genstore, internal/synthstore:
# trials of 1,000 questions cycling direct, cot, sc, steinersql, react-dsl,
# alphasql and iesr; search items with TRACE_KB (default 48) KB of trace
# and 40-75 calls),
# of SMALL and LARGE items (default 20,000 and 200,000), then measures
# peak RSS, wall time and CPU time of
#   status           t2sbench status DIR (the same code as the summary `run`
#                    prints when it ends or is re-opened: runstore.SummarizeDir)
#   report           t2sbench report DIR --no-view (every table and plot)
#   report+view      t2sbench report DIR (the tables, plots and the static
#                    HTML viewer: viewer.Open's index, then one file per
#                    question)
#   export           t2sbench export DIR --trial T --format F for F in
#                    spider-sql, bird-json and jsonl (the figure is the
#                    largest of the three): the synthetic benchmark has no
#                    data to load, so each reads the run and its trial's
#                    items and stops at the benchmark with an error (what
#                    grows with the run is the read; the benchmark is the
#                    same at both sizes)
#   export-item      t2sbench export DIR --trial T --question ID (one
#                    item whole, as JSON)
# and prints each figure at both sizes with the LARGE/SMALL ratio.
#
#   scripts/bench-store.sh                  # 20k and 200k items
#   SMALL=2000 LARGE=20000 scripts/bench-store.sh
#   WORK=/var/tmp/t2s-bench scripts/bench-store.sh   # keeps the stores there
#   TRACE_KB=16 scripts/bench-store.sh      # smaller traces, faster to write
#   BEFORE=/tmp/old/t2sbench scripts/bench-store.sh  # also measures another
#                                           # build, and diffs its reports
#
# With BEFORE (a t2sbench binary, e.g. built from an older commit) the same
# figures are measured for it ("report-before", ...), and its outputs are
# compared with this checkout's (diff -r, the line naming the report's
# code commit left out): the reports with and without the viewer, and the
# exported item; "identical" or the differences.
#
# Only the viewer's question files and export-item read traces (one item
# at a time), so TRACE_KB changes the store's size and the time to write
# it, and the time of report+view, not what the other readers cost.
# report+view writes every question's file: at 200,000 items the viewer
# is several GB (removed once measured and compared).
#
# Stores already in WORK are reused (generating 200k items takes minutes).
# Peak RSS comes from /usr/bin/time -v, else from polling VmHWM in
# /proc/PID/status.
set -euo pipefail

SMALL=${SMALL:-20000}
LARGE=${LARGE:-200000}
WORK=${WORK:-${TMPDIR:-/tmp}/t2s-bench-store}
TRACE_KB=${TRACE_KB:-48}
GO=${GO:-go}
cd "$(dirname "$0")/.."
mkdir -p "$WORK"
$GO build -o "$WORK/t2sbench" ./cmd/t2sbench
$GO build -o "$WORK/genstore" ./scripts/genstore

# measure OUT CMD...: runs CMD, writes "rss_kb wall_s cpu_s" to OUT, and
# returns CMD's exit status.
measure() {
	local out=$1 rc=0
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%M %e %U %S" -o "$out.time" "$@" >/dev/null 2>"$out.err" || rc=$?
		# A failed command's first line says so; the figures are last.
		tail -n 1 "$out.time" | awk '{printf "%d %.2f %.2f\n", $1, $2, $3 + $4}' >"$out"
		return $rc
	fi
	local start end hwm=0 pid
	start=$(date +%s.%N)
	"$@" >/dev/null 2>"$out.err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		local h
		h=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
		[ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
		sleep 0.05
	done
	wait "$pid" || rc=$?
	end=$(date +%s.%N)
	echo "$hwm $(echo "$end - $start" | bc) -" >"$out"
	return $rc
}

# measure_all BIN SUFFIX N: measures every command of binary BIN on the
# store of N items, into $WORK/COMMAND$SUFFIX-N.
measure_all() {
	local bin=$1 sfx=$2 n=$3 dir="$WORK/synth-$3" f
	measure "$WORK/status$sfx-$n" "$bin" status "$dir"
	rm -rf "$WORK/report$sfx-$n.d"
	measure "$WORK/report$sfx-$n" "$bin" report "$dir" --no-view --quiet --out "$WORK/report$sfx-$n.d"
	rm -rf "$WORK/report+view$sfx-$n.d"
	measure "$WORK/report+view$sfx-$n" "$bin" report "$dir" --quiet --out "$WORK/report+view$sfx-$n.d"
	# export: the largest figures of the three formats.
	for f in spider-sql bird-json jsonl; do
		measure "$WORK/export-$f$sfx-$n" "$bin" export "$dir" --trial "$TRIAL" --format "$f" --out "$WORK/export$sfx-$n.$f" || true
	done
	awk '{ if ($1 > r) r = $1; if ($2 > w) w = $2; if ($3 > u) u = $3 } END {printf "%d %.2f %.2f\n", r, w, u}' \
		"$WORK/export-spider-sql$sfx-$n" "$WORK/export-bird-json$sfx-$n" "$WORK/export-jsonl$sfx-$n" >"$WORK/export$sfx-$n"
	measure "$WORK/export-item$sfx-$n" "$bin" export "$dir" --trial "$TRIAL" --question "$QUESTION" --out "$WORK/export-item$sfx-$n.json"
}

# TRIAL and QUESTION are the trial and question the exports read: the
# last trial of the synthetic spec's first seven (an iesr trial, whose
# items have the most calls) and a question in the middle.
TRIAL=${TRIAL:-iesr reason=sim-a}
QUESTION=${QUESTION:-synthetic_00500}

commands="status report report+view export export-item"
[ -n "${BEFORE:-}" ] && commands="$commands status-before report-before report+view-before export-before export-item-before"
for n in "$SMALL" "$LARGE"; do
	dir="$WORK/synth-$n"
	if [ ! -f "$dir/run.db" ]; then
		rm -rf "$dir"
		"$WORK/genstore" --out "$dir" --items "$n" --trace-kb "$TRACE_KB"
	fi
	measure_all "$WORK/t2sbench" "" "$n"
	if [ -n "${BEFORE:-}" ]; then
		measure_all "$BEFORE" "-before" "$n"
	fi
done

echo "command  items: small/large  peak RSS MB (ratio)  wall s (ratio)  cpu s (ratio)"
for c in $commands; do
	read -r r1 w1 u1 <"$WORK/$c-$SMALL"
	read -r r2 w2 u2 <"$WORK/$c-$LARGE"
	awk -v c="$c" -v s="$SMALL" -v l="$LARGE" -v r1="$r1" -v r2="$r2" -v w1="$w1" -v w2="$w2" -v u1="$u1" -v u2="$u2" 'BEGIN {
		printf "%-18s  %s/%s  %.1f/%.1f (%.2fx)  %.2f/%.2f (%.2fx)", c, s, l, r1/1024, r2/1024, r2/r1, w1, w2, w2/w1
		if (u1 != "-" && u1 > 0) printf "  %.2f/%.2f (%.2fx)", u1, u2, u2/u1
		printf "\n"
	}'
done
echo "items ratio: $(awk -v s="$SMALL" -v l="$LARGE" 'BEGIN {printf "%.1fx", l/s}'); store sizes: $(du -sh "$WORK/synth-$SMALL/run.db" | cut -f1) and $(du -sh "$WORK/synth-$LARGE/run.db" | cut -f1)"
if [ -n "${BEFORE:-}" ]; then
	for n in "$SMALL" "$LARGE"; do
		for c in report report+view; do
			if diff -r -I '^- Code commit of this report: ' "$WORK/$c-before-$n.d" "$WORK/$c-$n.d" >"$WORK/$c-diff-$n"; then
				echo "$c at $n items: identical to BEFORE's (code commit line left out)"
			else
				echo "$c at $n items: differs from BEFORE's ($(wc -l <"$WORK/$c-diff-$n") lines in $WORK/$c-diff-$n)"
			fi
		done
		if cmp -s "$WORK/export-item-before-$n.json" "$WORK/export-item-$n.json"; then
			echo "export-item at $n items: identical to BEFORE's"
		else
			echo "export-item at $n items: differs from BEFORE's"
		fi
	done
fi
# The viewers are several GB at LARGE items.
rm -rf "$WORK"/report+view*-"$LARGE".d
