#!/bin/sh
# crawl.sh — crawl speed: abx-tick crawling a 500-page local site with
# --plugins wget,parse_html_urls, against `wget -r` of the same site from
# the same start URL to the same depth (-l DEPTH --no-parent, into a temp
# dir).  Every response is delayed by 50 ms (tests/httpd.py --latency-ms),
# so abx's advantage can only come from running snapshots concurrently
# (CRAWL_MAX_CONCURRENT_SNAPSHOTS: 4 by default; 16 shows scaling).
#
# The site: tests/httpd.py --root serving 500 static pages written here:
# index.html links 20 sections, each section about 24 leaves (and back),
# so depth 2 from index.html reaches all 500.  (httpd.py's generated /gen/
# site is a binary heap: depth 4, abx-add's limit, reaches only 31 pages.)
#
# Each round (the order alternates) runs wget -r, then abx-add + abx-tick
# in a fresh data dir per variant; a figure is the median over the rounds
# of the wall time.  A variant whose snapshot count differs from the number
# of pages wget saved is reported as INVALID rather than as a speed.
# Each abx line also gives the CPU time (user + system) of the crawl's
# processes per snapshot: with 2 CPUs a crawl cannot be faster than half
# its CPU time, whatever the concurrency.  The tools run from a copy of
# bin/ and share/ made at the start.
#
# Beside each abx variant runs wget2 -r with as many threads (Debian's
# threaded mirror: what a person who only wants a copy runs), and each
# figure is also put against the floor, pages x latency / concurrency.
# An abx line gives its CPU budget: the CPU time of every process of the
# crawl except the fetcher (wget runs under bench/cputime, which records
# its own CPU time), per snapshot, the fetcher's beside it; and the slot
# occupancy: the time snapshots' hooks ran (first start to last end of
# each snapshot's results) over slots x wall time.  bench/machine prints
# what this machine charges for a system call, a page fault, cpuid and a
# static program, the costs a page's processes are made of.
#
# Environment: ABX_BENCH_CRAWL_ROUNDS (default 2), ABX_BENCH_CRAWL_PAGES
# (default 500), ABX_BENCH_CRAWL_SLOTS (default "4 16"), and
# ABX_BENCH_CRAWL_BASE: another build of abx (a directory with bin/ and
# share/, such as a git worktree of an older commit after make), crawled
# too at each concurrency, alternating with this one, and reported as
# abx / baseline: two builds compared in one run, since two runs on one
# build differ by up to 15% here (abx-internals(7), "The cost of a page").
# The egress gate (abx(7) SECURITY): each concurrency is also crawled with
# ALLOW_PRIVATE_NETWORKS=true, alternating with the default, and "zones
# checked / every zone allowed" is reported (target <= 1.05).  Since the
# gate also paces the connections to a host (abx-gate(1) PACING), both
# runs go through a gate: the figure is the cost of the zone checks, no
# longer that of the gate (bench/gate.sh gives its CPU a request).
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
rounds=${ABX_BENCH_CRAWL_ROUNDS:-2}
pages=${ABX_BENCH_CRAWL_PAGES:-500}
slots=${ABX_BENCH_CRAWL_SLOTS:-4 16}
latency=50
sections=20
depth=2

for t in python3 wget; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "crawl: error: $t is not installed" >&2
		exit 69
	}
