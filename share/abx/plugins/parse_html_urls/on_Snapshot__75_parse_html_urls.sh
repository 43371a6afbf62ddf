#!/bin/sh
# on_Snapshot__75_parse_html_urls — the page's outlinks, into urls.jsonl.
#
#   on_Snapshot__75_parse_html_urls.sh --url=URL [--html=FILE]
#
# The work is done by parse_html_urls, the C program built beside this file
# (see the comment at the top of parse_html_urls.c for the algorithm and
# the record formats).  This wrapper only honours PARSE_HTML_URLS_ENABLED
# and reports a missing build.
case $0 in */*) dir=${0%/*} ;; *) dir=. ;; esac
case ${PARSE_HTML_URLS_ENABLED-true} in
[Ff]alse | FALSE | 0 | [Nn]o | NO | [Oo]ff | OFF | '')
	echo '{"type":"ArchiveResult","status":"skipped","output_str":"PARSE_HTML_URLS_ENABLED is false"}'
	exit 10
	;;
esac
if [ ! -x "$dir/parse_html_urls" ]; then
	echo "$dir/parse_html_urls is not built (run make)" >&2
	echo '{"type":"ArchiveResult","status":"failed","output_str":"parse_html_urls is not built","error":"parse_html_urls is not built (run make)"}'
	exit 1
fi
exec "$dir/parse_html_urls" "$@"
