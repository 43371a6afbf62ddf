#!/usr/bin/env python3
"""tick-png.py -- how much a PNG shows, for the "not blank" check of a
screenshot (standard library only).

Usage: python3 tests/lib/tick-png.py FILE

Prints "WIDTH HEIGHT COLOURS INKED": the number of distinct pixel values and
the per mille of pixels that differ from the most common one (the
background).  A blank page gives 1 colour and 0 inked.  Handles 8-bit
greyscale, RGB, palette, grey+alpha and RGBA images, not interlaced.
"""

import collections
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG: " + path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or interlace:
        sys.exit("unsupported PNG: depth %d, interlace %d" % (depth, interlace))
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xFF
            elif f == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = pixels(sys.argv[1])
    count = collections.Counter()
    for line in rows:
        for i in range(0, len(line), bpp):
            count[line[i:i + bpp]] += 1
    total = w * h
    inked = total - count.most_common(1)[0][1]
    print(w, h, len(count), inked * 1000 // total)


if __name__ == "__main__":
    main()
