#!/usr/bin/env python3
# What abx-plugins 1.10.71's on_BinaryRequest__11_pip.py does with its
# arguments (click, unknown options allowed): --name, --binproviders,
# --min-version, --overrides (JSON, indexed by provider name: the pip
# hook installs overrides["pip"]["install_args"], else the name).  It
# "installs" into PIP_BIN_DIR (abx-dl's derived runtime path) a program
# that prints its version, and prints the Binary record.  Each argument
# is logged, one a line, to $PIP_ARGS_LOG (JSON strings).
import argparse, json, os, stat, sys

ap = argparse.ArgumentParser()
ap.add_argument("--name", required=True)
ap.add_argument("--binproviders", default="*")
ap.add_argument("--min-version", default="")
ap.add_argument("--overrides", default=None)
args, extra = ap.parse_known_args()
log = os.environ.get("PIP_ARGS_LOG")
if log:
    with open(log, "a") as f:
        for a in sys.argv[1:]:
            f.write(json.dumps(a) + "\n")
if args.binproviders != "*" and "pip" not in args.binproviders.split(","):
    print(f"pip provider not allowed for {args.name}", file=sys.stderr)
    sys.exit(0)
overrides = json.loads(args.overrides) if args.overrides else {}
provider_overrides = overrides.get("pip", {})
packages = provider_overrides.get("install_args") or [args.name]
bindir = os.environ.get("PIP_BIN_DIR", "")
if not bindir.startswith("/"):
    print(f"PIP_BIN_DIR is not a path: {bindir!r}", file=sys.stderr)
    sys.exit(1)
os.makedirs(bindir, exist_ok=True)
version = "2025.1.1"
if args.min_version and tuple(map(int, args.min_version.split("."))) > tuple(map(int, version.split("."))):
    print(f"{args.name} {version} is older than {args.min_version}", file=sys.stderr)
    sys.exit(1)
path = os.path.join(bindir, args.name)
with open(path, "w") as f:
    f.write("#!/bin/sh\necho %s %s\n" % (args.name, version))
os.chmod(path, 0o755)
with open(os.path.join(bindir, "..", "installed.txt"), "a") as f:
    f.write(" ".join(packages) + "\n")
print(json.dumps({"type": "Binary", "name": args.name, "abspath": path, "version": version,
                  "binprovider": "pip"}))
