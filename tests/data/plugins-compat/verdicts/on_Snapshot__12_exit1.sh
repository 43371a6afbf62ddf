#!/bin/sh
# exit 1, no ArchiveResult
echo "it broke" >&2
exit 1
