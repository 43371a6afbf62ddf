#!/bin/sh
# abx-hook: required_binaries — found and recorded, or a clean failure that
# is retried later with backoff, not on every pass; BinaryRequest providers.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/page >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)

mkplugin() {   # mkplugin NAME KEY DEFAULT PROVIDERS
	mkdir -p "$T/plugins/$1"
	cat >"$T/plugins/$1/config.json" <<EOF
{"properties": {"$2": {"type": "string", "default": "$3"}},
 "required_binaries": [{"name": "{$2}", "binproviders": "$4"}]}
EOF
	printf '#!/bin/sh\nprintf "%%s\\n" "$%s" >bin.txt\n' "$2" >"$T/plugins/$1/on_Snapshot__10_$1.sh"
	chmod +x "$T/plugins/$1/on_Snapshot__10_$1.sh"
}
mkplugin needy NEEDY_BINARY abx-test-nosuchbin env
mkplugin fine FINE_BINARY jq env,apt
bin() { abx-ls -d "$D" -k binary --jsonl | jq -r "select(.name==\"$1\") | $2"; }
res() { jq -r "select(.type==\"ArchiveResult\" and .plugin==\"$1\") | $2" "$T/out"; }

plan 17
abx-hook -d "$D" "$S" >"$T/out"
is "$?" 0 "the phase runs"
like "$(res needy '.status + ": " + .notes')" \
	"^failed: binary abx-test-nosuchbin not found in PATH; next check at 20" \
	"a missing binary fails the plugin's hook with a clear error"
ok "and the hook did not run" test ! -e "$D/crawls/$C/$S/needy/bin.txt"
is "$(bin abx-test-nosuchbin '"\(.status) \(.num_uses_failed)"')" "queued 1" "the Binary record is queued"
R1=$(bin abx-test-nosuchbin .retry_at)
M1=$(bin abx-test-nosuchbin .modified_at)
is "$(res fine .status)" succeeded "a plugin whose binary is found runs"
is "$(cat "$D/crawls/$C/$S/fine/bin.txt")" "$(command -v jq)" "with <PLUGIN>_BINARY set to its path"
is "$(bin jq '"\(.status) \(.abspath) \(.binprovider)"')" "installed $(command -v jq) env" "recorded as installed"
like "$(bin jq .version)" "^1\.[0-9]" "with its version"

lines=$(wc -l <"$D/binaries.jsonl")
abx-hook -d "$D" "$S" >"$T/out"
like "$(res needy .notes)" "next check at $R1" "before retry_at the failure is reported from the record"
is "$(bin abx-test-nosuchbin .modified_at)" "$M1" "without looking again (the record is not rewritten)"
is "$(wc -l <"$D/binaries.jsonl")" "$lines" "nor is any Binary record"

ABX_NOW="$(echo "$R1" | sed 's/Z$//')1Z" abx-hook -d "$D" "$S" >"$T/out"
is "$(bin abx-test-nosuchbin .num_uses_failed)" 2 "after retry_at it is looked up again"
R2=$(bin abx-test-nosuchbin .retry_at)
is "$(( $(date -d "$R2" +%s) - $(date -d "$R1" +%s) ))" 120 "and the backoff doubles (60 s, then 120 s)"

mkdir -p "$T/bin"
printf '#!/bin/sh\necho "abx-test-nosuchbin version 2.5.1"\n' >"$T/bin/abx-test-nosuchbin"
chmod +x "$T/bin/abx-test-nosuchbin"
PATH="$T/bin:$PATH" ABX_NOW="$(date -u -d "$R2 + 1 sec" +%Y-%m-%dT%H:%M:%S.000000Z)" abx-hook -d "$D" "$S" >"$T/out"
is "$(res needy .status) $(bin abx-test-nosuchbin '"\(.status) \(.version)"')" "succeeded installed 2.5.1" \
	"once installed it is found, and the plugin runs"

# a BinaryRequest provider plugin resolves what PATH does not have
mkplugin viaprov VIAPROV_BINARY abx-test-provided env,fakeprov
mkdir -p "$T/plugins/fakeprov"
cat >"$T/plugins/fakeprov/on_BinaryRequest__10_install.sh" <<EOF
#!/bin/sh
for a; do case \$a in --name=*) name=\${a#--name=};; esac; done
mkdir -p "$T/provided"
printf '#!/bin/sh\\necho 0.1.2\\n' >"$T/provided/\$name"
chmod +x "$T/provided/\$name"
echo '{"type": "Binary", "name": "'\$name'", "abspath": "$T/provided/'\$name'", "version": "0.1.2"}'
EOF
chmod +x "$T/plugins/fakeprov/on_BinaryRequest__10_install.sh"
abx-hook -d "$D" --plugins viaprov "$S" >"$T/out"
is "$(res viaprov .status)" succeeded "a provider hook installs a missing binary"
is "$(bin abx-test-provided '"\(.status) \(.binprovider) \(.version)"')" "installed fakeprov 0.1.2" \
	"recorded with its provider"
is "$(cat "$D/crawls/$C/$S/viaprov/bin.txt")" "$T/provided/abx-test-provided" "and its path is passed on"
done_testing
