#!/usr/bin/env python3
"""recproxy.py PORTFILE LOG — an HTTP proxy for a test that must know every
request a browser sends through its proxy.

It listens on 127.0.0.1 (an ephemeral port, written to PORTFILE once
listening) and writes the request line of every request it is sent to LOG,
one a line, as it arrives.  A plain request with an absolute http:// URL to
127.0.0.1 is forwarded to that origin (the request line rewritten to its
path, "Connection: close" added) and the answer relayed; anything else (a
CONNECT, another host) is answered 403 and not forwarded: nothing leaves
127.0.0.0/8.  Runs until killed.
"""
import os
import socket
import sys
import threading
from urllib.parse import urlsplit

portfile, logpath = sys.argv[1], sys.argv[2]
log = open(logpath, "a", buffering=1)
lock = threading.Lock()


def read_head(c):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = c.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def handle(c):
    try:
        head, rest = read_head(c)
        if head is None:
            return
        lines = head.split(b"\r\n")
        with lock:
            log.write(lines[0].decode("latin-1") + "\n")
        parts = lines[0].split(b" ")
        url = urlsplit(parts[1].decode("latin-1")) if len(parts) == 3 else None
        if not url or parts[0] == b"CONNECT" or url.scheme != "http" or url.hostname != "127.0.0.1":
            c.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        path = url.path or "/"
        if url.query:
            path += "?" + url.query
        out = [parts[0] + b" " + path.encode("latin-1") + b" " + parts[2]]
        for h in lines[1:]:
            name = h.split(b":", 1)[0].strip().lower()
            if name not in (b"connection", b"proxy-connection", b"keep-alive"):
                out.append(h)
        out.append(b"Connection: close")
        o = socket.create_connection(("127.0.0.1", url.port or 80), timeout=30)
        o.sendall(b"\r\n".join(out) + b"\r\n\r\n" + rest)
        while True:
            chunk = o.recv(65536)
            if not chunk:
                break
            c.sendall(chunk)
        o.close()
    except OSError:
        pass
    finally:
        c.close()


s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(portfile + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
while True:
    conn, _ = s.accept()
    threading.Thread(target=handle, args=(conn,), daemon=True).start()
