#!/usr/bin/env bash
# Lighthouse 12.2.3 on the home page, in Debian's Chromium, mobile (its
# default: a Moto G Power viewport, slow 4G and a 4x slower CPU, simulated),
# RUNS times (default 3) against a throwaway server; prints every run's four
# category scores and metrics, then the median of each. Not a test: the
# figures go in client-web/README.md ("Lighthouse").
#
#   client-web/tools/lighthouse.sh            # MAZERACE_BIN, else target/debug/mazerace
#   RUNS=5 client-web/tools/lighthouse.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${MAZERACE_BIN:-target/debug/mazerace}
runs=${RUNS:-3}
out=$(mktemp -d /tmp/mazerace-lighthouse.XXXXXX)
"$bin" serve --bind 127.0.0.1:0 --data-dir "$out/data" --metrics-bind '' >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 50); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$out/server.log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$out/server.log" >&2; exit 1; }
# The first request compresses the client (once): not part of any run.
curl -s -o /dev/null -H 'Accept-Encoding: br' "$url/"
for i in $(seq "$runs"); do
  CHROME_PATH=/usr/bin/chromium npx -y lighthouse@12.2.3 "$url/" --quiet \
    --chrome-flags="--headless --no-sandbox" --output=json --output-path="$out/run-$i.json"
done
python3 - "$out" "$runs" <<'PY'
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
cats = ['performance', 'accessibility', 'best-practices', 'seo']
mets = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index']
rows = []
for i in range(1, runs + 1):
    d = json.load(open(f'{out}/run-{i}.json'))
    row = {c: round(d['categories'][c]['score'] * 100) for c in cats}
    row.update({m: d['audits'][m]['numericValue'] for m in mets})
    rows.append(row)
    print(f'run {i}: ' + ', '.join(f'{k} {v:.3g}' if isinstance(v, float) else f'{k} {v}' for k, v in row.items()))
print('median: ' + ', '.join(f'{k} {statistics.median(r[k] for r in rows):.4g}' for k in rows[0]))
PY
