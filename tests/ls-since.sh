#!/bin/sh
# abx-ls --since and --until select by when a record last changed
# (modified_at), not when it was made: a result that failed again a minute
# ago is found by --since today, though its record was made last month.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
P=$T/plugins
mkdir -p "$P/flaky"
cat >"$P/flaky/on_Snapshot__10_flaky.sh" <<'H'
#!/bin/sh
echo "refused by the server" >&2
exit 1
H
chmod +x "$P/flaky/on_Snapshot__10_flaky.sh"
ABX_PLUGINS_DIR=$P
export ABX_PLUGINS_DIR

# made and run in January; retried and run again on 1 March
C=$(ABX_NOW=2030-01-10T00:00:00Z abx-add -d "$D" --plugins flaky http://127.0.0.1:1/a | jq -r .id)
ABX_NOW=2030-01-10T00:01:00Z abx-tick -d "$D" >/dev/null 2>&1
ABX_NOW=2030-03-01T10:00:00Z abx-ctl -d "$D" retry --failed >/dev/null
ABX_NOW=2030-03-01T10:01:00Z abx-tick -d "$D" >/dev/null 2>&1
R=$(abx-ls -d "$D" -k result -s failed --jsonl)
like "$(echo "$R" | jq -r '"\(.created_at) \(.modified_at)"')" '^2030-01-10.* 2030-03-01' \
	"the failed result was made in January and changed on 1 March"

ids() { abx-ls -d "$D" --jsonl "$@" | jq -r .type | sort | tr '\n' ' '; }
is "$(ids -k result -s failed --since 2030-03-01)" "ArchiveResult " \
	"--since finds the result that failed again today"
is "$(ids -k result --until 2030-03-01)" "" "--until leaves it out: it last changed after"
is "$(ids -k snapshot --since 2030-03-01T10)" "Snapshot " "and the snapshot resealed then"
is "$(ids -k crawl --since 2030-02-01 --until 2030-03-02)" "Crawl " "a range holding the crawl's last change"
is "$(ids -k crawl --until 2030-02-01)" "" "not one before it, though the crawl was made in January"
is "$(abx-ls -d "$D" -k crawl --since 2030-03-01 --jsonl | jq -r .id)" "$C" "the crawl by id"
done_testing
