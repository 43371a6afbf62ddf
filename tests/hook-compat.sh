#!/bin/sh
# The compatibility test: a plugin written only from ArchiveBox's hook
# contract (bash and python hooks that check their argv, cwd and
# environment, and print records the way ArchiveBox's hooks do) runs under
# abx-hook unchanged, and its records land in the snapshot's journal.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
D=$T/data
abx-add -d "$D" "http://127.0.0.1:9/compat?q=1&r=2" >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)
P=$T/plugins/compat
mkdir -p "$P"

cat >"$P/config.json" <<'EOF'
{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "compat",
  "description": "A plugin written from the ArchiveBox hook contract",
  "type": "object",
  "additionalProperties": false,
  "required_plugins": [],
  "required_binaries": [{"name": "{COMPAT_BINARY}", "binproviders": "env,apt,brew", "min_version": null}],
  "output_mimetypes": ["text/plain"],
  "properties": {
    "COMPAT_ENABLED": {"type": "boolean", "default": true, "x-aliases": ["SAVE_COMPAT", "USE_COMPAT"]},
    "COMPAT_TIMEOUT": {"type": "integer", "default": 7, "minimum": 5},
    "COMPAT_FETCH_TIMEOUT": {"type": "integer", "default": 3600, "x-fallback": "TIMEOUT"},
    "COMPAT_BINARY": {"type": "string", "default": "sh"},
    "COMPAT_ARGS": {"type": "array", "items": {"type": "string"}, "default": ["--quiet", "--x=a b"]},
    "COMPAT_USER_AGENT": {"type": "string", "default": "", "x-fallback": "USER_AGENT"}
  }
}
EOF

cat >"$P/on_Snapshot__50_compat.sh" <<'EOF'
#!/usr/bin/env bash
# Checks what the ArchiveBox contract promises a Snapshot hook.
set -euo pipefail
fail() { echo "compat: $*" >&2; exit 1; }
URL=""
for arg in "$@"; do
	case "$arg" in
	--url=*) URL="${arg#--url=}" ;;
	*) fail "unexpected argument: $arg" ;;
	esac
done
[ "$#" -eq 1 ] || fail "argc $#"
[ "$URL" = "http://127.0.0.1:9/compat?q=1&r=2" ] || fail "url $URL"
[ "$PWD" = "$SNAP_DIR/compat" ] || fail "cwd $PWD, SNAP_DIR $SNAP_DIR"
[ "$(dirname "$SNAP_DIR")" = "$CRAWL_DIR" ] || fail "CRAWL_DIR $CRAWL_DIR"
[ -t 0 ] && fail "stdin is a terminal"
[ -z "$(cat)" ] || fail "stdin is not empty"
python3 - <<'PY' || fail "EXTRA_CONTEXT $EXTRA_CONTEXT"
import json, os
c = json.loads(os.environ["EXTRA_CONTEXT"])
assert c["plugin"] == "compat" and c["hook_name"] == "on_Snapshot__50_compat", c
assert c["snapshot_depth"] == 0 and os.environ["SNAP_DIR"].endswith("/" + c["snapshot_id"]), c
assert json.loads(os.environ["COMPAT_ARGS"]) == ["--quiet", "--x=a b"]
PY
[ "$TIMEOUT" = 60 ] || fail "TIMEOUT $TIMEOUT"
[ "$COMPAT_TIMEOUT" = 7 ] || fail "COMPAT_TIMEOUT $COMPAT_TIMEOUT"
[ "$COMPAT_FETCH_TIMEOUT" = 60 ] || fail "COMPAT_FETCH_TIMEOUT $COMPAT_FETCH_TIMEOUT (x-fallback TIMEOUT)"
[ "$COMPAT_ENABLED" = True ] || fail "COMPAT_ENABLED $COMPAT_ENABLED"
[ -x "$COMPAT_BINARY" ] || fail "COMPAT_BINARY $COMPAT_BINARY"
[ -n "$COMPAT_USER_AGENT" ] && [ "$COMPAT_USER_AGENT" = "$USER_AGENT" ] || fail "USER_AGENT"
[ "$(ps -o pgid= -p $$ | tr -d ' ')" = "$(ps -o pid= -p $$ | tr -d ' ')" ] || fail "not a group leader"
echo "$URL" >url.txt
echo "compat: saved $URL" >&2
echo '{"type": "ArchiveResult", "status": "succeeded", "output_str": "url.txt"}'
EOF

