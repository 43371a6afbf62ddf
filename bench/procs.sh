#!/bin/sh
# procs.sh — what a page costs, by program: the processes a crawl starts
# and the CPU they use, per snapshot, from the kernel's exit accounting
# (bench/taskacct: every process below abx-tick, its orphans included,
# none of the machine's others).
#
# Two crawls of a local site (tests/httpd.py --root, 50 ms a response;
# an index linking the other pages, depth 1), each under taskacct, with
# CRAWL_MAX_CONCURRENT_SNAPSHOTS=4:
#   1. --plugins wget,parse_html_urls, $ABX_BENCH_PROCS_PAGES pages
#      (default 60): the crawl issue 31 measures against wget2;
#   2. every shipped plugin, 15 pages, when chromium is installed (else
#      the line says it was skipped).
# For each, a line "procs: NAME: N snapshots, P processes (T threads) and
# C ms CPU a snapshot", then the programs, most CPU first: "procs: NAME:
# COMM: p processes, c ms a snapshot"; for every plugin, "procs:
# all-plugins: P processes a snapshot, the goal <= 15: met" (or MISSED;
# issue 28) with the browser's share: the processes named chromium (the
# browser, its zygote, renderers and utilities, and a distribution's
# launcher script where one runs), exe (the chrome hook's keeper of a
# worker's browser, started as /proc/self/exe) and chrome_crashpad_handler.  ABX_BENCH_PROCS_CRAWLS (default "wget-outlinks
# all-plugins") picks the crawls, ABX_BENCH_PROCS_LINES (default 12) the
# programs shown for each.  Skipped, with the reason, where
# taskstats is not available (not root, no CONFIG_TASKSTATS).
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
pages=${ABX_BENCH_PROCS_PAGES:-60}
crawls=${ABX_BENCH_PROCS_CRAWLS:-wget-outlinks all-plugins}

[ -x "$top/bench/taskacct" ] || {
	echo "procs: error: $top/bench/taskacct is not built (run make bench)" >&2
	exit 69
}
for t in abx-add abx-tick abx-hook; do
	[ -x "$top/bin/$t" ] || {
		echo "procs: error: $top/bin/$t is not built (run make)" >&2
		exit 69
	}
done
command -v python3 >/dev/null 2>&1 || {
	echo "procs: error: python3 is not installed" >&2
	exit 69
}
why=$("$top/bench/taskacct" -- true 2>&1 >/dev/null) || {
	echo "procs: skipped: $why"
	exit 0
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-procs.XXXXXX") || exit 73
hpid=
cleanup() {
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null && wait "$hpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
unset ABX_DIR ABX_SYNC ABX_PLUGINS_DIR

# the site: index.html links p1..pN; each page has a title, a paragraph,
# a stylesheet and an image, as a small real page does
mkdir "$tmp/site" || exit 73
python3 - "$tmp/site" "$pages" <<'EOF' || exit 70
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
def put(name, data):
    with open(os.path.join(root, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
def page(title, body):
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>%s</title>'
            '<link rel="stylesheet" href="/s.css"></head>\n<body><h1>%s</h1>'
            '<img src="/i.png" alt="">\n%s</body></html>\n' % (title, title, body))
put("s.css", "body { font-family: serif; margin: 2em; }\n")
# a 1x1 PNG
put("i.png", bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                           "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"))
put("index.html", page("Index", "<ul>\n" + "".join(
    '<li><a href="p%d.html">Page %d</a></li>\n' % (i, i) for i in range(1, n + 1)) + "</ul>\n"))
for i in range(1, n + 1):
    put("p%d.html" % i, page("Page %d" % i, "<p>Text of page %d.</p>\n<a href=\"index.html\">home</a>\n" % i))
EOF
python3 "$top/tests/httpd.py" --port-file "$tmp/port" --root "$tmp/site" --latency-ms 50 &
hpid=$!
i=0
while [ ! -s "$tmp/port" ] && [ "$i" -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$tmp/port" ] || {
	echo "procs: error: tests/httpd.py did not start" >&2
	exit 70
}
url=http://127.0.0.1:$(cat "$tmp/port")/index.html

# crawl NAME PLUGINS [ARG...]: one crawl under taskacct (PLUGINS "all":
# every shipped plugin), then its lines
crawl() {
	name=$1 plugins=$2
	shift 2
	d=$tmp/d.$name
	set -- --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=4 --config HOST_MAX_CONCURRENT=4 "$@"
	[ "$plugins" = all ] || set -- --plugins "$plugins" "$@"
	"$top/bin/abx-add" -d "$d" --depth 1 "$@" "$url" >/dev/null || return 1
	"$top/bench/taskacct" -o "$tmp/acct.$name" -- "$top/bin/abx-tick" -d "$d" >/dev/null 2>"$tmp/err.$name"
	rc=$?
	[ "$rc" -eq 0 ] || echo "procs: warning: abx-tick exited $rc ($name): $(tail -n 1 "$tmp/err.$name")" >&2
	n=$(wc -l <"$d/index.jsonl" | tr -d ' ')
	awk -v name="$name" -v n="$n" -v lines="${ABX_BENCH_PROCS_LINES:-12}" -v goal="${goal:-}" '
		$1 == "total" { total = $2; printf "procs: %s: %d snapshots, %.1f processes (%.1f threads) and %.1f ms CPU a snapshot\n", name, n, $2 / n, $3 / n, $4 / 1000 / n; next }
		{ line[++k] = sprintf("procs: %s: %s: %.2f processes, %.2f ms a snapshot", name, $4, $1 / n, $3 / 1000 / n) }
		$4 == "chromium" || $4 == "exe" || $4 ~ /^chrome_crashpad/ { browser += $1 }
		END {
			for (i = 1; i <= k && i <= lines; i++) print line[i]
			if (goal != "")
				printf "procs: %s: %.1f processes a snapshot, the goal <= %d: %s; the browser'"'"'s %.1f (chromium, its keeper \"exe\", chrome_crashpad)\n",
				    name, total / n, goal, total / n <= goal ? "met" : "MISSED", browser / n
		}' "$tmp/acct.$name"
}

want() { case " $crawls " in *" $1 "*) return 0 ;; esac; return 1; }
if want wget-outlinks; then
	crawl wget-outlinks wget,parse_html_urls || exit 1
fi
if ! want all-plugins; then
	:
elif command -v chromium >/dev/null 2>&1; then
	pages=15
	rm -f "$tmp/site"/p1[6-9].html "$tmp/site"/p[2-9][0-9].html
	python3 - "$tmp/site/index.html" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r'<li><a href="p(\d+)\.html">[^<]*</a></li>\n', lambda m: m.group(0) if int(m.group(1)) <= 15 else "", s)
open(p, "w").write(s)
EOF
	goal=15 crawl all-plugins all || exit 1
else
	echo "procs: all-plugins: skipped: chromium is not installed"
fi
