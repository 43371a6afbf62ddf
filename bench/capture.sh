#!/bin/sh
# capture.sh — capture once (issue 28): abx with every shipped plugin
# against the floor of what it must do, on one site, in one run.
#
# The site: 15 static pages (index.html linking 14, each with a style sheet
# and an image shared by all, and /favicon.ico), served by tests/httpd.py
# with 50 ms before every response (--latency-ms) and its --log.
#   floor  per page one `wget -p` with a WARC and one headless chromium
#          load (--dump-dom, the chrome hook's flags), 4 pages at a time
#          (xargs -P 4), the URL list known in advance: the least a capture
#          of wget's and a browser's can cost here;
#   abx    abx-add --depth 1 of index.html with every shipped plugin, then
#          abx-tick (4 snapshots at a time, CRAWL_MAX_CONCURRENT_SNAPSHOTS).
# Rounds alternate (floor, abx, abx, floor, ...); a figure is the median
# wall time over the rounds, and abx / floor is the ratio (target <= 1.0x).
# Also printed: the requests per page the server saw from abx, and the
# processes per snapshot (one more abx crawl under strace -f, counted by
# bench/procs.py: every process the crawl started, over the snapshots; and
# the same without the browser's own processes, a browser kept up removes).
#
# Environment: ABX_BENCH_CAPTURE_ROUNDS (default 2), ABX_BENCH_CAPTURE_BASE
# (another build: a directory with bin/ and share/, crawled too in each
# round and reported beside this one: a before and after in one run).
# Needs python3, wget and chromium; without one it says so and exits 0.
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
rounds=${ABX_BENCH_CAPTURE_ROUNDS:-2}
pages=15
for t in python3 wget chromium; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "capture: skipped: $t is not installed"
		exit 0
	}
done
W=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-capture.XXXXXX") || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$W"' EXIT INT TERM

# the tools, from a copy made now (a rebuild during the run changes nothing)
mkdir -p "$W/this" && cp -a "$top/bin" "$top/share" "$W/this/" || exit 1
builds=this
if [ -n "${ABX_BENCH_CAPTURE_BASE:-}" ]; then
	mkdir -p "$W/base" && cp -a "$ABX_BENCH_CAPTURE_BASE/bin" "$ABX_BENCH_CAPTURE_BASE/share" "$W/base/" || exit 1
	builds="this base"
fi

mkdir -p "$W/site"
i=1
links=
while [ $i -lt $pages ]; do
	links="$links<a href=\"p$i.html\">page $i</a> "
	i=$((i + 1))
done
page() {
	printf '<!DOCTYPE html><html><head><title>%s</title><link rel="stylesheet" href="style.css"></head>\n' "$1"
	printf '<body><h1>%s</h1><img src="img.png">%s</body></html>\n' "$1" "$2"
}
page "Capture bench" "$links" >"$W/site/index.html"
i=1
while [ $i -lt $pages ]; do
	page "Page $i" '<a href="index.html">home</a>' >"$W/site/p$i.html"
	i=$((i + 1))
done
echo 'body { font: 14px sans-serif }' >"$W/site/style.css"
printf '\211PNG\r\n\032\n\0\0\0\rIHDR\0\0\0\1\0\0\0\1\10\6\0\0\0\37\25\304\211\0\0\0\rIDATx\234c\370\377\377?\0\5\376\2\376\247\65\201\204\0\0\0\0IEND\256B`\202' >"$W/site/img.png"
cp "$W/site/img.png" "$W/site/favicon.ico"

python3 "$top/tests/httpd.py" --port-file "$W/port" --root "$W/site" --latency-ms 50 --log "$W/req.log" \
	2>"$W/httpd.err" &
