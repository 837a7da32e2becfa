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
#                    prints when it ends or is re-opened: bench.SummarizeDir)
#   report           t2sbench report DIR --no-view (every table and plot)
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
# figures are measured for it ("report-before"), and its report directories
# are compared with this checkout's (diff -r, the line naming the report's
# code commit left out): "reports identical" or the differences.
#
# The readers measured never read a trace, so TRACE_KB changes the store's
# size and the time to write it, not what status or report cost.
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

# measure OUT CMD...: runs CMD, writes "rss_kb wall_s cpu_s" to OUT.
measure() {
	local out=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%M %e %U %S" -o "$out.time" "$@" >/dev/null 2>"$out.err"
		awk '{printf "%d %.2f %.2f\n", $1, $2, $3 + $4}' "$out.time" >"$out"
		return
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
	wait "$pid"
	end=$(date +%s.%N)
	echo "$hwm $(echo "$end - $start" | bc) -" >"$out"
}

commands="status report"
[ -n "${BEFORE:-}" ] && commands="$commands status-before report-before"
for n in "$SMALL" "$LARGE"; do
	dir="$WORK/synth-$n"
	if [ ! -f "$dir/run.db" ]; then
		rm -rf "$dir"
		"$WORK/genstore" --out "$dir" --items "$n" --trace-kb "$TRACE_KB"
	fi
	measure "$WORK/status-$n" "$WORK/t2sbench" status "$dir"
	rm -rf "$WORK/report-$n.d"
	measure "$WORK/report-$n" "$WORK/t2sbench" report "$dir" --no-view --quiet --out "$WORK/report-$n.d"
	if [ -n "${BEFORE:-}" ]; then
		measure "$WORK/status-before-$n" "$BEFORE" status "$dir"
		rm -rf "$WORK/report-before-$n.d"
		measure "$WORK/report-before-$n" "$BEFORE" report "$dir" --no-view --quiet --out "$WORK/report-before-$n.d"
	fi
done

echo "command  items: small/large  peak RSS MB (ratio)  wall s (ratio)  cpu s (ratio)"
for c in $commands; do
	read -r r1 w1 u1 <"$WORK/$c-$SMALL"
	read -r r2 w2 u2 <"$WORK/$c-$LARGE"
	awk -v c="$c" -v s="$SMALL" -v l="$LARGE" -v r1="$r1" -v r2="$r2" -v w1="$w1" -v w2="$w2" -v u1="$u1" -v u2="$u2" 'BEGIN {
		printf "%-7s  %s/%s  %.1f/%.1f (%.2fx)  %.2f/%.2f (%.2fx)", c, s, l, r1/1024, r2/1024, r2/r1, w1, w2, w2/w1
		if (u1 != "-" && u1 > 0) printf "  %.2f/%.2f (%.2fx)", u1, u2, u2/u1
		printf "\n"
	}'
done
echo "items ratio: $(awk -v s="$SMALL" -v l="$LARGE" 'BEGIN {printf "%.1fx", l/s}'); store sizes: $(du -sh "$WORK/synth-$SMALL/run.db" | cut -f1) and $(du -sh "$WORK/synth-$LARGE/run.db" | cut -f1)"
if [ -n "${BEFORE:-}" ]; then
	for n in "$SMALL" "$LARGE"; do
		if diff -r -I '^- Code commit of this report: ' "$WORK/report-before-$n.d" "$WORK/report-$n.d" >"$WORK/report-diff-$n"; then
			echo "reports at $n items: identical to BEFORE's (code commit line left out)"
		else
			echo "reports at $n items: differ from BEFORE's ($(wc -l <"$WORK/report-diff-$n") lines in $WORK/report-diff-$n)"
		fi
	done
fi
