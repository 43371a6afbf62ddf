#!/bin/sh
# exit 0, says skipped
echo '{"type":"ArchiveResult","status":"skipped","output_str":"not for this page"}'
