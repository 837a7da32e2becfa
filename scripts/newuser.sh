#!/usr/bin/env bash
# newuser.sh: replay a new user's first hour with t2sbench, from the README
# and `t2sbench help` only, and assert the exit status and the key message
# of every step. CI runs it after `make test` (.ci/run).
#
#   scripts/newuser.sh            # the whole path; steps that need the shared
#                                 # data (../shared or $T2SBENCH_SHARED) or
#                                 # MariaDB say so and are skipped without them
#   NEWUSER_KEEP=1 scripts/newuser.sh   # keep the work folder (logs of each step)
#
# Steps: the help and reference (help, help spec, help runners, version),
# the demo (quickstart run at --limit 12, status, report), eval (gold, a
# partial file, a file with one line too many, verdict files), compare (a
# run, verdict files, verdict files of two benchmarks), a spec bound to a
# fake OpenAI server under a wrong model name, a wrong --data,
# LogicCat on MariaDB exactly as the README's section says, the commit and
# options in a report, the model cache against a server with other
# weights behind the same URL, binding a real model (--models,
# --backbone), and the messages that name what to do (a shared read-only
# account's password kept, --data one level too high, prediction formats,
# a shard run without --out, a misspelt key).

set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

work=$(mktemp -d)
fake_pid=""
cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
	if [ "${NEWUSER_KEEP:-}" = 1 ]; then echo "newuser: work folder kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

echo "newuser: building t2sbench and the fake OpenAI server" >&2
mkdir -p "$work/bin"
go build -ldflags "-X main.buildCommit=$(git rev-parse HEAD 2>/dev/null)" -o "$work/bin/t2sbench" ./cmd/t2sbench || exit 1
go build -o "$work/bin/fakeopenai" ./scripts/fakeopenai || exit 1
export PATH="$work/bin:$PATH"
export XDG_CACHE_HOME="$work/cache" # gold cache, mini database builds
unset T2SBENCH_RO_DSN T2SBENCH_RO_PASSWORD

shared=${T2SBENCH_SHARED:-$repo/../shared}
if [ -d "$shared/datasets" ]; then shared=$(cd "$shared" && pwd); else shared=""; fi

failed=0 passed=0 skipped=0
# step NAME WANT_EXIT WANT_TEXT CMD...: run CMD, its stdout and stderr in
# $work/NAME.log; WANT_EXIT is a number or "nonzero".
step() {
	local name=$1 want=$2 text=$3
	shift 3
	local log="$work/$name.log" got
	"$@" >"$log" 2>&1
	got=$?
	local bad=""
	if [ "$want" = nonzero ]; then
		[ "$got" -ne 0 ] || bad="exit $got; want non-zero"
	elif [ "$got" -ne "$want" ]; then
		bad="exit $got; want $want"
	fi
	if [ -n "$text" ] && ! grep -qF -- "$text" "$log"; then
		bad="${bad:+$bad; }output lacks \"$text\""
	fi
	if [ -n "$bad" ]; then
		failed=$((failed + 1))
		echo "FAIL $name: $bad" >&2
		sed 's/^/    /' "$log" | tail -n 15 >&2
	else
		passed=$((passed + 1))
		echo "ok   $name (exit $got)" >&2
	fi
}
skip() {
	skipped=$((skipped + 1))
	echo "skip $1: $2" >&2
}

# 1. Reference inside the tool.
step help 0 "t2sbench help spec" t2sbench help
step help-spec 0 "benchmarks[].limit" t2sbench help spec
step help-runners 0 "embedding_role names a role" t2sbench help runners
step help-eval 0 "-pred-column" t2sbench help eval
step help-unknown 2 "topics: spec, runners" t2sbench help nosuch
step version 0 "SQLite 3." t2sbench version

# 2. The demo: the quickstart spec on the bundled mini benchmark.
qs="$work/quickstart"
step demo-run 0 "vs baseline: test, EX difference (95% CI), Holm p" t2sbench run experiments/quickstart.yaml --out "$qs" --limit 12
step demo-resume 0 "already finished" t2sbench run experiments/quickstart.yaml --out "$qs" --limit 12
step demo-status 0 "direct" t2sbench status "$qs"
step demo-report 0 "report.md" t2sbench report "$qs" --out "$qs/report" --no-view

