#!/usr/bin/env bash
# Usage: scripts/with-postgres.sh COMMAND [ARG...]
#
# Starts a throw-away PostgreSQL server (Debian's package, newest version under
# /usr/lib/postgresql) on 127.0.0.1 and a free port, creates the database portal_test, exports
#   PORTAL_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/portal_test
# runs COMMAND, then always stops the server and removes its files. Exits with COMMAND's status.
# Trust authentication and fsync=off: for local tests only, never for real data.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

fail() {
  echo "with-postgres: $*" >&2
  exit 1
}

pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ] || [ ! -x "$pg_bin/pg_ctl" ]; then
  fail "PostgreSQL server binaries not found in /usr/lib/postgresql/*/bin.
Install them (Debian/Ubuntu: apt-get install postgresql) and try again."
fi

# initdb refuses to run as root, so as root the server runs as the postgres user.
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || fail "running as root but there is no 'postgres' user to run the server"
  as_server_user() {
    if command -v runuser >/dev/null 2>&1; then
      runuser -u postgres -- "$@"
    else
      su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
    fi
  }
  server_user=postgres
else
  as_server_user() { "$@"; }
  server_user="$(id -un)"
fi

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/portal-pg.XXXXXX")"
data_dir="$work_dir/data"
socket_dir="$work_dir/socket"
log_file="$work_dir/server.log"
server_started=0

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ "$server_started" -eq 1 ]; then
    as_server_user "$pg_bin/pg_ctl" -D "$data_dir" -m fast -w -t 30 stop >/dev/null 2>&1 ||
      echo "with-postgres: could not stop the server in $data_dir" >&2
  fi
  rm -rf -- "$work_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -m 700 "$socket_dir"
if [ "$server_user" != "$(id -un)" ]; then
  chown -R "$server_user" "$work_dir"
fi

as_server_user "$pg_bin/initdb" -D "$data_dir" -U postgres -A trust -E UTF8 --locale=C --no-sync \
  >"$work_dir/initdb.log" 2>&1 || {
  cat "$work_dir/initdb.log" >&2
  fail "initdb failed"
}

free_port() {
  node -e "const s = require('node:net').createServer();
s.listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); });"
}

# Another process may take the port between picking and binding it: try a few.
port=""
for _ in 1 2 3 4 5; do
  candidate="$(free_port)"
  if as_server_user "$pg_bin/pg_ctl" -D "$data_dir" -l "$log_file" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $candidate -k $socket_dir -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null; then
    port="$candidate"
    server_started=1
    break
  fi
done
if [ -z "$port" ]; then
  cat "$log_file" >&2 2>/dev/null || true
  fail "PostgreSQL did not start"
fi

"$pg_bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres \
  -c 'CREATE DATABASE portal_test' || fail "could not create the database portal_test"

export PORTAL_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/portal_test"
echo "with-postgres: PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') at $PORTAL_TEST_POSTGRES_URL" >&2

set +e
"$@"
status=$?
set -e
exit "$status"
