#!/bin/sh
# exit 0, only a log and a pid file of its own, no ArchiveResult
echo log >own.log
echo $$ >own.pid
