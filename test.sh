#!/usr/bin/env bash
# The one test command: ./test.sh
#
# Runs everything CI runs, on a fresh machine too: it installs what is
# missing (Node.js and npm, Debian's Chromium, an emoji font, the client's npm
# packages) and says so before doing it.
#   1. cargo fmt --check and clippy (-D warnings)
#   2. cargo test --workspace: rules, golden boards, fuzzing, the store, the
#      end-to-end server tests, and the benchmark's --quick smoke run
#   3. the web client's unit tests (node --test)
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
if [ ${#need_apt[@]} -gt 0 ]; then
  apt_install "${need_apt[@]}"
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "cargo test --workspace"
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

step "Web client unit tests (node --test)"
npm run --silent test:unit

step "Browser tests in headless Chromium"
npm run --silent test:e2e

step "All tests passed."
