# hook-lib.sh — the setup of the abx-hook tests; source it after tap.sh.
# shellcheck shell=sh
#
# Makes a data directory $D with one crawl $C of one snapshot $S (its
# directory: $SD), plugins found in $T/plugins only, no syncs; and:
#   mkhook PLUGIN FILE <<EOF ... EOF   an executable hook from stdin
#   alive PID / gone PID              running (not a zombie) or not
#   elapsed T0                        seconds since T0 (date +%s.%N)
#   lt A B                            A < B (decimals)
ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
export ABX_PLUGINS_DIR ABX_SHARE_DIR ABX_SYNC
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/page >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)
SD=$D/crawls/$C/$S
export D S C SD

mkhook() {
	mkdir -p "$T/plugins/$1"
	cat >"$T/plugins/$1/$2"
	chmod +x "$T/plugins/$1/$2"
}
alive() { _st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1); [ -n "$_st" ] && [ "$_st" != Z ]; }
gone() { ! alive "$1"; }
elapsed() { echo "$(date +%s.%N) - $1" | bc; }
lt() { [ "$(echo "$1 < $2" | bc)" = 1 ]; }