done
for t in abx-add abx-tick abx-hook; do
	[ -x "$top/bin/$t" ] || {
		echo "crawl: error: $top/bin/$t is not built (run make)" >&2
		exit 69
	}
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-crawl.XXXXXX") || exit 73
hpid=
cleanup() {
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null && wait "$hpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
unset ABX_DIR ABX_SYNC ABX_PLUGINS_DIR

# -- the site
mkdir "$tmp/site" "$tmp/tree" || exit 73
cp -R "$top/bin" "$top/share" "$tmp/tree/" || exit 73
bin=$tmp/tree/bin
base=${ABX_BENCH_CRAWL_BASE:-}
if [ -n "$base" ]; then
	if [ ! -x "$base/bin/abx-tick" ] || [ ! -x "$base/bin/abx-hook" ] || [ ! -d "$base/share" ]; then
		echo "crawl: error: ABX_BENCH_CRAWL_BASE=$base: no built abx there (bin/abx-tick, bin/abx-hook, share/)" >&2
		exit 66
	fi
	mkdir "$tmp/base" && cp -R "$base/bin" "$base/share" "$tmp/base/" || exit 73
	base=$(cd "$base" && pwd)
fi
python3 - "$tmp/site" "$pages" "$sections" <<'EOF' || exit 70
import os, sys
root, n, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
leaves = n - 1 - secs
per = [leaves // secs + (1 if i < leaves % secs else 0) for i in range(secs)]
def page(title, links):
    items = "".join('<li><a href="%s">%s</a></li>\n' % l for l in links)
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n"
            "<body><h1>%s</h1>\n<ul>\n%s</ul>\n</body></html>\n" % (title, title, items))
def put(name, text):
    with open(os.path.join(root, name), "w") as f:
        f.write(text)
put("index.html", page("Bench site", [("s%d.html" % i, "Section %d" % i) for i in range(secs)]))
for i in range(secs):
    put("s%d.html" % i, page("Section %d" % i, [("l%d-%d.html" % (i, j), "Leaf %d-%d" % (i, j))
                                                for j in range(per[i])] + [("index.html", "home")]))
    for j in range(per[i]):
        put("l%d-%d.html" % (i, j), page("Leaf %d-%d" % (i, j), [("s%d.html" % i, "up"),
                                                                 ("index.html", "home")]))
EOF

# -- the server
python3 "$top/tests/httpd.py" --port-file "$tmp/port" --root "$tmp/site" \
	--latency-ms "$latency" --log "$tmp/requests.log" &
hpid=$!
i=0
while [ ! -s "$tmp/port" ] && [ "$i" -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$tmp/port" ] || {
	echo "crawl: error: tests/httpd.py did not start" >&2
	exit 70
}
url=http://127.0.0.1:$(cat "$tmp/port")/index.html

now() { date +%s.%N; }
# cpu: set $cpuv to the user + system seconds of this shell's waited-for
# children so far (times must run in this shell, not in a subshell)
cpu() {
	times >"$tmp/times"
	cpuv=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] } print t + 0 }' "$tmp/times")
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run_wget ROUND: time and pages saved, into $tmp/res
run_wget() {
	: >"$tmp/requests.log"
	cpu
	c0=$cpuv
	s=$(now)
	wget -r -l "$depth" --no-parent -q -P "$tmp/wget.$1" "$url"
	e=$(now)
	cpu
	c1=$cpuv
	n=$(find "$tmp/wget.$1" -name '*.html' | wc -l | tr -d ' ')
	echo "wget $(elapsed "$s" "$e") $n $(wc -l <"$tmp/requests.log" | tr -d ' ') $(elapsed "$c0" "$c1")" >>"$tmp/res"
}

# run_wget2 ROUND THREADS
run_wget2() {
	[ -n "$wget2" ] || return 0
	s=$(now)
	"$wget2" -r -l "$depth" --no-parent -q --max-threads="$2" -P "$tmp/wget2.$1.$2" "$url"
	e=$(now)
	echo "wget2x$2 $(elapsed "$s" "$e") $(find "$tmp/wget2.$1.$2" -name '*.html' | wc -l | tr -d ' ')" >>"$tmp/res2"
}

