#!/usr/bin/env bash
# bench-replay.sh: BenchmarkReplay (bench/scheduler_test.go: direct, cot and
# sc on mini, every answer from the model cache) on a base commit and on
# the working tree, measured alternately so that both see the same load.
#
#   scripts/bench-replay.sh                 # base: origin/main, else main
#   BASE=588fdf5 ROUNDS=5 scripts/bench-replay.sh
#   BENCHTIME=20x scripts/bench-replay.sh
#
# Builds one test binary of each (go test -c) and runs them in turn,
# ROUNDS times each (each side first in every other round), printing
# calls/s of every run and the median of each side with their ratio.
set -euo pipefail

BASE=${BASE:-$(git rev-parse --verify -q origin/main || git rev-parse main)}
ROUNDS=${ROUNDS:-3}
BENCHTIME=${BENCHTIME:-10x}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git -C "$root" worktree add -q --detach "$work/base" "$BASE"
# The base's tests find the datasets where the working tree's do.
[ -e "$root/../shared" ] && ln -sfn "$(cd "$root/../shared" && pwd)" "$work/shared"
(cd "$work/base" && go test -c -o "$work/base.test" ./bench)
(cd "$root" && go test -c -o "$work/head.test" ./bench)

run() { # run BIN: prints calls/s of one BenchmarkReplay/replay run
	(cd "$root/bench" && "$1" -test.run '^$' -test.bench 'Replay/replay' -test.benchtime "$BENCHTIME") |
		awk '/Replay\/replay/ { for (i = 1; i <= NF; i++) if ($(i+1) == "calls/s") print $i }'
}
base=() head=()
for r in $(seq "$ROUNDS"); do
	# The sides take turns to go first: on a busy machine the second run
	# of a round was measured slower than the first, whichever binary it
	# was, which favoured the base when it always went first.
	if ((r % 2)); then
		b=$(run "$work/base.test"); h=$(run "$work/head.test")
	else
		h=$(run "$work/head.test"); b=$(run "$work/base.test")
	fi
	base+=("$b"); head+=("$h")
	echo "round $r: base $b calls/s, head $h calls/s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2 }'; }
mb=$(median "${base[@]}"); mh=$(median "${head[@]}")
echo "median: base ($BASE) $mb calls/s, head $mh calls/s, ratio $(awk -v a="$mh" -v b="$mb" 'BEGIN { printf "%.2f", a / b }')"
