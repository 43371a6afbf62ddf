#!/bin/sh
# exit 0, a new file, no ArchiveResult
echo "<p>page</p>" >page.html