# 3. eval.
step eval-gold 0 "EX 100.00% (42 correct / 42 attempted)" t2sbench eval --benchmark mini --gold-as-pred --out "$work/gold.jsonl"
step export 0 "exported trial" t2sbench export "$qs" --trial direct --format jsonl --out "$work/direct.jsonl"
step eval-partial-refused 1 "pass --allow-partial" t2sbench eval --benchmark mini --pred "$work/direct.jsonl"
step eval-partial 3 "30 of 42 questions have no prediction" t2sbench eval --benchmark mini --pred "$work/direct.jsonl" --allow-partial
step eval-limit 0 "12 of 12 questions scored" t2sbench eval --benchmark mini --pred "$work/direct.jsonl" --limit 12 --out "$work/direct-v.jsonl"
for i in $(seq 0 42); do echo "SELECT 1"; done >"$work/toomany.sql"
step eval-too-many 1 "43 predictions for 42 questions of mini: more predictions than questions" t2sbench eval --benchmark mini --pred "$work/toomany.sql"
step eval-csv-column 1 "no column \"sql_pred\"" t2sbench eval --benchmark mini --pred "$work/toomany.sql" --format csv --pred-column sql_pred

# 4. compare.
step compare-run 0 "McNemar" t2sbench compare "$qs"
step eval-gold12 0 "EX 100.00%" t2sbench eval --benchmark mini --gold-as-pred --limit 12 --out "$work/gold12.jsonl"
step compare-files 0 "direct-v" t2sbench compare "$work/gold12.jsonl" "$work/direct-v.jsonl"
if [ -n "$shared" ] && [ -d "$shared/datasets/spider" ]; then
	step eval-spider 0 "EX" t2sbench eval --benchmark spider --data "$shared/datasets/spider" --gold-as-pred --limit 12 --out "$work/spider12.jsonl"
	step compare-benchmarks 2 "and no other input does (spider12: spider)" t2sbench compare "$work/gold12.jsonl" "$work/spider12.jsonl"
else
	skip compare-benchmarks "shared data absent (../shared or \$T2SBENCH_SHARED)"
fi

# 5a. A spec that binds no model to a role: refused before anything runs.
cat >"$work/no-roles.yaml" <<'SPEC'
name: no-roles
benchmarks: [{name: mini}]
models: {sim: {backend: sim}}
runners: [{name: direct}]
SPEC
step spec-no-roles 2 "binds no model to the reason role" t2sbench run "$work/no-roles.yaml" --out "$work/no-roles"
step spec-typo 2 "runners[0].params.kk: unknown parameter (known: evidence, max_tokens)" t2sbench run "$work/no-roles.yaml" --out "$work/no-roles" --set runners.0.params.kk=3

# 5. A spec bound to an OpenAI-compatible server under a name it does not
# serve: the run stops at once with exit 2, showing the server's text.
"$work/bin/fakeopenai" -served Qwen2.5-7B-Instruct >"$work/fake.url" 2>"$work/fake.log" &
fake_pid=$!
for _ in $(seq 1 50); do [ -s "$work/fake.url" ] && break; sleep 0.1; done
url=$(head -n 1 "$work/fake.url")
cat >"$work/wrong-model.yaml" <<SPEC
name: wrong-model
benchmarks: [{name: mini, limit: 4}]
models: {local: {backend: openai, base_url: "$url", model: qwen2.5-7b}}
roles: {reason: local}
runners: [{name: direct}]
SPEC
step wrong-model 2 "model 'qwen2.5-7b' not found" t2sbench run "$work/wrong-model.yaml" --out "$work/wrong-model"
kill "$fake_pid" 2>/dev/null
fake_pid=""

# 6. A wrong --data: a Spider folder without its databases, and BIRD's
# mini_dev/ given instead of the folder holding it: refused with exit 2,
# naming the folder searched, instead of EX 0.00% with every question
# missing_db.
mkdir -p "$work/data/spider"
cat >"$work/data/spider/dev.json" <<'JSON'
[{"db_id": "concert_singer", "question": "How many singers are there?", "query": "SELECT count(*) FROM singer"},
 {"db_id": "pets_1", "question": "How many pets are there?", "query": "SELECT count(*) FROM pets"}]
