#!/usr/bin/env bash
# fetch-datasets.sh DIR [benchmark...] - download the official releases of
# the benchmarks t2sbench reads, unpack them into the layout its loaders
# expect (scripts/DATASETS.md), and verify the SHA-256 sums recorded in the
# repository (datasets/checksums.go) with `t2sbench datasets verify`.
#
#   benchmarks: spider bird bird-minidev archer logiccat (default: all)
#   layout:     DIR/spider  DIR/bird (dev/, mini_dev/, dev_databases/)  DIR/archer  DIR/logiccat
#   env:        T2SBENCH  the t2sbench binary (default: t2sbench on PATH)
#   --verify-only  skip the downloads, only verify what DIR holds
#
# Sources (from shared/datasets/*/SOURCE.md):
#   spider        spider_data.zip, Google Drive id 1403EGqzIDoHMdQF4c9Bkyl7dZLZ5Wt6J (yale-lily.github.io/spider)
#   bird          https://bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip (holds dev_databases.zip)
#   bird-minidev  bird-bench/mini_dev's data release (URL from that repository's README; not verified here)
#   archer        sig4kg/archer-bench@6f503e8 dataset/{en,zh}_data.zip
#   logiccat      Ffunkytao/LogicCat@8218cef (question files) and @cb580e8 (databases, dumps, miniset)
# A mismatch fails the script (exit 1) and names the files; files the
# repository records no sum for (most of Spider's and BIRD's databases) are
# not checked, which the verify line says.
set -euo pipefail

T2SBENCH=${T2SBENCH:-t2sbench}
verify_only=0
if [[ ${1:-} == --verify-only ]]; then verify_only=1; shift; fi
if [[ $# -lt 1 ]]; then
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
dir=$1; shift
benchmarks=("$@")
[[ ${#benchmarks[@]} -gt 0 ]] || benchmarks=(spider bird bird-minidev archer logiccat)
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fetch() { # URL FILE
	echo "fetch: $1" >&2
	curl -fL --retry 3 --retry-delay 5 -o "$2" "$1"
}

fetch_spider() {
	fetch "https://drive.usercontent.google.com/download?id=1403EGqzIDoHMdQF4c9Bkyl7dZLZ5Wt6J&export=download&confirm=t" "$tmp/spider_data.zip"
	unzip -q -o "$tmp/spider_data.zip" -d "$tmp/spider"
	mkdir -p "$dir/spider"
	cp -R "$tmp/spider/spider_data/." "$dir/spider/"
}

fetch_bird() {
	fetch "https://bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip" "$tmp/bird_dev.zip"
	unzip -q -o "$tmp/bird_dev.zip" -d "$tmp/bird"
	local src
	src=$(dirname "$(find "$tmp/bird" -name dev.json -not -path '*__MACOSX*' | head -1)")
	mkdir -p "$dir/bird/dev"
	cp "$src/dev.json" "$src/dev_tables.json" "$dir/bird/dev/"
	[[ -f $src/dev.sql ]] && cp "$src/dev.sql" "$dir/bird/dev/"
	unzip -q -o "$src/dev_databases.zip" -d "$dir/bird"
	rm -rf "$dir/bird/__MACOSX"
}

fetch_bird_minidev() {
	fetch "https://bird-bench.oss-cn-beijing.aliyuncs.com/minidev.zip" "$tmp/minidev.zip"
	unzip -q -o "$tmp/minidev.zip" -d "$tmp/minidev"
	local src
	src=$(dirname "$(find "$tmp/minidev" -name mini_dev_sqlite.json -not -path '*__MACOSX*' | head -1)")
	mkdir -p "$dir/bird/mini_dev"
	cp "$src"/mini_dev_sqlite.json "$src"/mini_dev_sqlite_gold.sql "$dir/bird/mini_dev/"
	if [[ ! -d $dir/bird/dev_databases ]]; then
		local dbs
		dbs=$(find "$tmp/minidev" -type d -name dev_databases -not -path '*__MACOSX*' | head -1)
		[[ -n $dbs ]] && cp -R "$dbs" "$dir/bird/"
	fi
}

fetch_archer() {
	mkdir -p "$dir/archer"
	for lang in en zh; do
		fetch "https://github.com/sig4kg/archer-bench/raw/6f503e8/dataset/${lang}_data.zip" "$tmp/${lang}_data.zip"
		unzip -q -o "$tmp/${lang}_data.zip" -d "$dir/archer"
	done
	rm -rf "$dir/archer/__MACOSX"
}

fetch_logiccat() {
	local q=8218cef6bb2f3efd7e85546f2d4f95a8564cf86e db=cb580e87ac171dab02aa0e7b73d7f8bc3f0ac8f7 d=$dir/logiccat
	fetch "https://github.com/Ffunkytao/LogicCat/archive/$q.tar.gz" "$tmp/lc_q.tar.gz"
	fetch "https://github.com/Ffunkytao/LogicCat/archive/$db.tar.gz" "$tmp/lc_db.tar.gz"
	tar -xzf "$tmp/lc_q.tar.gz" -C "$tmp"
	tar -xzf "$tmp/lc_db.tar.gz" -C "$tmp"
	mkdir -p "$d/sqlite/database" "$d/mysql/database" "$d/miniset"
	cp "$tmp/LogicCat-$q"/SqliteInfo/* "$d/sqlite/"
	cp "$tmp/LogicCat-$q"/MySQLinfo/* "$d/mysql/"
	cp -R "$tmp/LogicCat-$db"/Sqlite/database/. "$d/sqlite/database/"
	cp -R "$tmp/LogicCat-$db"/MySQL/database/. "$d/mysql/database/"
	cp "$tmp/LogicCat-$db"/Sqlite/data.sql "$d/sqlite/data_full_gold.sql"
	cp "$tmp/LogicCat-$db"/MySQL/data.sql "$d/mysql/data_full_gold.sql"
	cp -R "$tmp/LogicCat-$db"/miniset/. "$d/miniset/"
}

# verify BENCHMARK FOLDER: the recorded sums of the benchmark's files.
verify() {
	echo "verify: $1 in $2" >&2
	"$T2SBENCH" datasets verify --benchmark "$1" "$2"
}

status=0
for b in "${benchmarks[@]}"; do
	case $b in
	spider) folder=spider sums=spider ;;
	bird) folder=bird sums=bird ;;
	bird-minidev) folder=bird sums=bird-minidev ;;
	archer) folder=archer sums=archer ;;
	logiccat) folder=logiccat sums=logiccat-sqlite ;;
	*) echo "fetch-datasets: unknown benchmark $b (want spider, bird, bird-minidev, archer, logiccat)" >&2; exit 2 ;;
	esac
	if [[ $verify_only == 0 ]]; then
		"fetch_${b//-/_}"
	fi
	verify "$sums" "$dir/$folder" || status=1
done
if [[ $status != 0 ]]; then
	echo "fetch-datasets: checksum verification FAILED (see above)" >&2
fi
exit $status