# run_abx ROUND NAME SLOTS PLUGINS [BIN [ALLOW]]: BIN defaults to this
# build's; ALLOW is ALLOW_PRIVATE_NETWORKS (false: the gate checks zones)
run_abx() {
	ab=${5:-$bin}
	d=$tmp/abx.$1.$2
	: >"$tmp/requests.log"
	: >"$tmp/cpu.$2.$1"
	cpu
	c0=$cpuv
	s=$(now)
	"$ab/abx-add" -d "$d" --depth "$depth" --plugins "$4" \
		--config "CRAWL_MAX_CONCURRENT_SNAPSHOTS=$3" --config "HOST_MAX_CONCURRENT=$3" \
		--config "ALLOW_PRIVATE_NETWORKS=${6:-false}" "$url" >/dev/null || return 1
	if [ -x "$top/bench/cputime" ]; then
		WGET_BINARY=$top/bench/cputime ABX_BENCH_REAL=$(command -v wget) ABX_BENCH_CPU_LOG=$tmp/cpu.$2.$1 \
			"$ab/abx-tick" -d "$d" >/dev/null
	else
		"$ab/abx-tick" -d "$d" >/dev/null
	fi
	rc=$?
	e=$(now)
	cpu
	c1=$cpuv
	[ "$rc" -eq 0 ] || echo "crawl: warning: abx-tick exited $rc ($2)" >&2
	n=$(wc -l <"$d/index.jsonl" | tr -d ' ')
	echo "$2 $(elapsed "$s" "$e") $n $(wc -l <"$tmp/requests.log" | tr -d ' ') $(elapsed "$c0" "$c1")" >>"$tmp/res"
	# the fetcher's CPU (ms), and the slots' occupancy
	fcpu=$(awk '{ t += $1 } END { printf "%.1f", t / 1000 }' "$tmp/cpu.$2.$1")
	occ=$(cat "$d"/crawls/*/snapshots.jsonl | python3 -c '
import json, sys
from datetime import datetime
def t(s): return datetime.strptime(s.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f").timestamp() if s else None
last = {}
for line in sys.stdin:
    try: r = json.loads(line)
    except ValueError: continue
    if r.get("type") == "ArchiveResult": last[r["id"]] = r
span = {}
for r in last.values():
    a, b = t(r.get("start_ts")), t(r.get("end_ts"))
    if a is None or b is None: continue
    lo, hi = span.get(r["snapshot_id"], (a, b))
    span[r["snapshot_id"]] = (min(lo, a), max(hi, b))
busy = sum(b - a for a, b in span.values())
print("%.3f" % (busy / (float(sys.argv[1]) * float(sys.argv[2]))))' "$3" "$(elapsed "$s" "$e")")
	echo "$2 $fcpu $occ" >>"$tmp/res3"
}

# proc_cost NAME CMD...: the CPU of one run of CMD doing nothing (skipped,
# or --version), in ms, over 100 runs one at a time: what a process costs
# here, the floor under abx's share of a page
proc_cost() {
	_n=$1
	shift
	cpu
	_c0=$cpuv
	_i=0
	while [ "$_i" -lt 100 ]; do
		"$@" >/dev/null 2>&1 </dev/null
		_i=$((_i + 1))
	done
	cpu
	_ms=$(awk -v a="$_c0" -v b="$cpuv" 'BEGIN { printf "%.1f", (b - a) * 10 }')
	floor_ms=$(awk -v f="${floor_ms:-0}" -v m="$_ms" 'BEGIN { print f + m }')
	floor_text="${floor_text:+$floor_text, }$_n $_ms ms"
}
plug=$tmp/tree/share/abx/plugins
export WGET_ENABLED=false PARSE_HTML_URLS_ENABLED=false
proc_cost abx-hook "$bin/abx-hook" --version
proc_cost "the wget hook" "$plug/wget/on_Snapshot__06_wget.finite.bg.bin"
proc_cost parse_html_urls "$plug/parse_html_urls/on_Snapshot__75_parse_html_urls.bin"
unset WGET_ENABLED PARSE_HTML_URLS_ENABLED

plugins=wget,parse_html_urls
wget2=$(command -v wget2 2>/dev/null)
echo "crawl: $pages-page site (tests/httpd.py --root, $latency ms per response), start $url, depth $depth; $rounds rounds"
echo "crawl: host pacing wide open: HOST_MAX_CONCURRENT = the slots, HOST_DELAY 0 (the defaults: 4 and 0)"
: >"$tmp/res"
: >"$tmp/res2"
: >"$tmp/res3"
r=0
while [ "$r" -lt "$rounds" ]; do
	[ $((r % 2)) -eq 0 ] && run_wget "$r"
	for c in $slots; do
		if [ $((r % 2)) -eq 0 ]; then
			run_wget2 "$r" "$c"
			run_abx "$r" "abx$c" "$c" "$plugins"
			run_abx "$r" "nogate$c" "$c" "$plugins" "$bin" true
			if [ -n "$base" ]; then run_abx "$r" "base$c" "$c" "$plugins" "$tmp/base/bin"; fi
		else
			if [ -n "$base" ]; then run_abx "$r" "base$c" "$c" "$plugins" "$tmp/base/bin"; fi
			run_abx "$r" "nogate$c" "$c" "$plugins" "$bin" true
			run_abx "$r" "abx$c" "$c" "$plugins"
			run_wget2 "$r" "$c"
		fi
	done
	[ $((r % 2)) -eq 1 ] && run_wget "$r"
	r=$((r + 1))
done

# report NAME LABEL [TARGET]
tw=$(awk '$1 == "wget" { print $2 }' "$tmp/res" | median)
pw=$(awk '$1 == "wget" { print $3 }' "$tmp/res" | sort -n | head -n 1)
rw=$(awk '$1 == "wget" { print $4 }' "$tmp/res" | sort -n | head -n 1)
cw=$(awk '$1 == "wget" { print $5 / $3 * 1000 }' "$tmp/res" | median)
ncpu=$(nproc 2>/dev/null || echo 1)
report() {
	ta=$(awk -v k="$1" '$1 == k { print $2 }' "$tmp/res" | median)
	[ -n "$ta" ] || return 0
	na=$(awk -v k="$1" '$1 == k { print $3 }' "$tmp/res" | sort -n | uniq | tr '\n' '/' | sed 's,/$,,')
	ra=$(awk -v k="$1" '$1 == k { print $4 }' "$tmp/res" | sort -n | head -n 1)
	ca=$(awk -v k="$1" '$1 == k { print $5 / $3 * 1000 }' "$tmp/res" | median)
	line=$(awk -v a="$ta" -v w="$tw" 'BEGIN { printf "%.2fx (%.2f s vs %.2f s)", w / a, a, w }')
	ok=$(awk -v a="$ta" -v w="$tw" 'BEGIN { print (w / a >= 3) ? "ok" : "MISSED" }')
	if [ "$na" != "$pw" ]; then
		echo "crawl: $2: INVALID, $na snapshots sealed vs $pw pages wget saved (time $line)${3:+ [target >= 3x: MISSED]}"
	else
		fl=$(awk -v c="$ca" -v n="$na" -v p="$ncpu" 'BEGIN { printf "%.1f", c * n / 1000 / p }')
		echo "crawl: $2, wget -r / abx: $line; $na snapshots = $pw pages; $ra vs $rw requests; CPU $(printf %.0f "$ca") ms per snapshot (so >= $fl s on $ncpu CPUs)${3:+ [target >= 3x: $ok]}"
	fi
}
echo "crawl: wget -r: $pw pages, $rw requests, CPU $(printf %.1f "$cw") ms per page"
echo "crawl: a process that does nothing costs here (CPU, one at a time): $floor_text; the three abx runs a page: $floor_ms ms, more when the CPUs are shared"
# what those costs are made of on this machine (bench/machine.c)
if [ -x "$top/bench/machine" ]; then
	echo "crawl: $("$top/bench/machine" 2>&1)"
fi
case " $slots " in
*" 4 "*) report abx4 "abx-tick --plugins $plugins, 4 slots (default)" target ;;
esac
for c in $slots; do
	[ "$c" = 4 ] || report "abx$c" "abx-tick --plugins $plugins, $c slots"
done

# against wget2 at the same concurrency, and both against the floor
for c in $slots; do
	ta=$(awk -v k="abx$c" '$1 == k { print $2 }' "$tmp/res" | median)
	na=$(awk -v k="abx$c" '$1 == k { print $3 }' "$tmp/res" | sort -n | head -n 1)
	tot=$(awk -v k="abx$c" '$1 == k { print $5 / $3 * 1000 }' "$tmp/res" | median)
	fc=$(awk -v k="abx$c" '$1 == k { print $2 / '"${na:-1}"' }' "$tmp/res3" | median)
	oc=$(awk -v k="abx$c" '$1 == k { print $3 * 100 }' "$tmp/res3" | median)
	floor=$(awk -v p="$pages" -v l="$latency" -v c="$c" 'BEGIN { printf "%.2f", p * l / 1000 / c }')
	[ -n "$ta" ] && echo "crawl: abx, $c slots: CPU per snapshot $(awk -v t="$tot" -v f="$fc" 'BEGIN { printf "%.1f ms abx + %.1f ms wget", t - f, f }') [target abx <= 3 ms: $(awk -v t="$tot" -v f="$fc" 'BEGIN { print (t - f <= 3) ? "ok" : "MISSED" }')]; slots busy $(printf %.0f "$oc") % of the crawl [target >= 90 %: $(awk -v o="$oc" 'BEGIN { print (o >= 90) ? "ok" : "MISSED" }')]"
	t2=$(awk -v k="wget2x$c" '$1 == k { print $2 }' "$tmp/res2" | median)
	if [ -z "$t2" ]; then
		echo "crawl: wget2 is not installed: no comparison at $c slots"
		continue
	fi
	n2=$(awk -v k="wget2x$c" '$1 == k { print $3 }' "$tmp/res2" | sort -n | head -n 1)
	want=$([ "$c" -le 4 ] && echo 1.3 || echo 1.5)
	echo "crawl: $c slots: abx / wget2 --max-threads=$c: $(awk -v a="$ta" -v w="$t2" 'BEGIN { printf "%.2fx (%.2f s vs %.2f s)", a / w, a, w }') [target <= ${want}x: $(awk -v a="$ta" -v w="$t2" -v g="$want" 'BEGIN { print (a / w <= g) ? "ok" : "MISSED" }')]; floor $floor s: abx $(awk -v a="$ta" -v f="$floor" 'BEGIN { printf "%.2fx", a / f }'), wget2 $(awk -v a="$t2" -v f="$floor" 'BEGIN { printf "%.2fx", a / f }'); $na snapshots, wget2 saved $n2 pages"
done
for c in $slots; do
	[ -n "$base" ] || break
	ta=$(awk -v k="abx$c" '$1 == k { print $2 }' "$tmp/res" | median)
	tb=$(awk -v k="base$c" '$1 == k { print $2 }' "$tmp/res" | median)
	nb=$(awk -v k="base$c" '$1 == k { print $3 }' "$tmp/res" | sort -n | uniq | tr '\n' '/' | sed 's,/$,,')
	if [ -z "$ta" ] || [ -z "$tb" ]; then
		continue
	fi
	cb=$(awk -v k="base$c" '$1 == k { print $5 / $3 * 1000 }' "$tmp/res" | median)
	ca=$(awk -v k="abx$c" '$1 == k { print $5 / $3 * 1000 }' "$tmp/res" | median)
	echo "crawl: $c slots: abx / baseline ($base): $(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.2fx (%.2f s vs %.2f s)", a / b, a, b }'); CPU $(printf %.0f "$ca") vs $(printf %.0f "$cb") ms per snapshot; the baseline sealed $nb snapshots"
done
for c in $slots; do
	ta=$(awk -v k="abx$c" '$1 == k { print $2 }' "$tmp/res" | median)
	tn=$(awk -v k="nogate$c" '$1 == k { print $2 }' "$tmp/res" | median)
	if [ -z "$ta" ] || [ -z "$tn" ]; then continue; fi
	ca=$(awk -v k="abx$c" '$1 == k { print $5 / $3 * 1000 }' "$tmp/res" | median)
	cn=$(awk -v k="nogate$c" '$1 == k { print $5 / $3 * 1000 }' "$tmp/res" | median)
	echo "crawl: $c slots: zones checked / every zone allowed (ALLOW_PRIVATE_NETWORKS=true; both through the gate): $(awk -v a="$ta" -v b="$tn" 'BEGIN { printf "%.3fx (%.2f s vs %.2f s)", a / b, a, b }') [target <= 1.05x: $(awk -v a="$ta" -v b="$tn" 'BEGIN { print (a / b <= 1.05) ? "ok" : "MISSED" }')]; CPU $(printf %.1f "$ca") vs $(printf %.1f "$cn") ms per snapshot"
done
