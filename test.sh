#!/usr/bin/env bash
# The one test command: ./test.sh
#
# Runs everything CI runs, on a fresh machine too: it installs what is
# missing (Node.js and npm, Debian's Chromium, an emoji font, nginx, systemd's
# systemd-analyze, the client's npm packages) and says so before doing it.
#   1. cargo fmt --check and clippy (-D warnings)
#   2. cargo test --workspace: rules, golden boards, fuzzing, the store (on
#      SQLite and on a throwaway PostgreSQL, installed from Debian when
#      missing), the end-to-end server tests (two nodes behind a throwaway
#      nginx too: Debian's nginx is installed when missing), and the
#      benchmark's --quick run
#   3. the web client's lint (ESLint's recommended rules) and format check
#      (Prettier --check), then its unit tests (node --test)
#   4. the browser tests in headless Chromium against the real server
set -euo pipefail
cd "$(dirname "$0")"

step() { printf '\n==> %s\n' "$*"; }
need_apt=()
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    step "apt-get update (to install: $*)"
    apt-get update -qq
    apt_updated=1
  fi
  step "Installing Debian packages: $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || need_apt+=(fonts-noto-color-emoji)
# The several-nodes tests (tests/tests/nodes.rs) start their own throwaway
# nginx on loopback with the shipped deploy/nginx.conf.
[ -x /usr/sbin/nginx ] || need_apt+=(nginx)
# tests/tests/deploy.rs checks deploy/mazerace@.service with systemd-analyze
# (only the tool is wanted; nothing is started).
command -v systemd-analyze >/dev/null 2>&1 || need_apt+=(systemd)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt_install "${need_apt[@]}"
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings

# A throwaway PostgreSQL for the store suite (issue 14): a cluster made by
# initdb in a temp dir, listening on 127.0.0.1 only on a free port (its unix
# socket in the temp dir too), stopped and removed at the end, also on
# failure. PostgreSQL refuses to run as root: it runs as the `postgres` user
# (or a `mazerace-test` system user made for it).
pg_find() {
  pg_bin=""
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then pg_bin="$d"; fi
  done
}
pg_find
if [ -z "$pg_bin" ]; then
  # Only the binaries are wanted: no system cluster started on port 5432.
  mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/mazerace-test.conf
  apt_install postgresql
  pg_find
  [ -n "$pg_bin" ] || { echo "PostgreSQL was installed but no initdb was found" >&2; exit 1; }
fi
if id postgres >/dev/null 2>&1; then
  pg_user=postgres
else
  id mazerace-test >/dev/null 2>&1 || {
    step "Creating the mazerace-test system user (PostgreSQL does not run as root)"
    useradd --system --no-create-home --shell /usr/sbin/nologin mazerace-test
  }
  pg_user=mazerace-test
fi
pg_tmp=$(mktemp -d /tmp/mazerace-pg.XXXXXX)
pg_stop() {
  if [ -f "$pg_tmp/data/postmaster.pid" ]; then
    runuser -u "$pg_user" -- "$pg_bin/pg_ctl" -D "$pg_tmp/data" -m immediate stop >/dev/null 2>&1 || true
  fi
  rm -rf "$pg_tmp"
}
trap pg_stop EXIT
chown "$pg_user" "$pg_tmp"
step "Starting a throwaway PostgreSQL ($pg_bin) in $pg_tmp"
runuser -u "$pg_user" -- "$pg_bin/initdb" -D "$pg_tmp/data" -U postgres -A trust -E UTF8 --no-sync >/dev/null
pg_port=""
# The command line that starts the cluster on port $1 (also exported for the
# outage test, which stops and restarts it).
pg_start_cmd() {
  # Durability settings off: a test cluster thrown away at the end. Room for
  # the connections of the test binaries running at once (each node's store
  # holds 16; the default of 100 could run out with several nodes tests).
  echo "runuser -u $pg_user -- $pg_bin/pg_ctl -D $pg_tmp/data -l $pg_tmp/log -w -t 60" \
    "-o '-c listen_addresses=127.0.0.1 -p $1 -k $pg_tmp -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off'" \
    "start"
}
for _ in 1 2 3 4 5; do
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  if sh -c "$(pg_start_cmd "$port")" >/dev/null; then
    pg_port=$port
    break
  fi
done
[ -n "$pg_port" ] || { cat "$pg_tmp/log" >&2; echo "the throwaway PostgreSQL did not start" >&2; exit 1; }
export MAZERACE_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres"
# The PostgreSQL tests must run here: missing, they fail rather than pass
# saying they did not run. tests/tests/pg_outage.rs stops and starts the
# cluster with these two commands (run by `sh -c`).
export MAZERACE_REQUIRE_PG=1
export MAZERACE_TEST_PG_STOP="runuser -u $pg_user -- $pg_bin/pg_ctl -D $pg_tmp/data -m fast -w stop"
MAZERACE_TEST_PG_START="$(pg_start_cmd "$pg_port")"
export MAZERACE_TEST_PG_START

step "cargo test --workspace (the store suite on SQLite and PostgreSQL)"
cargo test --workspace

step "Building the server binary for the browser tests"
cargo build -p mazerace-server --quiet
export MAZERACE_BIN="$PWD/target/debug/mazerace"

cd client-web
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  step "Installing the client's npm packages (npm ci)"
  npm ci --no-audit --no-fund
  touch node_modules
fi

step "Web client lint: ESLint (recommended rules) and Prettier --check"
npm run --silent lint

step "Web client unit tests (node --test)"
npm run --silent test:unit

step "Browser tests in headless Chromium"
npm run --silent test:e2e

step "All tests passed."
