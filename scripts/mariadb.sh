#!/usr/bin/env bash
# mariadb.sh: a private MariaDB server for the MySQL engine and LogicCat.
#
#   eval "$(scripts/mariadb.sh start)"   # prints only `export` lines on stdout
#   scripts/mariadb.sh stop              # stops it and removes its temp datadir
#
# start creates a datadir ($T2SBENCH_MARIADB_DIR, else a fresh temp dir),
# runs mariadb-install-db, starts mariadbd on a private unix socket and a
# free loopback port without systemd (facts: shared/datasets/logiccat/
# MARIADB.md §2), waits until it answers and prints:
#
#   T2SBENCH_MYSQL_DSN       root over the socket (Go DSN form, no password)
#   T2SBENCH_MARIADB_PID     the server's pid
#   T2SBENCH_MARIADB_DIR     the datadir
#   T2SBENCH_MARIADB_TEMP    1 when the datadir is a temp dir stop may remove
#
# The LogicCat dumps are not loaded here: `t2sbench datasets load-mysql`
# (and the MySQL tests, which call the same loader) import them on demand,
# idempotently, in about 3 s. All logs go to stderr and $DIR/err.log.
set -euo pipefail

log() { echo "mariadb.sh: $*" >&2; }

free_port() {
  # Ask the kernel for a free loopback port; fall back to a fixed one.
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
  else
    echo $((20000 + RANDOM % 20000))
  fi
}

start() {
  local mariadbd installdb
  mariadbd=$(command -v mariadbd || true)
  [ -z "$mariadbd" ] && [ -x /usr/sbin/mariadbd ] && mariadbd=/usr/sbin/mariadbd
  installdb=$(command -v mariadb-install-db || true)
  if [ -z "$mariadbd" ] || [ -z "$installdb" ]; then
    log "mariadbd / mariadb-install-db not found (apt-get install -y mariadb-server mariadb-client)"
    return 1
  fi

  local dir temp=0
  if [ -n "${T2SBENCH_MARIADB_DIR:-}" ]; then
    dir=$T2SBENCH_MARIADB_DIR
    mkdir -p "$dir"
  else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/t2sbench-mariadb.XXXXXX")
    temp=1
  fi
  dir=$(cd "$dir" && pwd)

  local userflag=()
  if [ "$(id -u)" = 0 ]; then
    userflag=(--user=root) # mariadbd refuses to run as root without it
  fi

  if [ ! -d "$dir/data/mysql" ]; then
    mkdir -p "$dir/data"
    "$installdb" --no-defaults --datadir="$dir/data" "${userflag[@]}" \
      --auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1 || {
      log "mariadb-install-db failed; see $dir/install.log"
      cat "$dir/install.log" >&2
      return 1
    }
  fi

  local port sock="$dir/sock"
  port=$(free_port)
  "$mariadbd" --no-defaults "${userflag[@]}" --datadir="$dir/data" --socket="$sock" \
    --port="$port" --bind-address=127.0.0.1 --pid-file="$dir/mariadbd.pid" \
    --log-error="$dir/err.log" --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_general_ci </dev/null >/dev/null 2>&1 &
  local pid=$!

  local i
  for i in $(seq 1 300); do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "mariadbd exited during startup; log follows"
      cat "$dir/err.log" >&2 || true
      return 1
    fi
    if mariadb --no-defaults -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
      break
    fi
    sleep 0.1
  done
  if ! mariadb --no-defaults -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
    log "mariadbd did not answer within 30 s; log: $dir/err.log"
    kill "$pid" 2>/dev/null || true
    return 1
  fi
  log "mariadbd pid $pid on $sock (port $port), datadir $dir/data"

  echo "export T2SBENCH_MYSQL_DSN='root@unix($sock)/?charset=utf8mb4'"
  echo "export T2SBENCH_MARIADB_PID=$pid"
  echo "export T2SBENCH_MARIADB_DIR='$dir'"
  echo "export T2SBENCH_MARIADB_TEMP=$temp"
}

stop() {
  local pid=${T2SBENCH_MARIADB_PID:-} dir=${T2SBENCH_MARIADB_DIR:-}
  if [ -z "$pid" ] && [ -n "$dir" ] && [ -f "$dir/mariadbd.pid" ]; then
    pid=$(cat "$dir/mariadbd.pid")
  fi
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "mariadbd $pid did not stop in 10 s; sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  if [ "${T2SBENCH_MARIADB_TEMP:-0}" = 1 ] && [ -n "$dir" ] && [ -d "$dir" ]; then
    rm -rf -- "$dir"
  fi
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*)
  echo "usage: $0 start|stop" >&2
  exit 2
  ;;
esac
