#!/bin/sh
# Runs the binary its provider installed, found as YTDLP_BINARY; reports
# the settings it got: YTDLP_ARGS as JSON on one line.
"$YTDLP_BINARY" >version.txt || exit 1
printf '%s\n' "$YTDLP_ARGS" >args.txt
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"version.txt"}'
