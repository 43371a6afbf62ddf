"""keptgate.py — the worker's side of `abx-gate --kept` (gatekeep.c's
control protocol), for the tests that drive a kept gate by hand
(serve-gate-switch.sh, serve-gate-stall.sh).

KeptGate(port, data): start abx-gate --kept with its control socket as
fd 3; port is the test server's (base is its URL), data the directory of
the pacing locks.
  begin(allow, page, pace, n=2): a snapshot with n fresh listeners and a
      refusal log (a memfd); -> (answer, [ports], logfd)
  end(): end the current snapshot; -> its answer ("0|" is success)
  close(): end of file on the control socket; -> the gate's exit status,
      or "running" (then it is killed) after 30 s
Helpers: connect(p), head_of(c) (a response's status line, "eof" or
"error:..."), fetch(p, url) (its status code), tunnel(p, host_port,
extra) (a CONNECT through p; -> (socket, status line)), refused(p),
logof(fd) (what a refusal log holds).
"""
import os
import shutil
import socket
import subprocess


def connect(p):
    return socket.create_connection(("127.0.0.1", p), timeout=30)


def head_of(c):
    """Read until the end of a response head or EOF: its status line."""
    b = b""
    try:
        while b"\r\n\r\n" not in b:
            k = c.recv(4096)
            if not k:
                break
            b += k
    except OSError as e:
        return "error:%s" % e.__class__.__name__
    return b.split(b"\r\n")[0].decode(errors="replace") or "eof"


def fetch(p, url):
    c = connect(p)
    c.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % url).encode())
    st = head_of(c)
    c.close()
    return st.split(" ")[1] if st.startswith("HTTP/") else st


def tunnel(p, to, extra=b""):
    c = connect(p)
    c.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (to, to))
    st = head_of(c)
    if extra:
        c.sendall(extra)
    return c, st


def refused(p):
    try:
        socket.create_connection(("127.0.0.1", p), timeout=30).close()
        return "accepted"
    except ConnectionRefusedError:
        return "refused"
    except OSError as e:
        return "error:%s" % e.__class__.__name__


def logof(fd):
    return os.pread(fd, 1 << 20, 0).decode()


class KeptGate:
    def __init__(self, port, data):
        self.port, self.data = port, data
        self.base = "http://127.0.0.1:%d" % port
        self.ctl, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        cfd = child.fileno() if child.fileno() != 3 else os.dup(child.fileno())
        self.gate = subprocess.Popen(
            [shutil.which("abx-gate"), "--kept", "--parent", str(os.getpid())],
            stdout=subprocess.DEVNULL, close_fds=False,
            preexec_fn=lambda: os.dup2(cfd, 3, inheritable=True))
        child.close()
        self.ctl.settimeout(30)

    def answer(self):
        try:
            return self.ctl.recv(512).decode().replace("\t", "|")
        except OSError as e:
            return "error:%s" % e.__class__.__name__

    def begin(self, allow, page, pace, n=2):
        ls = []
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(128)
            ls.append(s)
        log = os.memfd_create("refusals", os.MFD_CLOEXEC)
        msg = b"\0".join([b"begin", str(allow).encode(), page.encode(), str(pace).encode(),
                          b"30", (self.data if pace else "").encode()])
        socket.send_fds(self.ctl, [msg], [s.fileno() for s in ls] + [log])
        got = self.answer()
        ports = [s.getsockname()[1] for s in ls]
        for s in ls:
            s.close()   # the gate has its own
        return got, ports, log

    def end(self):
        self.ctl.send(b"end")
        return self.answer()

    def close(self):
        self.ctl.close()
        try:
            return self.gate.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.gate.kill()
            return "running"
