#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback, for tests and benchmarks of the shared store.
#
#   postgres-server.sh start DIR   makes a cluster under DIR/data (initdb, or a copy of one made
#                                  once per machine and PostgreSQL version), starts it on a free
#                                  port of 127.0.0.1 with its socket in DIR, and prints
#                                  URL=postgresql://culprit:PASSWORD@127.0.0.1:PORT/postgres
#   postgres-server.sh restart DIR stops the server of DIR (its connections cut) and starts
#                                  it again on the same port.
#   postgres-server.sh stop DIR    stops the server started in DIR; twice, or never started, is fine.
#
# The user culprit logs in over TCP with a password (scram-sha-256), so that the tests see a real
# login, a refused one and a password to keep out of messages. Needs Debian's postgresql package.
# As root, the server runs as the postgres user (PostgreSQL refuses to run as root).
set -euo pipefail

readonly k_password=culprit-test-secret

die() {
  echo "postgres-server: $*" >&2
  exit 1
}

usage() {
  echo "usage: postgres-server.sh start|restart|stop DIR" >&2
  exit 2
}

bin_dir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]] && { echo "$dir"; return; }
  done
  die "no PostgreSQL server found under /usr/lib/postgresql; install Debian's postgresql package"
}

# Runs a command as the server's user: postgres when we are root, else ourselves.
as_server() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# shellcheck source=ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

# A freshly initialised cluster, made once (under a lock) and copied for each server: initdb
# takes about a second, a copy a tenth of that.
template() {
  local bin=$1 version template lock
  version=$(basename "$(dirname "$bin")")
  template="${TMPDIR:-/tmp}/culprit-postgres-template-$(id -u)-$version"
  lock="$template.lock"
  exec 9>"$lock"
  flock 9
  if [[ ! -f "$template/ready" ]]; then
    rm -rf "$template"
    mkdir -p "$template"
    printf '%s\n' "$k_password" >"$template/pwfile"
    [[ $(id -u) -eq 0 ]] && chown -R postgres "$template"
    as_server "$bin/initdb" -D "$template/data" -U culprit --pwfile="$template/pwfile" \
      --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync \
      >"$template/initdb.log" 2>&1 || die "initdb failed: $(tail -n 1 "$template/initdb.log")"
    touch "$template/ready"
  fi
  exec 9>&-
  echo "$template"
}

# A throwaway server: nothing is worth an fsync.
server_options() {
  echo "-p $1 -k $2 -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off" \
    "-c full_page_writes=off -c max_connections=200"
}

start() {
  local dir=$1 bin template port attempt
  bin=$(bin_dir)
  mkdir -p "$dir"
  template=$(template "$bin")
  cp -a "$template/data" "$dir/data"
  [[ $(id -u) -eq 0 ]] && chown -R postgres "$dir"
  for attempt in 1 2 3 4 5; do
    port=$(free_ports 1)
    if as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start \
      -o "$(server_options "$port" "$dir")" \
      >/dev/null 2>&1; then
      echo "$port" >"$dir/port"
      echo "URL=postgresql://culprit:$k_password@127.0.0.1:$port/postgres"
      return
    fi
  done
  die "the server did not start: $(tail -n 1 "$dir/server.log" 2>/dev/null)"
}

restart() {
  local dir=$1 bin
  bin=$(bin_dir)
  # fast: the connections are cut, and what was committed stays (immediate would lose the commits
  # that synchronous_commit=off had not flushed yet).
  as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
  as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start \
    -o "$(server_options "$(cat "$dir/port")" "$dir")" >/dev/null 2>&1 ||
    die "the server did not start again: $(tail -n 1 "$dir/server.log" 2>/dev/null)"
}

stop() {
  local dir=$1 bin
  [[ -f "$dir/data/postmaster.pid" ]] || return 0
  bin=$(bin_dir)
  as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
}

(($# == 2)) || usage
case $1 in
start) start "$2" ;;
restart) restart "$2" ;;
stop) stop "$2" ;;
*) usage ;;
esac
