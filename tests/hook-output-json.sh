#!/bin/sh
# abx-hook: a hook's output_json is kept only if it is a JSON object; anything
# else is stored as a string with a note, and every journal line stays JSON.
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
D=$T/data
abx-add -d "$D" http://127.0.0.1:9/page >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)

# hook NAME LINE: a hook that prints LINE (printf %b: \t, \0nnn) and exits 0
hook() {
	mkdir -p "$T/plugins/oj"
	printf '#!/bin/sh\nprintf "%%b\\n" %s\n' "'$2'" >"$T/plugins/oj/on_Snapshot__$1.sh"
	chmod +x "$T/plugins/oj/on_Snapshot__$1.sh"
}
AR='{"type":"ArchiveResult","status":"succeeded"'
hook 10_object "$AR"',"output_json":{"n":2,"a":[1,{"b":null}]}}'
hook 11_null "$AR"',"output_json":null}'
hook 12_trailing_comma "$AR"',"output_str":"kept","output_json":{"a":1,}}'
hook 13_missing_value "$AR"',"output_json":{"a":{"b":}}}'
hook 14_control_byte "$AR"',"output_json":{"a":"x\ty"}}'
hook 15_array "$AR"',"output_json":[1,2]}'
hook 16_string "$AR"',"output_json":"plain text"}'
hook 17_bad_field "$AR"',"output_str":tru,"output_json":{"ok":true}}'
hook 18_latin1 "$AR"',"output_json":{"t":"caf\0351"}}'
hook 19_bad_tag '{"type":"Tag","name":"never",}'
hook 20_broken_line '{"type":"ArchiveResult" "status":"succeeded","output_json":{"a":1}}'

plan 18
abx-hook -d "$D" "$S" >"$T/out" 2>"$T/err"
is "$?" 0 "the phase ran"
ok "every line abx-hook printed is JSON" sh -c "jq -e . '$T/out' >/dev/null"
ok "every journal line is JSON" sh -c "find '$D' -name '*.jsonl' -exec cat {} + | jq -e . >/dev/null"
r() { abx-ls -d "$D" -k result --jsonl | jq -c "select(.hook_name==\"on_Snapshot__$1\") | $2"; }
is "$(r 10_object '[.output_json, .notes]')" '[{"n":2,"a":[1,{"b":null}]},""]' "an object is kept as it is"
is "$(r 11_null '[.output_json, .notes]')" '[null,""]' "null is null"
is "$(r 12_trailing_comma '[.status, .output_str, .output_json]')" '["succeeded","kept","{\"a\":1,}"]' \
	"a trailing comma: the result counts, output_json is the string the hook printed"
is "$(r 12_trailing_comma .notes)" '"output_json was not valid JSON; stored as a string"' "and a note says so"
is "$(r 13_missing_value .output_json)" '"{\"a\":{\"b\":}}"' "a missing nested value: a string"
is "$(r 14_control_byte .output_json)" '"{\"a\":\"x\ty\"}"' "a raw tab in a string: a string"
is "$(r 15_array '[.output_json, .notes]')" '["[1,2]","output_json was not a JSON object; stored as a string"]' \
	"an array: its text, as a string, with a note"
is "$(r 16_string '[.output_json, .notes]')" '["plain text","output_json was not a JSON object; stored as a string"]' \
	"a string: kept, with a note"
is "$(r 17_bad_field '[.output_str, .output_json]')" '["tru",{"ok":true}]' "another malformed field is read as text"
is "$(r 17_bad_field .notes)" "\"the ArchiveResult's output_str: not valid JSON, read as text\"" "and noted"
is "$(r 18_latin1 '[.output_json.t, .notes]')" '["caf�",""]' "bytes that are not UTF-8 become U+FFFD"
is "$(abx-ls -d "$D" "$S" | jq -r .tags)" "" "a malformed Tag record is ignored"
is "$(r 20_broken_line .notes | jq -r . | grep -o 'stdout line 1 begins with { but is not a JSON record (RFC 8259): not recorded')" \
	"stdout line 1 begins with { but is not a JSON record (RFC 8259): not recorded" \
	"a line that cannot be read as a record is never stored, and the notes say which line"
is "$(r 20_broken_line '[.status, .output_json]')" '["noresults",null]' "nothing of it is stored: the hook is judged as one that printed no result"
is "$(abx-ls -d "$D" -k process --jsonl | jq -r 'select(.hook_name=="on_Snapshot__12_trailing_comma") | .notes')" \
	"output_json was not valid JSON; stored as a string" "the Process record has the note too"
done_testing
