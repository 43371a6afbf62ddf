"""heldconn.py — what a connection held open across a snapshot switch
carries afterwards (tests/serve-gate-switch.sh's two drivers import it).

after(c, data): send data on the held socket c (an error sending is no
answer yet), then read until end of file; "none" (end of file or a reset,
no byte), "open" (nothing, but not closed either after 20 s), or the
first line of what came.  c is closed.
"""
import socket


def after(c, data):
    try:
        c.sendall(data)
    except OSError:
        pass
    c.settimeout(20)
    b = b""
    try:
        while True:
            k = c.recv(4096)
            if not k:
                break
            b += k
    except socket.timeout:
        if not b:
            c.close()
            return "open"
    except OSError:
        pass
    c.close()
    return "none" if not b else b.split(b"\n")[0].decode(errors="replace").strip()
