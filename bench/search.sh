#!/bin/sh
# search.sh — abx-ls --search over 10,000 sealed snapshots, against the
# target of 1 s (issue 30).
#
# A crawl of 10 pages sealed by the tools (abx-add, abx-tick with a hook
# that saves a page as wget does: text.txt written at seal), copied 1,000
# times with fresh ids by bench/gencrawls.py; each snapshot's text.txt is
# then given its own words (about 6 KB of them, one snapshot in 1,000 with
# a rare word), so that a search reads what an archive holds.  The median
# of 5 searches for the rare word is printed; and, when ripgrep is
# installed, the median of 5 runs of one rg listing the text files that
# hold the word, alternated with them: abx-ls does not use rg, which is
# slower than its whole search (lssearch.c), and this shows whether that
# is still so.
# Environment: ABX_BENCH_SEARCH_CRAWLS (1000).
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
n=${ABX_BENCH_SEARCH_CRAWLS:-1000}
bin=$top/bin
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-search.XXXXXX") || exit 73
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
unset ABX_DIR ABX_NOW
ABX_SYNC=0
export ABX_SYNC
mkdir -p "$tmp/plugins/wget"
cat >"$tmp/plugins/wget/on_Snapshot__06_wget.sh" <<'H'
#!/bin/sh
mkdir -p host
printf '<html><head><title>Page %s</title></head><body><p>text</p></body></html>\n' "${1##*/}" >host/index.html
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"wget/host/index.html"}'
H
chmod +x "$tmp/plugins/wget/on_Snapshot__06_wget.sh"
ABX_PLUGINS_DIR=$tmp/plugins
export ABX_PLUGINS_DIR
for i in 0 1 2 3 4 5 6 7 8 9; do echo "http://127.0.0.1:9/p$i"; done |
	"$bin/abx-add" -d "$tmp/tpl" --plugins wget >/dev/null &&
	"$bin/abx-tick" -d "$tmp/tpl" >/dev/null 2>&1 && "$bin/abx-ctl" -d "$tmp/tpl" repair >/dev/null || exit 70
python3 "$top/bench/gencrawls.py" "$tmp/tpl" "$tmp/big" "$n" || exit 70
python3 - "$tmp/big" <<'P' || exit 70
import glob, random, sys
words = ("archive crawl page snapshot open source licence coffee river mountain history "
         "letter paper window garden music science number system market city").split()
rnd = random.Random(30)
for k, f in enumerate(sorted(glob.glob(sys.argv[1] + "/crawls/*/*/text.txt"))):
    body = " ".join(rnd.choice(words) for _ in range(900))
    if k % 1000 == 7:
        body += " zanzibarite"
    open(f, "w").write("Page %d\n\n%s\n" % (k, body))
P
count=$(find "$tmp/big/crawls" -name text.txt | wc -l)
# med CMD...: the median of 5 runs, in ms; the matches in $tmp/hits
med() {
	for _ in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$@" >"$tmp/hits" || exit 70
		echo $((($(date +%s%N) - t0) / 1000000))
	done | sort -n | sed -n 3p
}
ms=$(med "$bin/abx-ls" -d "$tmp/big" --jsonl --search zanzibarite)
found=$(wc -l <"$tmp/hits" | tr -d ' ')
if command -v rg >/dev/null 2>&1; then
	rgms=$(cd "$tmp/big" && med rg --files-with-matches --null --fixed-strings --ignore-case --no-config \
		--no-messages --no-ignore --max-depth 3 --glob text.txt -e zanzibarite -- crawls)
	ms2=$(med "$bin/abx-ls" -d "$tmp/big" --jsonl --search zanzibarite)
	rgms2=$(cd "$tmp/big" && med rg --files-with-matches --null --fixed-strings --ignore-case --no-config \
		--no-messages --no-ignore --max-depth 3 --glob text.txt -e zanzibarite -- crawls)
fi
echo "search: $count sealed snapshots, $found found; abx-ls --search: $ms ms${ms2:+ / $ms2 ms} (target 1000 ms)"
if [ -n "${rgms:-}" ]; then
	echo "search: one rg over the same text files (not used by abx-ls): $rgms ms / $rgms2 ms"
else
	echo "search: ripgrep is not installed (Debian: ripgrep): no comparison"
fi
