#!/bin/sh
# settings-typos.sh — a typo in a setting is not silent: an unknown key in
# abx.conf (HOST_DELAYS, a lower-case timeout) is one warning naming the
# line and the key it resembles; one in --config is refused (exit 78, as a
# bad value is) with the same words; a plugin's config.json keys and its
# aliases count as known; abx-ctl config marks the unknown ones, gives the
# true source of a plugin's value that came from TIMEOUT, and lists the
# defaults of HOST_*, DELETE_AFTER and CRAWL_MAX_CONCURRENT_SNAPSHOTS.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
plan 17
D=$T/data
mkdir -p "$D"
printf '%s\n' '# settings' 'timeout=90' 'HOST_DELAYS=2' 'TIMEOUT=45' 'WGET_ARGS_EXTRA=[]' 'SAVE_WGET=true' >"$D/abx.conf"

expect_exit 0 "abx-add with typos in abx.conf still runs" abx-add -d "$D" http://127.0.0.1:9/a
is "$(grep -c 'warning' "$T/stderr")" 2 "two warnings: one a typo"
like "$(cat "$T/stderr")" "abx.conf line 2: timeout is no setting .*did you mean TIMEOUT\\?" \
	"a lower-case key: its line, and the key"
like "$(cat "$T/stderr")" "abx.conf line 3: HOST_DELAYS is no setting .*did you mean HOST_DELAY\\?" \
	"HOST_DELAYS: its line, and HOST_DELAY"
is "$(grep -c 'WGET_ARGS_EXTRA\|SAVE_WGET\|TIMEOUT=' "$T/stderr")" 0 "a plugin's key and alias are known"

expect_exit 78 "--config TIMEOTU=5 is refused with 78 (EX_CONFIG)" abx-add -d "$D" --config TIMEOTU=5 http://127.0.0.1:9/b
like "$(cat "$T/stderr")" "--config TIMEOTU=5: TIMEOTU is no setting .*did you mean TIMEOUT\\?" "naming the flag and the key"
is "$(abx-ls -d "$D" -k crawl --jsonl | wc -l | tr -d ' ')" 1 "and queued nothing (the crawl above is the only one)"
expect_exit 0 "--config WGET_TIMEOUT=30 (a plugin's key) is taken" abx-add -d "$D" --config WGET_TIMEOUT=30 http://127.0.0.1:9/c

expect_exit 0 "abx-ctl config" abx-ctl -d "$D" config
cfg() { jq -r "select(.key == \"$1\") | $2" "$T/stdout"; }
is "$(cfg HOST_DELAYS '"\(.unknown) \(.did_you_mean)"')" "true HOST_DELAY" "HOST_DELAYS is marked unknown, with HOST_DELAY"
is "$(cfg timeout .unknown)" true "so is timeout"
is "$(cfg TIMEOUT .unknown)" null "TIMEOUT is not"
is "$(cfg TITLE_TIMEOUT '"\(.value) \(.source)"')" "45 TIMEOUT, abx.conf line 4" \
	"a plugin's timeout from TIMEOUT says so (not its config.json)"
is "$(cfg WGET_ENABLED .source)" "SAVE_WGET, abx.conf line 6" "a value set by an alias says so"
is "$(cfg HOST_MAX_DELAY '"\(.value) \(.source)"')" "300 built-in" "HOST_MAX_DELAY's default is listed"
is "$(jq -r 'select(.source == "built-in") | .key' "$T/stdout" | grep -cE '^(HOST_MAX_CONCURRENT|HOST_DELAY|HOST_DELAY_FACTOR|HOST_BACKOFF_RETRIES|DELETE_AFTER|CRAWL_MAX_CONCURRENT_SNAPSHOTS)$')" 6 \
	"and those of HOST_*, DELETE_AFTER and CRAWL_MAX_CONCURRENT_SNAPSHOTS"