JSON
echo '[]' >"$work/data/spider/tables.json"
step wrong-data-list 0 "none of its databases opens" t2sbench datasets list --data "$work/data"
step wrong-data-eval 2 "$work/data/spider" t2sbench eval --benchmark spider --data "$work/data/spider" --gold-as-pred
if [ -n "$shared" ] && [ -d "$shared/datasets/bird/mini_dev" ]; then
	step wrong-data-minidev 2 "$shared/datasets/bird/mini_dev" t2sbench eval --benchmark bird-minidev --data "$shared/datasets/bird/mini_dev" --gold-as-pred
else
	skip wrong-data-minidev "shared data absent"
fi

# 7. LogicCat on MariaDB, the README's block as written.
if [ -z "$shared" ] || [ ! -d "$shared/datasets/logiccat/mysql/database" ]; then
	skip logiccat-readme "shared LogicCat data absent"
elif ! { command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; } || ! command -v mariadb-install-db >/dev/null 2>&1; then
	skip logiccat-readme "MariaDB not installed"
else
	block=$(awk '/^## LogicCat on MariaDB\/MySQL$/{s=1} s&&/^```sh$/{b=1;next} b&&/^```$/{exit} b' README.md)
	if [ -z "$block" ]; then
		failed=$((failed + 1))
		echo "FAIL logiccat-readme: README.md has no sh block under \"## LogicCat on MariaDB/MySQL\"" >&2
	else
		# preds.jsonl: every question's SQL from the questions file.
		python3 - "$shared/datasets/logiccat/mysql/cop_cot_test_2369.json" "$work/preds.jsonl" <<'PY' || echo "newuser: could not write preds.jsonl" >&2
import json, sys
with open(sys.argv[2], "w") as f:
    for q in json.load(open(sys.argv[1])):
        f.write(json.dumps({"question_id": "%s/%s" % (q["db_id"], q["idx"]), "sql": q["query"]}) + "\n")
