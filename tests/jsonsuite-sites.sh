#!/bin/sh
# jsonsuite-sites.sh — JSONTestSuite (tests/data/JSONTestSuite) where abx
# reads JSON from the outside, end to end (tests/unit/jsonsuite.c checks the
# reader itself):
#   abx-add's standard input: each document as the value of a record,
#     {"url":"…","v":DOC}: a y_ one is queued, an n_ one is refused with its
#     line number, exit 65, nothing stored;
#   a hook's output: each document printed as an ArchiveResult's
#     output_json: a y_ object, string or null is stored as the same value,
#     any other y_ value as its text with a note (tests/hook-output-json.sh);
#     an n_ one is never stored as JSON: as its text with a note, or not at
#     all when it breaks the ArchiveResult line itself (counted); and every
#     journal line stays JSON that jq reads.
# Documents holding a raw CR or LF cannot be one JSONL line and are left
# out (counted).  i_ documents are only required not to break a journal.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
SUITE=$TOP/tests/data/JSONTestSuite
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
plan 8

one_line() { [ "$(tr -d '\n\r' <"$1" | wc -c)" -eq "$(wc -c <"$1")" ]; }

# --- abx-add's standard input --------------------------------------------
add_bad=0 add_n=0 skipped=0
for f in "$SUITE"/y_*.json "$SUITE"/n_*.json; do
	b=${f##*/}
	if ! one_line "$f"; then skipped=$((skipped + 1)); continue; fi
	add_n=$((add_n + 1))
	{ printf '{"url":"http://127.0.0.1:9/","v":'; cat "$f"; printf '}\n'; } >"$T/in"
	case $b in y_*) dir=$T/add-y ;; *) dir=$T/add-n ;; esac   # add-n is never made
	abx-add -d "$dir" <"$T/in" >/dev/null 2>"$T/err"
	rc=$?
	case $b in
	y_*) [ "$rc" -eq 0 ] || { add_bad=$((add_bad + 1)); diag "abx-add refused $b: $(head -c 200 "$T/err")"; } ;;
	n_*) if [ "$rc" -ne 65 ] || ! grep -q 'line 1: malformed JSON record' "$T/err" || [ -e "$T/add-n" ]; then
		add_bad=$((add_bad + 1)); diag "abx-add took $b (exit $rc)"; fi ;;
	esac
done
diag "abx-add: $((add_n - add_bad)) of $add_n documents read as RFC 8259 says ($skipped multi-line ones left out)"
is "$add_bad" 0 "abx-add queues every valid record and refuses every invalid one, by its line"

# --- a hook's output_json ------------------------------------------------
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/page >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
mkdir -p "$T/plugins/oj"
k=0
for f in "$SUITE"/y_*.json "$SUITE"/n_*.json "$SUITE"/i_*.json; do
	one_line "$f" || continue
	k=$((k + 1))
	h=$T/plugins/oj/on_Snapshot__50_d$k.sh
	printf '#!/bin/sh\nprintf %%s %s\ncat %s\nprintf %%s\\\\n %s\n' \
		"'{\"type\":\"ArchiveResult\",\"status\":\"succeeded\",\"output_json\":'" "'$f'" "'}'" >"$h"
	chmod +x "$h"
	printf '%s %s\n' "d$k" "${f##*/}" >>"$T/map"
done
abx-hook -d "$D" "$S" >"$T/out" 2>"$T/err"
is "$?" 0 "the phase with $k hooks ran"
ok "every line abx-hook printed is JSON" sh -c "jq -e . '$T/out' >/dev/null"
ok "every journal line is JSON" sh -c "find '$D' -name '*.jsonl' -exec cat {} + | jq -e . >/dev/null"
abx-ls -d "$D" -k result --jsonl >"$T/results"
y_ok=0 y_n=0 n_ok=0 n_n=0 n_noted=0 stored=0
while read -r id name; do
	r=$(jq -c "select(.hook_name == \"on_Snapshot__50_$id\")" "$T/results")
	[ -n "$r" ] && stored=$((stored + 1))
	f=$SUITE/$name
	case $name in
	y_*)
		y_n=$((y_n + 1))
		case $(jq -r type "$f") in
		object | null | string) got=$(printf '%s\n' "$r" | jq -cS .output_json) ;;   # the value itself
		*) got=$(printf '%s\n' "$r" | jq -cS 'if (.notes | test("not a JSON object")) then .output_json | fromjson else "no note" end') ;;
		esac
		if [ "$got" = "$(jq -cS . "$f")" ]; then y_ok=$((y_ok + 1)); else
			diag "$name: stored $(printf '%s\n' "$r" | jq -c '[.output_json, .notes]' | head -c 200)"; fi ;;
	n_*)
		n_n=$((n_n + 1))
		# never stored as JSON: its text with a note, or nothing
		if printf '%s\n' "$r" | jq -e '(.output_json | type) as $t | $t == "null" or ($t == "string" and (.notes | test("not valid JSON")))' >/dev/null; then
			n_ok=$((n_ok + 1))
		else
			diag "$name: stored $(printf '%s\n' "$r" | jq -c '[.output_json, .notes]' | head -c 200)"
		fi
		printf '%s\n' "$r" | jq -e '.notes | test("not valid JSON")' >/dev/null && n_noted=$((n_noted + 1)) ;;
	esac
done <"$T/map"
diag "hook output_json: y_ $y_ok of $y_n kept as the same value; n_ $n_ok of $n_n never stored as JSON," \
	"$n_noted of them with a note (the others broke the ArchiveResult line itself, which is dropped without one)"
is "$stored" "$k" "every hook's result is stored"
is "$y_ok" "$y_n" "every valid document is kept as the same value ($y_ok of $y_n)"
is "$n_ok" "$n_n" "no invalid one is stored as JSON ($n_ok of $n_n)"
ok "no sanitizer report" sh -c "! grep -Eq 'runtime error|Sanitizer' '$T/err'"
