#!/bin/sh
# The shape of lib/ (abx-internals(7) LAYOUT), read off the objects the tests
# run: no circle of modules, calls down the layers, short mains and files, a
# library that returns its errors.  `make layers` draws the tree.
. "$(dirname "$0")/lib/tap.sh"
OBJ=$(cd "$BIN/.." && pwd)/lib
python3 "$TOP/tests/lib/layers.py" "$OBJ"
