#!/bin/sh
# The crawl's browser: a process whose pid is in chrome.pid (as the real
# launch hook writes it), stopped with the daemon at the crawl's cleanup.
sleep 1000 &
browser=$!
echo "$browser" >chrome.pid
trap 'kill "$browser" 2>/dev/null; rm -f chrome.pid; exit 0' TERM INT
wait "$browser"
echo "the browser died" >&2
exit 1
