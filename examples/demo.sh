#!/bin/sh
# demo.sh — what `make demo` runs: serve the bundled example site on
# 127.0.0.1, archive it two levels deep into a fresh data directory, and
# say where to open the result.  DEMO_DIR overrides the data directory.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PATH="${ABX_TEST_BIN:-$top/bin}:$PATH"   # make check: its sanitizer build
dir=${DEMO_DIR:-$top/demo}
work=$(mktemp -d "${TMPDIR:-/tmp}/abx-demo.XXXXXX")
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

python3 "$top/tests/httpd.py" --root "$top/examples/site" --port-file "$work/port" &
pid=$!
i=0
while [ ! -s "$work/port" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { echo "demo: the example server did not start" >&2; exit 1; }
	sleep 0.05
done
port=$(cat "$work/port")
rm -rf "$dir"
echo "demo: archiving http://127.0.0.1:$port/index.html two levels deep into $dir"
abx-add -d "$dir" --depth 2 --tag demo "http://127.0.0.1:$port/index.html" >/dev/null
abx-tick -d "$dir" -v 2>&1 | grep -E 'sealed|failed|crawl' || true
n=$(abx-ls -d "$dir" -k snapshot -s sealed --jsonl | wc -l | tr -d ' ')
echo "demo: $n pages archived and sealed."
echo "demo: open file://$dir/index.html in a browser"
