#!/bin/sh
# Sandbox by default (abx(7) SECURITY): the shipped chromium hooks (dom, pdf,
# screenshot) keep chromium's sandbox unless CHROME_SANDBOX is false or they
# run as root; then they pass --no-sandbox and say so once on stderr and in
# the result's notes.  A stand-in chromium records its arguments (and prints
# the D-Bus noise of the real one, which the notes must not carry); the
# hooks run as root and as an unprivileged user (nobody, by setpriv).
. "$(dirname "$0")/lib/tap.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	echo "1..0 # SKIP needs root and setpriv(1) to run hooks as root and as nobody"
	exit 0
fi
PLUG=$TOP/share/abx/plugins
chmod 755 "$T"    # nobody walks into it
mkdir -p "$T/bin"
cat >"$T/bin/chromium" <<'EOS'
#!/bin/sh
# a stand-in chromium: "UID ARG ARG ..." to $CHROME_ARGS_LOG; writes what was asked
printf '%s' "$(id -u)" >>"$CHROME_ARGS_LOG"
printf ' %s' "$@" >>"$CHROME_ARGS_LOG"
echo >>"$CHROME_ARGS_LOG"
i=0
while [ $i -lt 5 ]; do
	echo '[1:2:1201/054108.869315:ERROR:dbus/bus.cc:405] Failed to connect to the bus: Could not parse server address' >&2
	i=$((i + 1))
done
if [ -n "${STANDIN_FAIL:-}" ]; then
	echo '[1:2:1201/054109.1:ERROR:net/socket/tcp_socket.cc:1] net::ERR_CONNECTION_REFUSED' >&2
	echo '[1:2:1201/054109.2:ERROR:dbus/object_proxy.cc:572] Failed to call method: org.freedesktop.DBus.NameHasOwner' >&2
	exit 1
fi
for a; do
	case $a in
	--dump-dom) echo '<html><body>stand-in</body></html>' ;;
	--screenshot=*) printf '\211PNG\r\n\032\n' >"${a#--screenshot=}" ;;
	--print-to-pdf=*) printf '%%PDF-1.4\n' >"${a#--print-to-pdf=}" ;;
	esac
done
exit 0
EOS
chmod 755 "$T/bin/chromium"

# run AS PLUGIN [VAR=value...]: PLUGIN's hook as AS (root or nobody) in a
# fresh $T/AS-PLUGIN; result line in $out, stderr in $T/err, the stand-in's
# argument lines in $T/args
run() {
	_as=$1 _p=$2
	shift 2
	_dir=$T/$_as-$_p
	mkdir -p "$_dir"
	chmod 777 "$_dir"
	: >"$T/args"
	chmod 666 "$T/args"
	_h=$(ls "$PLUG/$_p"/on_Snapshot__*)
	set -- env CHROME_BINARY="$T/bin/chromium" CHROME_ARGS_LOG="$T/args" TIMEOUT=30 HOME="$_dir" "$@" \
		"$_h" --url=http://127.0.0.1:9/page
	if [ "$_as" = nobody ]; then
		set -- setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	fi
	out=$(cd "$_dir" && "$@" 2>"$T/err")
	rc=$?
}
result() { printf '%s\n' "$out" | jq -r "select(.type == \"ArchiveResult\") | .$1 // \"\""; }
has_arg() { tr ' ' '\n' <"$T/args" | grep -qx -- "$1"; }

for p in dom pdf screenshot; do
	run root "$p"
	is "$rc $(result status)" "0 succeeded" "$p as root: succeeded"
	is "$(cut -d' ' -f1 "$T/args")" 0 "$p as root: chromium ran as root"
	ok "$p as root: with --no-sandbox" has_arg --no-sandbox
	is "$(grep -c 'without its sandbox' "$T/err")" 1 "$p as root: said once on stderr"
	like "$(result error)" "^chromium ran without its sandbox: the hook runs as root" \
		"$p as root: and in the result (the runner's notes)"
	ok "$p: chromium's D-Bus noise is not in the hook's stderr" sh -c "! grep -q dbus '$T/err'"

	run nobody "$p"
	is "$rc $(result status)" "0 succeeded" "$p as nobody: succeeded"
	is "$(cut -d' ' -f1 "$T/args")" 65534 "$p as nobody: chromium ran as nobody"
	ok "$p as nobody: with its sandbox (no --no-sandbox)" sh -c "! tr ' ' '\n' <'$T/args' | grep -qx -- --no-sandbox"
	is "$(grep -c 'sandbox' "$T/err")$(result error)" 0 "$p as nobody: nothing said about it"

	run nobody "$p" CHROME_SANDBOX=False
	ok "$p as nobody, CHROME_SANDBOX=False: --no-sandbox" has_arg --no-sandbox
	is "$(result error)" "chromium ran without its sandbox: CHROME_SANDBOX is false" "$p: saying why"
done

# through abx-hook, as abx runs it: the notes of the ArchiveResult record
ABX_SYNC=0
export ABX_SYNC
D=$T/data
abx-add -d "$D" --plugins screenshot http://127.0.0.1:9/page >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
: >"$T/args"
CHROME_BINARY=$T/bin/chromium CHROME_ARGS_LOG=$T/args abx-hook -d "$D" "$S" >/dev/null 2>"$T/err"
R=$(abx-ls -d "$D" -k result --jsonl | jq -c 'select(.plugin == "screenshot")')
is "$(printf '%s' "$R" | jq -r .status)" succeeded "abx-hook: screenshot succeeded with the stand-in"
like "$(printf '%s' "$R" | jq -r .notes)" "^chromium ran without its sandbox: the hook runs as root" \
	"abx-hook: the result's notes say chromium ran without its sandbox"
ok "abx-hook: and carry no D-Bus noise" sh -c "! printf '%s' '$R' | grep -q dbus"

# a failure: the notes give chromium's reason, not the D-Bus noise around it
abx-add -d "$D" --plugins dom http://127.0.0.1:9/other >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url == "http://127.0.0.1:9/other") | .id')
STANDIN_FAIL=1 CHROME_BINARY=$T/bin/chromium CHROME_ARGS_LOG=$T/args abx-hook -d "$D" "$S" >/dev/null 2>"$T/err"
R=$(abx-ls -d "$D" -k result --jsonl | jq -c 'select(.plugin == "dom")')
is "$(printf '%s' "$R" | jq -r .status)" failed "abx-hook: dom failed with the failing stand-in"
like "$(printf '%s' "$R" | jq -r .notes)" "net::ERR_CONNECTION_REFUSED" "its notes give chromium's error"
ok "and no D-Bus noise" sh -c "! printf '%s' '$R' | grep -qi dbus"
done_testing
