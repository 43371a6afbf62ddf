#!/bin/sh
# ArchiveBox's plugins under abx (issue 9, point 9): a hook whose #!
# interpreter is missing (uv, for every Python hook of abx-plugins) fails
# with a note naming it instead of a bare exit 127, and abx-hook -n lists,
# per plugin, the interpreters and binaries it lacks.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
mkdir -p "$T/plugins" "$T/uvbin"
for p in uvhook needs; do cp -R "$TOP/tests/data/plugins-compat/$p" "$T/plugins/"; done
D=$T/data
abx-add -d "$D" --plugins uvhook,needs http://127.0.0.1:9/i >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
PATH=$TOP/bin:/usr/bin:/bin
export PATH HOME="$T/home"
if command -v uv >/dev/null; then
	echo "1..0 # SKIP uv is installed in /usr/bin or /bin: its absence cannot be shown"
	exit 0
fi

# -n: what each plugin lacks, before anything runs
expect_exit 0 "abx-hook -n lists the hooks" abx-hook -d "$D" -n "$S"
is "$(jq -c 'select(.plugin == "uvhook") | .missing' "$T/stdout")" '["uv"]' "-n: uvhook lacks uv"
is "$(jq -c 'select(.plugin == "needs") | .missing' "$T/stdout" | sort -u)" \
	'["abx-test-absent-interpreter","abx-test-absent-binary"]' \
	"-n: needs lacks its hook's interpreter and its binary (on each of its hook lines)"
like "$(cat "$T/stderr")" 'plugin uvhook lacks \["uv"\]' "and says so per plugin on stderr"
like "$(cat "$T/stderr")" 'plugin needs lacks \["abx-test-absent-interpreter","abx-test-absent-binary"\]' \
	"for each plugin that lacks something"
ok "-n ran nothing" test ! -e "$D/crawls"/*/"$S/uvhook"

# a run without uv: failed, with a note that names it
rm -f "$T/plugins/needs/config.json"
expect_exit 0 "abx-hook runs the snapshot" abx-hook -d "$D" "$S"
st() { jq -r "select(.type == \"ArchiveResult\" and .hook_name == \"$1\") | .$2" "$T/stdout"; }
is "$(st on_Snapshot__10_uvhook status)" failed "a uv hook without uv fails"
is "$(st on_Snapshot__10_uvhook notes)" "uv: not found — Python plugins of abx-plugins need uv" \
	"with a note naming uv and why"
is "$(st on_Snapshot__20_needs notes)" "abx-test-absent-interpreter: not found — the interpreter its #! line names" \
	"any missing interpreter is named"
is "$(st on_Snapshot__21_sh status)" succeeded "the plugin's other hooks run"
is "$(jq -r 'select(.type == "Process") | .hook_name' "$T/stdout" | grep -c uvhook)" 0 "no process was started for it"

# with uv set (abx.conf UV=), the same hook runs (a stand-in uv that runs
# the script with python3, as `uv run --script` does once its
# dependencies are there)
cat >"$T/uvbin/uv" <<'EOF'
#!/bin/sh
# uv run [--active] [--script] FILE ARGS...
[ "$1" = run ] || exit 2
shift
while [ "${1#--}" != "$1" ]; do shift; done
exec python3 "$@"
EOF
chmod +x "$T/uvbin/uv"
echo "UV=$T/uvbin/uv" >"$D/abx.conf"     # abx-dl puts UV's directory on PATH
expect_exit 0 "abx-hook runs it again" abx-hook -d "$D" --plugins uvhook "$S"
is "$(st on_Snapshot__10_uvhook status)" succeeded "with uv on the hook's PATH it succeeds"
expect_exit 0 "abx-hook -n again" abx-hook -d "$D" -n --plugins uvhook "$S"
is "$(jq -c .missing "$T/stdout")" '[]' "-n: uvhook lacks nothing now"
done_testing
