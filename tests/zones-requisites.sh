#!/bin/sh
# Network zones for requisites (abx(7) SECURITY): the wget hook and the
# chromium hooks do not fetch a page requisite (or, in chromium, a script's
# request) whose host is a literal in a private zone other than the page's
# own, unless ALLOW_PRIVATE_NETWORKS allows that zone.  The page is on
# 127.0.0.1 (loopback); its "private" requisite is on 0.0.0.0 (unspecified),
# which Linux delivers to 127.0.0.1: the test server sees whether it was
# fetched, and nothing leaves the machine.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
mkdir -p "$T/root"
httpd_start --root "$T/root" --log "$T/requests.log" || exit 1
cat >"$T/root/page.html" <<EOS
<!doctype html><html><head><title>requisites</title></head><body>
<img src="http://0.0.0.0:$HTTPD_PORT/unspecified.png">
<img src="http://127.0.0.1:$HTTPD_PORT/loopback.png">
<img src="http://localhost:$HTTPD_PORT/localhost.png">
<script>fetch("http://0.0.0.0:$HTTPD_PORT/script.png"); fetch("http://0:$HTTPD_PORT/numeric.png");</script>
</body></html>
EOS
for f in unspecified loopback localhost; do printf '\211PNG\r\n\032\n' >"$T/root/$f.png"; done
H=$(ls "$SHARE"/abx/plugins/wget/on_Snapshot__*)

# wget_hook DIR [VAR=value...]: the wget hook on page.html, cwd DIR/wget
wget_hook() {
	_d=$1
	shift
	mkdir -p "$_d/wget"
	: >"$T/requests.log"
	(cd "$_d/wget" && env TIMEOUT=30 WGET_SAVE_WARC=false "$@" "$H" --url="$BASE/page.html" >"$_d/out" 2>"$_d/err")
}
fetched() { sed -n 's|^/\(.*\)\.png$|\1|p' "$T/requests.log" | sort | tr '\n' ' '; }

expect_exit 0 "the wget hook archives a loopback page" wget_hook "$T/a"
is "$(jq -r .status "$T/a/out")" succeeded "and succeeds"
is "$(fetched)" "localhost loopback " "its loopback requisites are fetched, the one on 0.0.0.0 is not"

expect_exit 0 "with ALLOW_PRIVATE_NETWORKS=unspecified" wget_hook "$T/b" ALLOW_PRIVATE_NETWORKS=unspecified
is "$(fetched)" "localhost loopback unspecified " "the requisite on 0.0.0.0 is fetched too"
expect_exit 0 "with ALLOW_PRIVATE_NETWORKS=true" wget_hook "$T/c" ALLOW_PRIVATE_NETWORKS=true
is "$(fetched)" "localhost loopback unspecified " "every requisite is fetched"

# the dom hook, with the real chromium (which also runs the page's script)
if command -v chromium >/dev/null 2>&1; then
	D=$(ls "$SHARE"/abx/plugins/dom/on_Snapshot__*)
	# dom_hook DIR [VAR=value...]: the dom hook on page.html, cwd DIR/dom
	dom_hook() {
		_d=$1
		shift
		mkdir -p "$_d/dom"
		: >"$T/requests.log"
		(cd "$_d/dom" && env TIMEOUT=60 "$@" "$D" --url="$BASE/page.html" >"$_d/out" 2>"$_d/err")
	}
	expect_exit 0 "the dom hook renders a loopback page" dom_hook "$T/d"
	ok "its DOM is saved" grep -q requisites "$T/d/dom/output.html"
	is "$(fetched)" "localhost loopback " \
		"chromium fetches its loopback requisites, not the ones on 0.0.0.0 (an image, a script's fetch, http://0/)"
	expect_exit 0 "the dom hook with ALLOW_PRIVATE_NETWORKS=unspecified" dom_hook "$T/e" \
		ALLOW_PRIVATE_NETWORKS=unspecified
	is "$(fetched)" "localhost loopback numeric script unspecified " "then chromium fetches them all"
else
	pass "# SKIP chromium is not installed"
	pass "# SKIP chromium is not installed"
	pass "# SKIP chromium is not installed"
	pass "# SKIP chromium is not installed"
	pass "# SKIP chromium is not installed"
fi
done_testing
