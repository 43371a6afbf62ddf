#!/bin/sh
# gluster-trace.sh — where a page's round trips come from, on the
# two-mount GlusterFS rig (tests/lib/gluster-rig.sh, coherent options):
# the crawl of bench/gluster.sh (two seeds of PAGES pages, one tick on each
# mount, --plugins wget,parse_html_urls, 50 ms a response), each tick and
# everything it starts under strace -f -ff, then
#   1. the brick's operations a page (gluster volume profile, cleared just
#      before the crawl and read just after), the most frequent first;
#   2. the path components each program opened a page (bench/pathcount.py:
#      on the mount each is a LOOKUP and a STAT at the brick), and the most
#      frequent (program, call, path shape).
# strace slows every process several times over: the counts are the
# point, not the time, which is printed only to say how long it took.
# (Paths under the mount's .meta/ are the GlusterFS client's own: they do
# not reach the brick.)
# Environment: ABX_TRACE_PAGES (30: pages a seed), ABX_TRACE_TOP (40),
# ABX_TRACE_KEEP (a directory to copy the strace logs and the profile to).
# Skipped, with the reason, where the rig cannot start or strace is absent.
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/lib/tap.sh
. "$dir/../tests/lib/tap.sh"
. "$dir/../tests/lib/gluster-rig.sh"
if ! command -v strace >/dev/null 2>&1; then
	echo "gluster-trace: skipped: strace is not installed"
	exit 0
fi
why=$(rig_why)
if [ -n "$why" ]; then
	echo "gluster-trace: skipped: $why"
	exit 0
fi
rig_start coherent >/dev/null
pages=${ABX_TRACE_PAGES:-30}
mkdir -p "$T/site" "$T/st"
python3 "$dir/site.py" "$T/site" "$pages" || exit 70
python3 "$dir/../tests/httpd.py" --port-file "$T/port" --root "$T/site" --latency-ms 50 &
hp=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
U=http://127.0.0.1:$(cat "$T/port")
A=$M1/c B=$M2/c
ca=$(abx-add -d "$A" --depth 1 --plugins wget,parse_html_urls "$U/a/index.html" | jq -r .id)
cb=$(abx-add -d "$B" --depth 1 --plugins wget,parse_html_urls "$U/b/index.html" | jq -r .id)
if [ -z "$ca" ] || [ -z "$cb" ]; then
	echo "gluster-trace: error: abx-add did not queue the two crawls" >&2
	exit 1
fi
rig_gluster volume profile "$RIG_VOL" start >/dev/null 2>&1
rig_gluster volume profile "$RIG_VOL" info clear >/dev/null
t0=$(date +%s%N | cut -c1-13)
# LeakSanitizer does not run under ptrace (a sanitizer build would abort)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
ABX_HOST=host-a strace -f -ff -qq -o "$T/st/a" abx-tick -d "$A" --crawl "$ca" >/dev/null 2>"$T/a.err" &
pa=$!
ABX_HOST=host-b strace -f -ff -qq -o "$T/st/b" abx-tick -d "$B" --crawl "$cb" >/dev/null 2>"$T/b.err"
rb=$?
wait "$pa"
ra=$?
t1=$(date +%s%N | cut -c1-13)
rig_gluster volume profile "$RIG_VOL" info cumulative >"$T/profile"
kill "$hp" 2>/dev/null
sealed=$(abx-ls -d "$A" -k snapshot -s sealed --jsonl | wc -l | tr -d ' ')
if [ "$ra" != 0 ] || [ "$rb" != 0 ] || [ "$sealed" -eq 0 ]; then
	echo "gluster-trace: error: the ticks exited $ra and $rb, $sealed pages sealed: $(head -c 300 "$T/a.err" "$T/b.err")" >&2
	exit 1
fi
echo "gluster-trace: $sealed pages sealed by two ticks under strace in $((t1 - t0)) ms"
echo "gluster-trace: brick operations a page: $(awk -v n="$sealed" -v top=10 -f "$dir/brickops.awk" "$T/profile")"
python3 "$dir/pathcount.py" "$T/st" "$sealed" "$M1" "$M2" -n "${ABX_TRACE_TOP:-40}"
if [ -n "${ABX_TRACE_KEEP:-}" ]; then
	mkdir -p "$ABX_TRACE_KEEP" && cp -r "$T/st" "$T/profile" "$ABX_TRACE_KEEP"/ &&
		echo "gluster-trace: the logs are in $ABX_TRACE_KEEP"
fi
