#!/bin/sh
# ArchiveBox's real plugin suite under abx: the Chrome-based JS plugins of
# a pinned copy of abx-plugins 1.10.71 (chrome, title, headers, dom,
# screenshot, parse_dom_outlinks) crawl a local site two levels deep, in
# two crawls run at once by two ticks, with Debian's chromium and the npm
# packages the chrome plugin loads.  Skipped unless all of it is here:
#
#   ABX_PLUGINS_PINNED      the abx_plugins/plugins directory of 1.10.71
#                           (git archive of the release commit, or the
#                           wheel's contents)
#   ABX_PINNED_CONFIG_DIR   a CONFIG_DIR (default ~/.config/abx) whose
#                           lib/<machine>-<system>/npm holds puppeteer-core,
#                           @puppeteer/browsers and abxbus:
#       PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix DIR/lib/x86_64-linux/npm \
#           puppeteer-core puppeteer @puppeteer/browsers 'abxbus@^2.5.4'
#   node and chromium       Debian's nodejs and chromium, on PATH
#
# The Python plugins of the suite need uv (not in Debian): they are not run.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
PIN=${ABX_PLUGINS_PINNED:-}
CFG=${ABX_PINNED_CONFIG_DIR:-${HOME:-/nonexistent}/.config/abx}
ARCH=$(printf '%s-%s' "$(uname -m)" "$(uname -s)" | tr '[:upper:]' '[:lower:]')
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
if [ -z "$PIN" ] || [ ! -f "$PIN/chrome/on_CrawlSetup__89_chrome_kill_zombies.js" ]; then
	skip_all "no pinned copy of abx-plugins 1.10.71 (ABX_PLUGINS_PINNED)"
fi
command -v node >/dev/null || skip_all "no node"
CHROMIUM=$(command -v chromium || command -v chromium-browser) || skip_all "no chromium"
[ -d "$CFG/lib/$ARCH/npm/node_modules/puppeteer-core" ] || skip_all "no puppeteer-core in $CFG/lib/$ARCH/npm"
unshare -u true 2>/dev/null || skip_all "unshare -u (a second tick needs a second host name) is not permitted"

export ABX_PLUGINS_DIR="$PIN" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
mkdir -p "$T/www"
page() { # NAME TITLE LINKS...
	_f=$T/www/$1
	_t=$2
	shift 2
	{
		printf '<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1>\n' "$_t" "$_t"
		i=0
		while [ $i -lt 40 ]; do
			printf '<p>%s: a paragraph of text that makes the page long enough to count (%s).</p>\n' "$_t" $i
			i=$((i + 1))
		done
		for l in "$@"; do printf '<p><a href="/%s">%s</a></p>\n' "$l" "$l"; done
		printf '</body></html>\n'
	} >"$_f"
}
page index.html "Tide pools" kelp.html rocks.html
page kelp.html "Kelp forests" deep.html
page rocks.html "Rock pools" index.html
page deep.html "The deep"
httpd_start --root "$T/www" || exit 1
D=$T/data
mkdir -p "$D"
{
	echo "CONFIG_DIR=$CFG"
	echo "CHROME_BINARY=$CHROMIUM"
	[ "$(id -u)" = 0 ] && echo "CHROME_SANDBOX=False"   # chromium refuses root with a sandbox
} >"$D/abx.conf"
P=chrome,title,headers,dom,screenshot,parse_dom_outlinks
A=$(abx-add -d "$D" --depth 2 --plugins $P "$BASE/index.html" | jq -r .id)
B=$(abx-add -d "$D" --depth 2 --plugins $P "$BASE/rocks.html" | jq -r .id)

abx-tick -d "$D" --crawl "$A" >"$T/a.out" 2>"$T/a.err" &
TA=$!
ok "crawl A's browser is up" wait_for 60 test -s "$D/crawls/$A/chrome/chrome.pid"
# shellcheck disable=SC2016  # $1 $2: the inner shell's
expect_exit 0 "crawl B, set up and run meanwhile by a tick of another host, ends" \
	unshare -u sh -c 'hostname abx-test-other && exec abx-tick -d "$1" --crawl "$2"' sh "$D" "$B"
wait "$TA"
is "$?" 0 "crawl A's tick exits 0"
is "$(abx-ls -d "$D" -k crawl --jsonl | jq -r .status | sort -u)" sealed "both crawls are sealed"
n() { abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.crawl_id == \"$1\") | \"\(.depth) \(.url | sub(\".*/\"; \"\")) \(.title)\"" | sort; }
is "$(n "$A" | tr '\n' '|')" "0 index.html Tide pools|1 kelp.html Kelp forests|1 rocks.html Rock pools|2 deep.html The deep|" \
	"crawl A: every page two levels deep, found by parse_dom_outlinks, titled by title"
is "$(n "$B" | tr '\n' '|')" "0 rocks.html Rock pools|1 index.html Tide pools|2 kelp.html Kelp forests|" "crawl B likewise"
abx-ls -d "$D" -k archiveresult --jsonl >"$T/results"
is "$(jq -r 'select(.status == "failed") | "\(.hook_name): \(.notes)"' "$T/results")" "" "no hook failed in either crawl"
is "$(jq -r 'select(.status == "skipped") | .hook_name' "$T/results" | sort -u)" "on_Snapshot__09_chrome_launch.daemon.bg" \
	"only the snapshot-level launch skipped itself (the crawl's browser was there)"
for h in chrome_navigate title headers dom screenshot; do
	is "$(jq -r "select(.hook_name | test(\"__[0-9]+_$h\")) | .status" "$T/results" | sort -u)" succeeded "$h succeeded on every page"
done
ok "screenshots were taken" test "$(find "$D/crawls" -path '*/screenshot/*.png' | wc -l)" -eq 7
ok "no heartbeat is left" test -z "$(find "$D/crawls" -name .heartbeat.json)"
sleep 1
is "$(pgrep -f -- "$D/crawls" | wc -l | tr -d ' ')" 0 "no browser or hook of either crawl is left running"
done_testing
