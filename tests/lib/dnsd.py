#!/usr/bin/env python3
"""dnsd.py -- a tiny real DNS server over UDP for the abx tests.

Usage:
    python3 tests/lib/dnsd.py --bind ADDR [--port 53] --ready FILE
                              [--log FILE] NAME=ANSWER...

Answers A and AAAA queries for the names given, with TTL 0 (so that no
resolver keeps an answer), from ADDR:PORT over UDP.  Python 3 standard
library only; one thread.  Once bound it writes "ready" to FILE (by
rename, so a reader never sees it half written), and serves until killed.

ANSWER is a list of addresses separated by commas, IPv4 and IPv6 mixed;
a query of type A gets the IPv4 ones, AAAA the IPv6 ones, all in one
answer (so "mixed.test=192.0.2.10,127.0.0.1" answers both):

    pub.test=192.0.2.10
    loop6.test=::1

ANSWER "FIRST/THEN" rebinds: the name's first query of a type that
FIRST has addresses of is answered with FIRST, every later query of
that type with THEN (one counter a name and type):

    rebind.test=192.0.2.10/127.0.0.1

Names are matched without regard to case.  A name given but without an
address of the query's type, and any other query type of it (HTTPS,
MX, ...), gets an empty answer (NOERROR); an unknown name gets NXDOMAIN;
a packet that is not a standard query with one question gets FORMERR (or
nothing, if it is too short to answer).

--log FILE appends "NAME TYPE ANSWER" for each query, one a line,
flushed at once (ANSWER the addresses sent, "-" for none, NXDOMAIN).
"""

import argparse
import ipaddress
import os
import socket
import struct
import sys

QTYPE_A, QTYPE_AAAA = 1, 28
TYPE_NAMES = {QTYPE_A: "A", QTYPE_AAAA: "AAAA"}


def parse_answers(text):
    """'a,b' -> ([v4...], [v6...]) as packed bytes."""
    v4, v6 = [], []
    for a in text.split(","):
        a = a.strip()
        if not a:
            continue
        ip = ipaddress.ip_address(a)
        (v4 if ip.version == 4 else v6).append(ip.packed)
    return v4, v6


class Zone:
    def __init__(self, specs):
        self.names = {}   # name -> (first (v4, v6), then (v4, v6) or None)
        self.count = {}   # (name, qtype) -> queries answered so far
        for spec in specs:
            name, sep, ans = spec.partition("=")
            if not sep or not name:
                raise ValueError("not NAME=ANSWER: %r" % spec)
            first, slash, then = ans.partition("/")
            self.names[name.lower().rstrip(".")] = (
                parse_answers(first), parse_answers(then) if slash else None)

    def lookup(self, name, qtype):
        """None for an unknown name, else the list of packed addresses."""
        entry = self.names.get(name)
        if entry is None:
            return None
        if qtype not in (QTYPE_A, QTYPE_AAAA):
            return []
        first, then = entry
        which = 0 if qtype == QTYPE_A else 1
        if then is None or not first[which]:
            return (first if then is None else then)[which]
        n = self.count.get((name, qtype), 0)
        self.count[(name, qtype)] = n + 1
        return first[which] if n == 0 else then[which]


def read_question(pkt):
    """(name, qtype, end of question) of a query's one question, or None."""
    i, labels = 12, []
    while True:
        if i >= len(pkt):
            return None
        n = pkt[i]
        if n == 0:
            i += 1
            break
        if n & 0xC0 or i + 1 + n > len(pkt):
            return None   # no compression in a question we answer
        labels.append(pkt[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    if i + 4 > len(pkt):
        return None
    qtype, _qclass = struct.unpack("!HH", pkt[i:i + 4])
    return ".".join(labels).lower(), qtype, i + 4


def answer(zone, pkt, log):
    if len(pkt) < 12:
        return None
    qid, flags, qd = struct.unpack("!HHH", pkt[:6])
    rd = flags & 0x0100
    if flags & 0x8000:
        return None   # a response, not a query
    q = read_question(pkt) if qd == 1 and (flags >> 11) & 0xF == 0 else None
    if q is None:
        return struct.pack("!HHHHHH", qid, 0x8000 | rd | 0x0080 | 1, 0, 0, 0, 0)
    name, qtype, end = q
    addrs = zone.lookup(name, qtype)
    rcode = 3 if addrs is None else 0
    out = struct.pack("!HHHHHH", qid, 0x8400 | rd | 0x0080 | rcode, 1,
                      len(addrs or []), 0, 0) + pkt[12:end]
    for a in addrs or []:
        t = QTYPE_A if len(a) == 4 else QTYPE_AAAA
        # the name by a pointer to the question's (offset 12), class IN, TTL 0
        out += struct.pack("!HHHIH", 0xC00C, t, 1, 0, len(a)) + a
    if log:
        shown = ("NXDOMAIN" if addrs is None else
                 ",".join(str(ipaddress.ip_address(a)) for a in addrs) or "-")
        log.write("%s %s %s\n" % (name, TYPE_NAMES.get(qtype, str(qtype)), shown))
        log.flush()
    return out


def main():
    ap = argparse.ArgumentParser(description="a tiny UDP DNS server (tests)")
    ap.add_argument("--bind", required=True)
    ap.add_argument("--port", type=int, default=53)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--log")
    ap.add_argument("names", nargs="+", metavar="NAME=ANSWER")
    args = ap.parse_args()
    try:
        zone = Zone(args.names)
    except ValueError as e:
        sys.exit("dnsd: %s" % e)
    fam = socket.AF_INET6 if ":" in args.bind else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((args.bind, args.port))
    log = open(args.log, "a") if args.log else None
    tmp = args.ready + ".tmp"
    with open(tmp, "w") as f:
        f.write("ready\n")
    os.rename(tmp, args.ready)
    while True:
        pkt, peer = s.recvfrom(4096)
        try:
            out = answer(zone, pkt, log)
            if out is not None:
                s.sendto(out, peer)
        except Exception as e:   # one bad packet does not end the server
            print("dnsd: query from %s: %s" % (peer[0], e), file=sys.stderr)


if __name__ == "__main__":
    main()
