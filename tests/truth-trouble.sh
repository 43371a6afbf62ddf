#!/bin/sh
# Trouble is visible without -v: a pass in which hooks failed prints one
# line a failed snapshot on stderr (its URL, the plugin, the first line of
# the reason, not chromium's D-Bus noise) and exits 2; a pass in which
# nothing failed prints nothing and exits 0, as cron wants.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
D=$T/data
mkdir -p "$T/plugins/broken"
cat >"$T/plugins/broken/on_Snapshot__20_broken.sh" <<'HOOK'
#!/bin/sh
# what a headless chromium says on a machine without D-Bus, around the error
echo '[1201/053501.123456:ERROR:bus.cc(407)] Failed to connect to the bus: Failed to connect to socket /run/dbus/system_bus_socket: No such file or directory' >&2
echo '[1201/053501.123999:WARNING:dns_config_service_linux.cc(427)] Failed to read DnsConfig.' >&2
echo 'broken: unable to render the page: net::ERR_ABORTED' >&2
echo 'second line of the story' >&2
echo '[1201/053502.000001:ERROR:object_proxy.cc(576)] Failed to call method: org.freedesktop.DBus.Properties.Get' >&2
exit 1
HOOK
chmod +x "$T/plugins/broken/on_Snapshot__20_broken.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

abx-add -d "$D" --plugins title,broken "$BASE/site/page1.html" "$BASE/site/page2.html" >/dev/null
abx-tick -d "$D" >"$T/out" 2>"$T/err"
is "$?" 2 "a pass in which hooks failed exits 2"
is "$(cat "$T/out")" "" "nothing on stdout (not a terminal)"
is "$(wc -l <"$T/err" | tr -d ' ')" 2 "stderr: one line a failed snapshot"
for p in page1 page2; do
	like "$(grep -F "$BASE/site/$p.html" "$T/err")" \
		"^abx-tick: error: $BASE/site/$p.html: broken failed: exit status 1: broken: unable to render the page: net::ERR_ABORTED\$" \
		"$p: its URL, the plugin and the first line of the reason"
done
ok "no D-Bus noise in them" sh -c "! grep -Eq 'bus|DnsConfig' '$T/err'"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status | sort -u)" sealed "the snapshots are sealed all the same"

# nothing failed: quiet, exit 0; nothing due: exit 1
abx-add -d "$D" --plugins title "$BASE/site/page3.html" >/dev/null
abx-tick -d "$D" >"$T/out" 2>"$T/err"
is "$?" 0 "a pass in which nothing failed exits 0"
is "$(cat "$T/err")" "" "and says nothing"
abx-tick -d "$D" >"$T/out" 2>"$T/err"
is "$?" 1 "a pass with nothing due exits 1"

# a retry that fails again is reported again
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | endswith("page1.html")) | .id')
abx-ctl -d "$D" retry "$S" --plugins broken
abx-tick -d "$D" >"$T/out" 2>"$T/err"
is "$?" 2 "a retry that fails again exits 2"
like "$(cat "$T/err")" "page1.html: broken failed" "and names the page"
# two plugins failed on one page: still one line, naming the other
mkdir -p "$T/plugins/broken2"
printf '#!/bin/sh\necho "broken2: gave up" >&2\nexit 4\n' >"$T/plugins/broken2/on_Snapshot__30_broken2.sh"
chmod +x "$T/plugins/broken2/on_Snapshot__30_broken2.sh"
abx-add -d "$D" --plugins broken,broken2 "$BASE/site/page3.html?two" >/dev/null
abx-tick -d "$D" >"$T/out" 2>"$T/err"
is "$?" 2 "two plugins failed: exit 2"
is "$(cat "$T/err")" \
	"abx-tick: error: $BASE/site/page3.html?two: broken failed: exit status 1: broken: unable to render the page: net::ERR_ABORTED (also failed: broken2)" \
	"one line, naming the other plugin that failed"
done_testing
