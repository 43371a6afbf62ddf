#!/bin/sh
# a daemon that saves its capture on SIGTERM and exits 0, printing nothing
trap 'echo "{}" >capture.json; exit 0' TERM
sleep 100 &
wait
