#!/bin/sh
# a daemon that saves its capture on SIGTERM and exits 0, printing nothing;
# it says when its trap is set ($VERDICTS_READY), so that the phase does
# not end, and stop it, before then on a loaded machine
trap 'echo "{}" >capture.json; exit 0' TERM
[ -n "${VERDICTS_READY:-}" ] && : >"$VERDICTS_READY"
sleep 100 &
wait
