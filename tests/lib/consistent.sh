# consistent.sh — check a data directory against its journals, independently
# of abx's own code (jq only).  Source it; call `consistent DIR`.  Prints
# what is wrong and returns 1, or returns 0 when:
#   - every journal ends with a newline and every line is valid JSON;
#   - the active records abx-ls reports (through the index) are exactly the
#     active records of the journals (last version of each id wins).
consistent() {
	_cdir=$1 _bad=0
	for _j in "$_cdir"/crawls.jsonl "$_cdir"/crawls/*/snapshots.jsonl; do
		[ -s "$_j" ] || continue
		if [ "$(tail -c 1 "$_j" | od -An -c | tr -d ' ')" != '\n' ]; then
			echo "# torn tail in $_j"; _bad=1
		fi
		if ! jq -c . "$_j" >/dev/null 2>&1; then
			echo "# invalid JSON line in $_j"; _bad=1
		fi
	done
	cat "$_cdir"/crawls.jsonl "$_cdir"/crawls/*/snapshots.jsonl 2>/dev/null |
		jq -sr 'map(select(.type=="Crawl" or .type=="Snapshot")) | group_by(.id) | map(last)
		        | map(select(.status != "sealed" or .retry_at != null))
		        | map("\(.id) \(.status)") | sort | .[]' >"$T/want.active"
	for _s in queued started paused; do
		abx-ls -d "$_cdir" -k crawl -s $_s --jsonl
		abx-ls -d "$_cdir" -k snapshot -s $_s --jsonl
	done | jq -r '"\(.id) \(.status)"' | sort >"$T/got.active"
	if ! cmp -s "$T/want.active" "$T/got.active"; then
		echo "# index disagrees with journals:"; diff "$T/want.active" "$T/got.active" | sed 's/^/# /'
		_bad=1
	fi
	return $_bad
}