cat >"$P/on_Snapshot__51_compat_py.finite.bg.py" <<'EOF'
#!/usr/bin/env python3
# The emit_* style of ArchiveBox's python helpers: EXTRA_CONTEXT merged
# into every record, os.write + fsync.
import json, os, sys
url = next(a[len("--url="):] for a in sys.argv[1:] if a.startswith("--url="))
ctx = json.loads(os.environ.get("EXTRA_CONTEXT") or "{}")
def emit(record):
    os.write(1, (json.dumps({**ctx, **record}) + "\n").encode())
    try:
        os.fsync(1)
    except OSError:
        pass
print("a log line on stdout", flush=True)
with open("title.txt", "w") as f:
    f.write("Compat page")
emit({"type": "Snapshot", "url": url + "/child", "depth": 1, "plugin": "compat", "id": ""})
emit({"type": "Tag", "name": "compat-tag"})
emit({"type": "ArchiveResult", "status": "noresult", "output_str": "0 URLs parsed", "output_json": {"n": 0}})
EOF

cat >"$P/on_CrawlSetup__10_compat_setup.sh" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
[ "$PWD" = "$CRAWL_DIR/compat" ] || { echo "cwd $PWD" >&2; exit 1; }
case "$1" in --url=http://127.0.0.1:9/compat*) ;; *) echo "argv $*" >&2; exit 1 ;; esac
touch setup-ran
EOF
chmod +x "$P"/on_*

plan 10
abx-hook -d "$D" "$S" >"$T/out"
is "$?" 0 "abx-hook runs the plugin"
r() { abx-ls -d "$D" -k result --jsonl | jq -r "select(.hook_name==\"$1\") | $2"; }
is "$(r on_Snapshot__50_compat '.status + " " + .output_str + " " + .notes')" "succeeded url.txt " \
	"the bash hook found argv, cwd and environment as the contract says"
is "$(r on_Snapshot__50_compat '.output_files | keys | join(",")')" "url.txt" "its output file is recorded"
is "$(r on_Snapshot__51_compat_py.finite.bg '.status + " " + .output_str + " \(.output_json.n)"')" \
	"noresults 0 URLs parsed 0" "the python hook's records land, EXTRA_CONTEXT keys and all"
is "$(r on_Snapshot__51_compat_py.finite.bg '.snapshot_id + " " + .plugin')" "$S compat" \
	"keyed by (snapshot, plugin, hook_name)"
is "$(abx-ls -d "$D" "$S" | jq -r '.tags')" "compat-tag" "its Tag record lands"
is "$(abx-ls -d "$D" "$S" | jq -r '.title')" "null" "a discovered Snapshot record is not this snapshot's"
is "$(abx-ls -d "$D" -k process --jsonl | jq -r 'select(.plugin=="compat") | .cmd[1]' | sort -u)" \
	"--url=http://127.0.0.1:9/compat?q=1&r=2" "Process records carry the argv"
is "$(abx-ls -d "$D" -k binary --jsonl | jq -r 'select(.name=="sh") | .status')" installed \
	"its required binary is recorded"
abx-hook -d "$D" --family CrawlSetup "$C" >/dev/null
ok "the CrawlSetup hook ran in <crawl>/<plugin>/ with the crawl's URL" test -e "$D/crawls/$C/compat/setup-ran"
done_testing