pid=$!
n=0
while [ ! -s "$W/port" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
[ -s "$W/port" ] || { echo "capture: error: the test server did not start" >&2; exit 1; }
base="http://127.0.0.1:$(cat "$W/port")"
{
	echo "$base/index.html"
	i=1
	while [ $i -lt $pages ]; do echo "$base/p$i.html"; i=$((i + 1)); done
} >"$W/urls"

# floor_one URL: what a page costs at least (run by xargs)
cat >"$W/floor_one" <<'EOF'
#!/bin/sh
d=$(mktemp -d "$FLOOR_DIR/p.XXXXXX") || exit 1
(cd "$d" && wget -q -p --tries=1 --timeout=60 --warc-file=page -e robots=off -- "$1")
chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$d/profile" --dump-dom -- "$1" >"$d/dom.html" 2>/dev/null
exit 0
EOF
chmod +x "$W/floor_one"

now() { date +%s.%N; }
floor() {
	rm -rf "$W/floor" && mkdir -p "$W/floor"
	_t0=$(now)
	FLOOR_DIR=$W/floor xargs -P 4 -n 1 "$W/floor_one" <"$W/urls"
	echo "$_t0 $(now)" | awk '{ printf "%.2f\n", $2 - $1 }'
}
# abx BUILD: one crawl; prints its wall time; requests in $W/abx.req
abx() {
	rm -rf "$W/data"
	: >"$W/req.log"
	_t0=$(now)
	PATH="$W/$1/bin:$PATH" CHROME_SANDBOX=false abx-add -d "$W/data" --depth 1 \
		--plugins wget,title,favicon,headers,chrome,screenshot,pdf,dom,parse_html_urls,hashes \
		"$base/index.html" >/dev/null &&
		PATH="$W/$1/bin:$PATH" CHROME_SANDBOX=false abx-tick -d "$W/data" >/dev/null 2>"$W/tick.err"
	_t1=$(now)
	_s=$(PATH="$W/$1/bin:$PATH" abx-ls -d "$W/data" -k snapshot --jsonl | grep -c '"sealed"')
	[ "$_s" = "$pages" ] || echo "capture: warning: $1: $_s of $pages snapshots sealed" >&2
	wc -l <"$W/req.log" >"$W/$1.req"
	echo "$_t0 $_t1" | awk '{ printf "%.2f\n", $2 - $1 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

r=1
while [ "$r" -le "$rounds" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		floor >>"$W/floor.t"
		for b in $builds; do abx "$b" >>"$W/$b.t"; done
	else
		for b in $builds; do abx "$b" >>"$W/$b.t"; done
		floor >>"$W/floor.t"
	fi
	r=$((r + 1))
done

fl=$(median <"$W/floor.t")
echo "capture: floor (wget -p with a WARC + one chromium load a page, 4 at a time): $fl s for $pages pages"
for b in $builds; do
	t=$(median <"$W/$b.t")
	req=$(cat "$W/$b.req")
	# processes: one more crawl under strace
	procs=n/a
	if command -v strace >/dev/null 2>&1; then
		rm -rf "$W/data"
		PATH="$W/$b/bin:$PATH" CHROME_SANDBOX=false abx-add -d "$W/data" --depth 1 \
			--plugins wget,title,favicon,headers,chrome,screenshot,pdf,dom,parse_html_urls,hashes \
			"$base/index.html" >/dev/null
		PATH="$W/$b/bin:$PATH" CHROME_SANDBOX=false strace -f -o "$W/strace.log" \
			-e trace=execve,clone,clone3,fork,vfork abx-tick -d "$W/data" >/dev/null 2>&1
		procs=$(python3 "$top/bench/procs.py" "$W/strace.log" |
			awk -v n="$pages" '{ printf "%.1f (%.1f without the browser'"'"'s)", $1 / n, ($1 - $2) / n }')
	fi
	echo "$fl $t" | awk -v b="$b" -v req="$req" -v n="$pages" -v p="$procs" '{
		printf "capture: abx (%s build), every shipped plugin: %s s, %.2fx the floor (target <= 1.0x); %.1f requests a page; processes a snapshot: %s\n",
		    b, $2, $2 / $1, req / n, p }'
done
