#!/bin/sh
# wget-requisites.sh — requisites lost to a server that drops requests are
# fetched again, and what is still missing is said (abx-hook(1), the wget
# hook).  A site of its own (tests/lib/flakysite.py): a page with a style
# sheet (which names a background image), six images, and one image whose
# every request is closed unanswered.
#   1. Through the egress gate, each requisite's first request is dropped
#      ("No data received"): all are archived after wget's retries but the
#      one that never answers, which the result's notes, its output_json,
#      the snapshot record ("incomplete"), index.json and the snapshot page
#      name; the hook succeeded and the snapshot is archived.  The retries
#      are bounded: the lost image was asked for three times.
#   2. Without the gate (ALLOW_PRIVATE_NETWORKS=true: wget talks to the
#      server itself), a server that closes each kept-alive connection at
#      its second request: the same.
#   3. A site that answers everything: no note, not incomplete.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

# site MODE: start tests/lib/flakysite.py in MODE; its base URL in $SITE
site() {
	[ -n "${SITE_PID:-}" ] && kill "$SITE_PID" 2>/dev/null && wait "$SITE_PID" 2>/dev/null
	rm -f "$T/site.port" "$T/site.log"
	python3 "$TOP/tests/lib/flakysite.py" --port-file "$T/site.port" --mode "$1" --images 6 \
		--log "$T/site.log" 2>"$T/site.err" &
	SITE_PID=$!
	wait_for 30 test -s "$T/site.port" ||
		{ echo "Bail out! flakysite.py did not start: $(cat "$T/site.err")"; exit 1; }
	SITE="http://127.0.0.1:$(cat "$T/site.port")"
}

# crawl DATA [ADD-OPTIONS...]: archive $SITE/page.html with wget alone
crawl() {
	_d=$1
	shift
	abx-add -d "$_d" --plugins wget "$@" "$SITE/page.html" >/dev/null
	abx-tick -d "$_d" >"$T/tick.out" 2>"$T/tick.err"
}
result() { abx-ls -d "$1" -k result --jsonl | jq -r "select(.plugin == \"wget\") | $2"; }
snap() { abx-ls -d "$1" -k snapshot --jsonl | jq -r "$2"; }
# the requisites archived, sorted, as "css a1 ... a6 bg"
archived() {
	find "$1/crawls" -path '*/wget/*' \( -name '*.png' -o -name '*.css' \) |
		sed 's|.*/||; s|\.png$||; s|style\.css|css|' | sort | tr '\n' ' ' | sed 's/ $//'
}
ALL="a1 a2 a3 a4 a5 a6 bg css"

# 1. through the gate, every requisite's first request dropped
site once
D=$T/once
crawl "$D"
is "$(archived "$D")" "$ALL" "through the gate: every requisite is archived after its first request was dropped"
is "$(result "$D" .status)" succeeded "the wget hook succeeded"
is "$(snap "$D" .sealed_reason)" archived "the snapshot is sealed archived"
like "$(result "$D" .notes)" "^1 of 9 page requisites missing after wget's retries: $SITE/img/gone.png \\(No data received\\)$" \
	"the result's notes name the requisite that never answered, and why"
is "$(result "$D" '.output_json.incomplete')" true "its output_json says incomplete"
is "$(result "$D" '.output_json.missing_requisites | map(.url) | join(" ")')" "$SITE/img/gone.png" \
	"and lists what is missing"
is "$(snap "$D" .incomplete)" true "the snapshot record says incomplete"
S=$(snap "$D" .id) C=$(snap "$D" .crawl_id)
is "$(jq -r .incomplete "$D/crawls/$C/$S/index.json")" true "so does its index.json"
like "$(cat "$D/crawls/$C/$S/index.html")" "incomplete: 1 page requisite missing" "its page says incomplete"
like "$(cat "$D/crawls/$C/$S/index.html")" "$SITE/img/gone.png \\(No data received\\)" "and names it"
is "$(grep -c '^/img/gone.png dropped' "$T/site.log")" 3 "the lost image was asked for 3 times, no more"
is "$(grep -c '^/img/a1.png ' "$T/site.log")" 2 "a dropped image, twice: once dropped, once served"
is "$(cat "$T/tick.err")" "" "the tick says nothing (the page is archived)"

# 2. no gate, a server that drops kept-alive connections
site keepalive
D=$T/keepalive
crawl "$D" --config ALLOW_PRIVATE_NETWORKS=true
ok "no gate: wget kept connections alive (the server dropped some)" grep -q ' dropped$' "$T/site.log"
is "$(archived "$D")" "$ALL" "every requisite is archived all the same"
is "$(result "$D" '.output_json.missing_requisites | map(.url) | join(" ")')" "$SITE/img/gone.png" \
	"the one that never answers is named"
is "$(snap "$D" .incomplete)" true "and the snapshot is incomplete"

# 3. a site that answers everything
httpd_start --pages 1 || exit 1
D=$T/fine
abx-add -d "$D" --plugins wget "$BASE/site/" >/dev/null
expect_exit 0 "a page whose requisites all answer" abx-tick -d "$D"
is "$(result "$D" .notes)" "" "no note"
is "$(snap "$D" '.incomplete // "absent"')" absent "the snapshot has no incomplete field"
S=$(snap "$D" .id) C=$(snap "$D" .crawl_id)
ok "its page does not say incomplete" sh -c "! grep -q incomplete: '$D/crawls/$C/$S/index.html'"
done_testing
