#!/usr/bin/env -S uv run --active --script
# /// script
# requires-python = ">=3.11"
# dependencies = []
# ///
# Writes the page's URL and says so, as the real Python hooks do.
import json, sys

url = next(a[6:] for a in sys.argv[1:] if a.startswith("--url="))
open("url.txt", "w").write(url + "\n")
print(json.dumps({"type": "ArchiveResult", "status": "succeeded", "output_str": "url.txt"}))
