#!/usr/bin/env python3
# What abx-plugins 1.10.71's on_CrawlSetup__89_chrome_kill_zombies.js does
# (chrome_utils.js killZombieChrome), in Python: sweep SNAP_DIR and the
# crawls/ directory above CRAWL_DIR for */chrome/chrome.pid; the crawl that
# owns one is the nearest directory above it holding .heartbeat.json (else
# the directory holding chrome/); it is live while the heartbeat's
# owner_pid is alive and last_alive_at is at most kill_after_seconds old.
# The browser of any other crawl is killed.  Exits 10 (skipped), as the
# real hook does.
import json, os, signal, sys, time

crawl_dir = os.path.realpath(os.environ.get("CRAWL_DIR", "."))
snap_dir = os.path.realpath(os.environ.get("SNAP_DIR", crawl_dir))
out = os.path.join(crawl_dir, "chrome")
os.makedirs(out, exist_ok=True)
os.chdir(out)

def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False

def heartbeat_alive(d):
    try:
        hb = json.load(open(os.path.join(d, ".heartbeat.json")))
        pid, last = int(str(hb["owner_pid"])), float(hb["last_alive_at"])
        kill_after = float(hb.get("kill_after_seconds") or 180)
    except Exception:
        return False
    return pid > 0 and alive(pid) and time.time() - last <= kill_after

def owning_crawl(session, root):
    cur = session
    while cur.startswith(root):
        if os.path.exists(os.path.join(cur, ".heartbeat.json")) or cur == crawl_dir:
            return cur
        if os.path.dirname(cur) == cur:
            break
        cur = os.path.dirname(cur)
    return session

sweep = [snap_dir]
cur = crawl_dir
while cur != os.path.dirname(cur):
    if os.path.basename(cur) == "crawls":
        sweep.append(cur)
        break
    cur = os.path.dirname(cur)

killed = 0
for root in dict.fromkeys(sweep):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x != "node_modules"]
        if os.path.basename(d) != "chrome" or "chrome.pid" not in files:
            continue
        owner = owning_crawl(os.path.dirname(d), root)
        if owner == crawl_dir or heartbeat_alive(owner):
            continue
        try:
            pid = int(open(os.path.join(d, "chrome.pid")).read().split()[0])
        except Exception:
            continue
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
            killed += 1
            print(f"killed zombie browser {pid} of {owner}", file=sys.stderr)
        os.unlink(os.path.join(d, "chrome.pid"))
# the chrome hooks' own pid files (chrome/on_*chrome_*.pid, the runner's):
# a hook of a crawl whose heartbeat is not live is killed too
for root in dict.fromkeys(sweep):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x != "node_modules"]
        if os.path.basename(d) != "chrome":
            continue
        for f in files:
            if not (f.startswith("on_") and f.endswith(".pid") and "chrome_" in f):
                continue
            owner = owning_crawl(os.path.dirname(d), root)
            try:
                pid = int(open(os.path.join(d, f)).read().split()[0])
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
            except Exception:
                continue
            if pid == os.getpid() or not alive(pid) or heartbeat_alive(owner):
                continue
            if f[:-4] in cmd:
                os.kill(pid, signal.SIGTERM)
                killed += 1
                print(f"killed stale chrome hook {f[:-4]} ({pid}) of {owner}", file=sys.stderr)
print(f"{killed} chrome zombies.")
sys.exit(10)