PY
		script=${block//\/data\/logiccat/$shared\/datasets\/logiccat}
		script=${script//preds.jsonl/$work\/preds.jsonl}
		step logiccat-readme 0 "EX 100.00% (20 correct / 20 attempted)" \
			env -u T2SBENCH_MARIADB_DIR -u T2SBENCH_MARIADB_PID -u T2SBENCH_MARIADB_TEMP -u T2SBENCH_MYSQL_DSN \
			bash -c "set -euo pipefail
trap 'scripts/mariadb.sh stop >/dev/null 2>&1 || true' EXIT   # a block failing half-way leaves no server
$script"
		grep -qF "of 2369 questions scored" "$work/logiccat-readme.log" ||
			{ failed=$((failed + 1)); echo "FAIL logiccat-readme: the prediction file's eval did not score 2369 questions" >&2; }
	fi
fi

# ---------------------------------------------------------------------------
# Provenance, the model cache and model binding.

# 8. The commit and the options of run in the report, with a binary built
# without VCS stamping or -ldflags (GOFLAGS=-buildvcs=false): it reads the
# commit of the work tree it was compiled from.
head=$(git rev-parse HEAD 2>/dev/null)
if [ -z "$head" ]; then
	skip provenance "not a git work tree"
else
	GOFLAGS=-buildvcs=false go build -o "$work/bin/t2sbench-novcs" ./cmd/t2sbench || exit 1
	step provenance-version 0 "commit $head" "$work/bin/t2sbench-novcs" version
	step provenance-report 0 "report.md" "$work/bin/t2sbench-novcs" report "$qs" --out "$work/prov-report" --no-view
	step provenance-report-commit 0 "Code commit of this report: $head" cat "$work/prov-report/report.md"
	step provenance-run-commit 0 "Code commit of the run: $head" cat "$work/prov-report/report.md"
	step provenance-options 0 'Options given to run that change results or resources: `--limit 12`.' cat "$work/prov-report/report.md"
fi

# 9. The model cache is keyed by the server's identity: the same base URL
# and model name in front of a server with other weights gets no cached
# answers, and the run says so; --refresh-cache asks again; --no-cache
# leaves the cache untouched.
start_fake() { # start_fake ADDR ARGS...: serve, set $url and $fake_pid
	local addr=$1
	shift
	: >"$work/fake.url"
	"$work/bin/fakeopenai" -addr "$addr" "$@" >"$work/fake.url" 2>>"$work/fake.log" &
	fake_pid=$!
	for _ in $(seq 1 50); do [ -s "$work/fake.url" ] && break; sleep 0.1; done
	url=$(head -n 1 "$work/fake.url")
}
stop_fake() { kill "$fake_pid" 2>/dev/null; wait "$fake_pid" 2>/dev/null; fake_pid=""; }
served=Qwen2.5-Coder-7B-Instruct
start_fake 127.0.0.1:0 -served "$served" -root /weights/qwen-a
addr=${url#http://}
addr=${addr%/v1}
cat >"$work/ident.yaml" <<SPEC
name: ident
benchmarks: [{name: mini, limit: 2}]
models: {local: {backend: openai, base_url: "$url", model: $served}}
roles: {reason: local}
runners: [{name: direct}]
SPEC
step cache-first 0 "2 model calls (0 cached)" t2sbench run "$work/ident.yaml" --out "$work/ident"
step cache-same-server 0 "2 model calls (2 cached)" t2sbench run "$work/ident.yaml" --out "$work/ident" --fresh
stop_fake
start_fake "$addr" -served "$served" -root /weights/qwen-b
step cache-other-server 0 "model identity changed since cached answers: was id=$served root=/weights/qwen-a owned_by=fakeopenai, now id=$served root=/weights/qwen-b owned_by=fakeopenai; cached answers for the old identity are not used" \
	t2sbench run "$work/ident.yaml" --out "$work/ident" --fresh
step cache-refresh 0 "2 model calls (0 cached)" t2sbench run "$work/ident.yaml" --out "$work/ident" --fresh --refresh-cache
sum_before=$(cat "$work"/ident/cache/models.db* | sha256sum)
step cache-none 0 "2 model calls (0 cached)" t2sbench run "$work/ident.yaml" --out "$work/ident" --fresh --no-cache
step cache-none-untouched 0 "" test "$(cat "$work"/ident/cache/models.db* | sha256sum)" = "$sum_before"
step cache-flags-conflict 2 "--refresh-cache and --no-cache exclude each other" t2sbench run "$work/ident.yaml" --out "$work/ident" --refresh-cache --no-cache

# 10. Binding a real model: trial labels name the served model, and
# --backbone binds one model to every role of every runner.
cat >"$work/backbones.yaml" <<'SPEC'
name: backbones
benchmarks: [{name: mini, limit: 2}]
models:
  sim-qwen25-coder-7b: {backend: sim, p: 0.40, seed: 7}
  sim-qwen25-coder-14b: {backend: sim, p: 0.45, seed: 7}
roles: {reason: sim-qwen25-coder-7b}
runners:
  - name: direct
    backbones: {reason: [sim-qwen25-coder-7b, sim-qwen25-coder-14b]}
  - name: cot
    roles: {reason: sim-qwen25-coder-14b}
SPEC
cat >"$work/real-models.yaml" <<SPEC
sim-qwen25-coder-7b: {backend: openai, base_url: "$url", model: $served}
SPEC
step models-label 0 "direct reason=$served" t2sbench run "$work/backbones.yaml" --out "$work/backbones" --models "$work/real-models.yaml"
step backbone-all 0 "direct reason=$served" t2sbench run "$work/backbones.yaml" --out "$work/backbones-one" --models "$work/real-models.yaml" --backbone sim-qwen25-coder-7b --dry-run
step backbone-all-cot 0 "" grep -E "^ +cot +mini .*[(]reason=sim-qwen25-coder-7b " "$work/backbone-all.log"
step backbone-unknown 2 "--backbone nosuch: not a model of the spec" t2sbench run "$work/backbones.yaml" --out "$work/backbones-one" --backbone nosuch
stop_fake

# ---------------------------------------------------------------------
# 11. Messages that name what to do, and what must not happen silently:
# a shared read-only account's password, a --data one level too high, the
# prediction formats' errors, a shard run without --out, a misspelt key.

# 11a. load-mysql twice on one server: the second run leaves the account's
# password alone and says how to pass it; the first password still scores.
lc_data=""
[ -n "$shared" ] && [ -d "$shared/datasets/logiccat/mysql/database" ] && lc_data="$shared/datasets/logiccat"
nu_server=""
if [ -z "$lc_data" ]; then
	skip ro-password-kept "shared LogicCat data absent"
elif [ -z "${T2SBENCH_MYSQL_DSN:-}" ] && ! { { command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; } && command -v mariadb-install-db >/dev/null 2>&1; }; then
	skip ro-password-kept "no MySQL server (T2SBENCH_MYSQL_DSN) and MariaDB not installed"
else
	nu_dsn=${T2SBENCH_MYSQL_DSN:-}
	if [ -z "$nu_dsn" ]; then
		nu_server=$(env -u T2SBENCH_MARIADB_DIR scripts/mariadb.sh start 2>"$work/mariadb.log") || nu_server=""
		nu_dsn=$(eval "$nu_server"; printf '%s' "${T2SBENCH_MYSQL_DSN:-}")
		nu_pid=$(eval "$nu_server"; printf '%s' "${T2SBENCH_MARIADB_PID:-}")
		nu_dir=$(eval "$nu_server"; printf '%s' "${T2SBENCH_MARIADB_DIR:-}")
		# The server is stopped however the script ends.
		trap 'env T2SBENCH_MARIADB_PID="$nu_pid" T2SBENCH_MARIADB_DIR="$nu_dir" T2SBENCH_MARIADB_TEMP=1 scripts/mariadb.sh stop >/dev/null 2>&1; cleanup' EXIT
	fi
	if [ -z "$nu_dsn" ]; then
		failed=$((failed + 1))
		echo "FAIL ro-password-kept: could not start MariaDB (see $work/mariadb.log)" >&2
	else
		ro_user="t2s_ro_newuser_$$" # an account of this run's own
		step ro-password-first 0 "read-only account $ro_user: scoring uses it" \
			env -u T2SBENCH_RO_PASSWORD t2sbench datasets load-mysql --data "$lc_data" --dsn "$nu_dsn" --ro-user "$ro_user"
		p1=$(sed -n "s/^export T2SBENCH_RO_PASSWORD='\(.*\)'$/\1/p" "$work/ro-password-first.log")
		ro_dsn=$(sed -n "s/^export T2SBENCH_RO_DSN='\(.*\)'$/\1/p" "$work/ro-password-first.log")
		step ro-password-second 2 "already exists on this server, so its password was left unchanged" \
			env -u T2SBENCH_RO_PASSWORD t2sbench datasets load-mysql --data "$lc_data" --dsn "$nu_dsn" --ro-user "$ro_user"
		step ro-password-says-how 2 "export T2SBENCH_RO_PASSWORD='<its password>'" \
			env -u T2SBENCH_RO_PASSWORD t2sbench datasets load-mysql --data "$lc_data" --dsn "$nu_dsn" --ro-user "$ro_user"
		step ro-password-first-works 0 "EX 100.00% (20 correct / 20 attempted)" \
			env T2SBENCH_RO_PASSWORD="$p1" t2sbench eval --benchmark logiccat --data "$lc_data" --gold-as-pred --limit 20 \
			--mysql-dsn "$ro_dsn" --mysql-password-env T2SBENCH_RO_PASSWORD --quiet
		# 8c (LogicCat). Numeric question ids: the error shows the ids' form.
		for i in 0 1 2; do echo "{\"question_id\": $i, \"sql\": \"SELECT 1\"}"; done >"$work/lc-numeric.jsonl"
		step pred-logiccat-id-form 1 'whose question ids look like "AirCraft/1"' \
			env T2SBENCH_RO_PASSWORD="$p1" t2sbench eval --benchmark logiccat --data "$lc_data" --pred "$work/lc-numeric.jsonl" \
			--mysql-dsn "$ro_dsn" --mysql-password-env T2SBENCH_RO_PASSWORD --quiet
		# The account goes again (a server reached over its socket).
		nu_sock=$(printf '%s' "$nu_dsn" | sed -n 's/^\([^@:]*\)@unix(\([^)]*\)).*/\2/p')
		nu_admin=$(printf '%s' "$nu_dsn" | sed -n 's/^\([^@:]*\)@unix(.*/\1/p')
		if [ -n "$nu_sock" ] && command -v mariadb >/dev/null 2>&1; then
			mariadb --socket="$nu_sock" -u "$nu_admin" -e "DROP USER IF EXISTS '$ro_user'@'localhost', '$ro_user'@'127.0.0.1'" >/dev/null 2>&1 || true
		fi
	fi
	if [ -n "$nu_server" ]; then
		env T2SBENCH_MARIADB_PID="$nu_pid" T2SBENCH_MARIADB_DIR="$nu_dir" T2SBENCH_MARIADB_TEMP=1 scripts/mariadb.sh stop >/dev/null 2>&1 || true
		trap cleanup EXIT
	fi
fi

# 11b. A --data one level above Spider's folder (the layout of section 6):
# the message names the folder to pass.
step wrong-data-parent 2 "spider/ inside it is: pass --data $work/data/spider" \
	t2sbench eval --benchmark spider --data "$work/data" --gold-as-pred

# 11c. Prediction formats: a JSON list is scored in question order; a file
# answering the first questions names --limit; a wrong benchmark name
# exits 2, in eval and, with its file:line, in a spec.
python3 - "$repo/testdata/mini/questions.json" "$work/list.json" <<'PY' || echo "newuser: could not write list.json" >&2
import json, sys
json.dump([q["SQL"] for q in json.load(open(sys.argv[1]))], open(sys.argv[2], "w"), indent=1)
PY
step pred-json-list 0 "EX 100.00% (42 correct / 42 attempted)" t2sbench eval --benchmark mini --pred "$work/list.json" --quiet
step pred-fewer-says-limit 1 "pass --limit 12 to score just those" t2sbench eval --benchmark mini --pred "$work/direct.jsonl"
step eval-wrong-benchmark 2 'unknown benchmark "birds" (did you mean "bird"?)' t2sbench eval --benchmark birds --gold-as-pred
cat >"$work/wrong-bench.yaml" <<'SPEC'
name: wrong-bench
benchmarks: [{name: minii}]
models: {sim: {backend: sim}}
roles: {reason: sim}
runners: [{name: direct}]
SPEC
step spec-wrong-benchmark 2 "wrong-bench.yaml:2: benchmarks[0].name: unknown benchmark \"minii\" (did you mean \"mini\"?)" \
	t2sbench run "$work/wrong-bench.yaml" --out "$work/wrong-bench"

# 11d. A shard run without --out runs into a directory of its own, and a
# shard is refused the unsharded demo run's directory.
step shard-own-dir 0 "run directory runs/quickstart-shard-1-of-2" \
	bash -c "cd '$work' && t2sbench run '$repo/experiments/quickstart.yaml' --limit 12 --shard 1/2 --quiet"
step shard-refuses-unsharded 2 "outside shard 2/2: an unsharded run, or another shard's" \
	t2sbench run experiments/quickstart.yaml --out "$qs" --limit 12 --shard 2/2 --quiet

# 11e. A misspelt spec key: "did you mean", at the key's own path.
cat >"$work/sweeep.yaml" <<'SPEC'
name: sweeep
benchmarks: [{name: mini}]
models: {sim: {backend: sim}}
roles: {reason: sim}
runners:
  - name: sc
    sweeep: {k: [1, 3]}
SPEC
step spec-key-did-you-mean 2 'sweeep.yaml:7: runners[0].sweeep: unknown key "sweeep" (did you mean "sweep"?)' \
	t2sbench run "$work/sweeep.yaml" --out "$work/sweeep"

echo "newuser: $passed passed, $failed failed, $skipped skipped" >&2
[ "$failed" -eq 0 ]
