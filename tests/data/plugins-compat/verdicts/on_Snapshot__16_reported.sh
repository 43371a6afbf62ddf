#!/bin/sh
# exit 0, says skipped; first waits (up to 60 s) for the daemon before it
# to be ready for its SIGTERM ($VERDICTS_READY), since the phase ends with
# this hook
if [ -n "${VERDICTS_READY:-}" ]; then
	n=0
	while [ ! -e "$VERDICTS_READY" ] && [ "$n" -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
fi
echo '{"type":"ArchiveResult","status":"skipped","output_str":"not for this page"}'
