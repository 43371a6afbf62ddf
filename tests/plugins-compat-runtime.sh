#!/bin/sh
# ArchiveBox's plugins under abx (issue 9, points 2, 4, 5 and 8): what a
# hook is given.  A binary provider hook (a stand-in of abx-plugins' pip
# hook, tests/data/plugins-compat/pip) gets every field of the request as
# --key=value, "overrides" the entry's per-provider object on one line, and
# --min-version; it installs into PIP_BIN_DIR, which abx derives as abx-dl
# does and puts first on PATH; ABX_RUNTIME is the user's (default abx);
# array and object settings are one line of JSON, as abx-dl writes them.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
export HOME="$T/home" PIP_ARGS_LOG="$T/pip-args" TMPDIR="$T"
unset CONFIG_DIR LIB_DIR LIB_BIN_DIR PERSONAS_DIR TMP_DIR PIP_HOME PIP_BIN_DIR NPM_HOME \
	NODE_MODULES_DIR NODE_PATH NPM_BIN_DIR PUPPETEER_CACHE_DIR PUPPETEER_SKIP_DOWNLOAD \
	CHROME_SANDBOX ABX_RUNTIME UV
mkdir -p "$T/plugins"
for p in pip ytdlp envdump; do cp -R "$TOP/tests/data/plugins-compat/$p" "$T/plugins/"; done
D=$T/data
abx-add -d "$D" --plugins ytdlp,envdump http://127.0.0.1:9/v >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)
SD=$D/crawls/$C/$S
ARCH=$(printf '%s-%s' "$(uname -m)" "$(uname -s)" | tr '[:upper:]' '[:lower:]')
CFG=$HOME/.config/abx
LIB=$CFG/lib/$ARCH

expect_exit 0 "abx-hook runs the snapshot" abx-hook -d "$D" "$S"
is "$(jq -r 'select(.type == "ArchiveResult") | "\(.plugin) \(.status)"' "$T/stdout" | sort | tr '\n' ' ')" \
	"envdump succeeded ytdlp succeeded " "the plugin whose binary a provider installed ran"

# point 2: the provider hook's arguments
is "$(jq -r 'select(startswith("--name=") or startswith("--plugin-name=") or startswith("--min-version=") or startswith("--binproviders="))' "$PIP_ARGS_LOG" | tr '\n' ' ')" \
	"--name=abx-test-ytdlp --plugin-name=ytdlp --min-version=2024.1.1 --binproviders=env,pip " \
	"name, plugin-name, min-version and binproviders, as abx-dl passes them"
is "$(jq -r 'select(startswith("--overrides="))' "$PIP_ARGS_LOG")" \
	'--overrides={"pip": {"install_args": ["yt-dlp[default]"]}}' \
	"overrides: the entry's per-provider object, on one line as json.dumps writes it"
like "$(jq -r 'select(startswith("--binary-id="))' "$PIP_ARGS_LOG")" '^--binary-id=[0-9a-f-]{36}$' "binary-id: the Binary record's id"
is "$(jq -r 'select(startswith("--output-dir="))' "$PIP_ARGS_LOG")" "--output-dir=$(cd "$D" && pwd -P)/crawls/$C" \
	"output-dir: the crawl's directory"
is "$(jq -r 'select(contains("\n"))' "$PIP_ARGS_LOG")" "" "no argument spans lines"
is "$(cat "$LIB/pip/venv/installed.txt" 2>/dev/null)" "yt-dlp[default]" \
	"the provider installed the package the overrides name, not the bare binary name"
is "$(abx-ls -d "$D" -k binary --jsonl | jq -r '"\(.name) \(.status) \(.binprovider) \(.abspath)"')" \
	"abx-test-ytdlp installed pip $LIB/pip/venv/bin/abx-test-ytdlp" "its Binary record: installed into PIP_BIN_DIR"
is "$(cat "$SD/ytdlp/version.txt")" "abx-test-ytdlp 2025.1.1" "the hook ran it"

# point 8: array and object settings on one line
is "$(cat "$SD/ytdlp/args.txt")" '["--no-progress", "--format=best"]' "an array default reaches the hook on one line"

# point 4: the runtime directories (abx-dl's derive_runtime_paths)
envof() { tr '\0' '\n' <"$SD/envdump/env.bin" | sed -n "s/^$1=//p"; }
is "$(envof CONFIG_DIR)" "$CFG" "CONFIG_DIR: ~/.config/abx"
is "$(envof LIB_DIR)" "$LIB" "LIB_DIR: CONFIG_DIR/lib/<machine>-<system>, over a schema's empty default"
is "$(envof LIB_BIN_DIR)" "$LIB/bin" "LIB_BIN_DIR"
is "$(envof PERSONAS_DIR)" "$CFG/personas" "PERSONAS_DIR"
is "$(envof TMP_DIR)" "$T" "TMP_DIR: \$TMPDIR"
is "$(envof PIP_HOME) $(envof PIP_BIN_DIR)" "$LIB/pip $LIB/pip/venv/bin" "PIP_HOME, PIP_BIN_DIR"
is "$(envof NPM_HOME) $(envof NODE_MODULES_DIR)" "$LIB/npm $LIB/npm/node_modules" "NPM_HOME, NODE_MODULES_DIR"
is "$(envof NODE_PATH) $(envof NPM_BIN_DIR)" "$LIB/npm/node_modules $LIB/npm/node_modules/.bin" "NODE_PATH, NPM_BIN_DIR"
is "$(envof PUPPETEER_CACHE_DIR) $(envof PUPPETEER_SKIP_DOWNLOAD) $(envof CHROME_SANDBOX)" "$LIB/puppeteer 1 true" \
	"PUPPETEER_CACHE_DIR, PUPPETEER_SKIP_DOWNLOAD, CHROME_SANDBOX"
like "$(envof PATH)" "^$LIB/bin:$LIB/pip/venv/bin:$LIB/npm/node_modules/.bin:" "the bin directories first on PATH"
is "$(envof ENVDUMP_ARGS)" '["--a", "--b=c d"]' "array settings: one line"
is "$(envof ENVDUMP_MAP)" '{"k": [1, 2], "s": "x, y: z"}' "object settings: one line, strings untouched"

# point 5: ABX_RUNTIME is the user's, default abx (a schema's abx-dl default does not win)
is "$(envof ABX_RUNTIME)" abx "ABX_RUNTIME defaults to abx"
echo "LIB_DIR=$T/mylib" >"$D/abx.conf"
abx-add -d "$D" --plugins envdump --config ABX_RUNTIME=archivebox --config CHROME_SANDBOX=False \
	http://127.0.0.1:9/w >/dev/null
S2=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | endswith("/w")) | .id')
C2=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r 'select(.url | endswith("/w")) | .crawl_id')
expect_exit 0 "a crawl that sets ABX_RUNTIME runs" abx-hook -d "$D" "$S2"
SD=$D/crawls/$C2/$S2
is "$(envof ABX_RUNTIME)" archivebox "ABX_RUNTIME can be set (a crawl's config)"
is "$(envof LIB_DIR) $(envof PIP_HOME) $(envof NODE_PATH)" "$T/mylib $T/mylib/pip $T/mylib/npm/node_modules" \
	"a LIB_DIR the user set is kept, and the rest derived from it"
is "$(envof CHROME_SANDBOX)" false "CHROME_SANDBOX=False is written as abx-dl writes it"
done_testing
