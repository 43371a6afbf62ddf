#!/bin/sh
# abx-hook: discovery, selection and (NN, name) order across plugins; -n.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins:$T/more" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/page >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)

# mkhook DIR PLUGIN FILE: a hook that appends its name to $T/order
mkhook() {
	mkdir -p "$1/$2"
	printf '#!/bin/sh\necho %s >> "%s/order"\n' "$3" "$T" >"$1/$2/$3"
	chmod +x "$1/$2/$3"
}
mkhook "$T/plugins" alpha on_Snapshot__20_alpha.sh
mkhook "$T/plugins" alpha on_Snapshot__05_early.py
mkhook "$T/plugins" beta on_Snapshot__10_beta.sh
mkhook "$T/plugins" beta on_Snapshot__20_aaa.sh
mkhook "$T/plugins" beta on_Snapshot__noorder.sh
mkhook "$T/plugins" beta on_CrawlSetup__10_setup.sh
mkhook "$T/more" beta on_Snapshot__01_shadowed.sh      # beta is shadowed by the first dir
mkhook "$T/more" gamma on_Snapshot__15_gamma.sh
printf '#!/bin/sh\necho notx >> "%s/order"\n' "$T" >"$T/plugins/alpha/on_Snapshot__01_notexec.sh"
printf 'not a hook\n' >"$T/plugins/alpha/helper.sh"
chmod +x "$T/plugins/alpha/helper.sh"
mkdir -p "$T/plugins/_private" "$T/plugins/.hidden"
mkhook "$T/plugins" _private on_Snapshot__00_private.sh

plan 18
abx-hook -d "$D" -n "$S" >"$T/plan"
is "$(jq -r .hook_name "$T/plan" | tr '\n' ' ')" \
	"on_Snapshot__noorder on_Snapshot__05_early on_Snapshot__10_beta on_Snapshot__15_gamma on_Snapshot__20_aaa on_Snapshot__20_alpha " \
	"-n lists the hooks in (NN, name) order across plugins"
is "$(jq -r '"\(.timeout) \(.background)"' "$T/plan" | sort -u)" "60 false" "with their timeouts and whether background"
ok "-n runs nothing" test ! -e "$T/order"
ok "-n takes no lease" test ! -e "$D/locks/$S"

abx-hook -d "$D" "$S" >"$T/out"
is "$(tr '\n' ' ' <"$T/order")" \
	"on_Snapshot__noorder.sh on_Snapshot__05_early.py on_Snapshot__10_beta.sh on_Snapshot__15_gamma.sh on_Snapshot__20_aaa.sh on_Snapshot__20_alpha.sh " \
	"hooks run in that order; non-executable, shadowed and _private ones do not"
is "$(jq -r 'select(.type=="ArchiveResult") | .status' "$T/out" | sort -u)" noresults \
	"each gets a result (noresults: exit 0, no ArchiveResult, no file, as abx-dl judges it)"
is "$(abx-ls -d "$D" -k result --jsonl | wc -l | tr -d ' ')" 6 "six results in the snapshot's journal"
ok "the hook's cwd is <snapshot>/<plugin>" test -d "$D/crawls/$C/$S/beta"
ok "a hook that printed nothing leaves no empty log" test ! -e "$D/crawls/$C/$S/beta/on_Snapshot__10_beta.stdout.log"

rm -f "$T/order"
abx-hook -d "$D" --plugins gamma,alpha "$S" >/dev/null
is "$(tr '\n' ' ' <"$T/order")" "on_Snapshot__05_early.py on_Snapshot__15_gamma.sh on_Snapshot__20_alpha.sh " \
	"--plugins selects plugins"
is "$(abx-ls -d "$D" -k result --jsonl | wc -l | tr -d ' ')" 6 "a rerun updates results, it does not add"

rm -f "$T/order"
BETA_ENABLED=False GAMMA_ENABLED=0 abx-hook -d "$D" "$S" >/dev/null
is "$(tr '\n' ' ' <"$T/order")" "on_Snapshot__05_early.py on_Snapshot__20_alpha.sh " "<PLUGIN>_ENABLED=false drops a plugin"

# required_plugins are pulled in; a disabled requirement drops the plugin
printf '{"required_plugins": ["gamma"]}\n' >"$T/plugins/alpha/config.json"
rm -f "$T/order"
abx-hook -d "$D" --plugins alpha "$S" >/dev/null
is "$(tr '\n' ' ' <"$T/order")" "on_Snapshot__05_early.py on_Snapshot__15_gamma.sh on_Snapshot__20_alpha.sh " \
	"required_plugins are pulled in"
rm -f "$T/order"
GAMMA_ENABLED=no abx-hook -d "$D" --plugins alpha "$S" >/dev/null 2>&1
ok "a plugin whose requirement is disabled does not run" test ! -e "$T/order"

echo 'PLUGINS=beta' >>"$D/abx.conf"
rm -f "$T/order"
abx-hook -d "$D" "$S" >/dev/null
is "$(tr '\n' ' ' <"$T/order")" "on_Snapshot__noorder.sh on_Snapshot__10_beta.sh on_Snapshot__20_aaa.sh " \
	"PLUGINS in abx.conf selects too"

expect_exit 69 "a plugin named in --plugins that is not installed exits 69" abx-hook -d "$D" --plugins nope "$S"
expect_exit 1 "no hook of the family selected exits 1" abx-hook -d "$D" --family CrawlCleanup "$C"
expect_exit 0 "CrawlSetup runs for a crawl id" abx-hook -d "$D" --family CrawlSetup "$C"
done_testing
