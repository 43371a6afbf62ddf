#!/bin/sh
# A page loaded in the crawl's browser: CHROME_HOLD seconds later the
# browser must still be the one CrawlSetup launched.
pid=$(cat "$CRAWL_DIR/chrome/chrome.pid" 2>/dev/null) || {
	echo '{"type":"ArchiveResult","status":"failed","error":"no browser"}'; exit 1; }
sleep "${CHROME_HOLD:-0}"
if [ -d "/proc/$pid" ] && [ "$(sed 's/.*) //' "/proc/$pid/stat" | cut -c1)" != Z ]; then
	echo "browser $pid" >page.txt
	echo '{"type":"ArchiveResult","status":"succeeded","output_str":"page.txt"}'
else
	echo "{\"type\":\"ArchiveResult\",\"status\":\"failed\",\"error\":\"browser $pid was killed\"}"
	exit 1
fi
