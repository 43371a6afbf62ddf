#!/bin/sh
# exit 10, no ArchiveResult
exit 10
