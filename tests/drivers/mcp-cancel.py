#!/usr/bin/env python3
# mcp-cancel.py - notifications/cancelled lands whenever it comes: in the same write as
# its tools/call, or 1, 10 or 100 ms after, with four calls in flight; a cancel after the
# answer is ignored. Prints a line a check: "ok DESC" or "not-ok DESC" with "#" lines. Needs PADDOCK, T, MARK and BACKEND in the environment.
import json, os, subprocess, sys, time

PADDOCK, T, MARK, BACKEND = (os.environ[k] for k in ("PADDOCK", "T", "MARK", "BACKEND"))
n = failed = 0


def ok(cond, desc, show=None):
    global n, failed
    n += 1
    print(("ok" if cond else "not-ok") + " %s: %s" % (BACKEND, desc), flush=True)
    if not cond:
        failed += 1
        if show is not None:
            print("#   " + str(show)[:300])


p = subprocess.Popen([PADDOCK, "mcp", "--backend", BACKEND], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, cwd=T)
buf = b""


def send(*msgs):
    p.stdin.write(b"".join((json.dumps(m) + "\n").encode() for m in msgs))
    p.stdin.flush()


def messages(timeout):
    """Every message the server writes within timeout seconds of silence."""
    global buf
    import select
    got = []
    while True:
        r, _, _ = select.select([p.stdout], [], [], timeout)
        if not r:
            return got
        chunk = os.read(p.stdout.fileno(), 1 << 20)
        if not chunk:
            return got
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            got.append(json.loads(line))


def reply(id, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        for m in messages(1):
            if m.get("id") == id:
                return m
    return None


def call(id, argv):
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "run_command", "arguments": {"argv": argv}}}


def cancel(id):
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}


def alive(pattern):
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()


send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
      "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "mcp-cancel", "version": "1"}}},
     {"jsonrpc": "2.0", "method": "notifications/initialized"})
ok(reply(0) is not None, "the server starts")

id = 100
for delay in (0, 0.001, 0.01, 0.1):
    ids = []
    for k in range(4):
        id += 1
        ids.append(id)
        tag = "%s-%s-%d" % (MARK, delay, k)
        if delay == 0:
            send(call(id, ["sh", "-c", "sleep 1000 # " + tag]), cancel(id))
        else:
            send(call(id, ["sh", "-c", "sleep 1000 # " + tag]))
            time.sleep(delay)
            send(cancel(id))
    # A lost cancel leaves its sleep running for 1000 s: waiting 120 s tells them apart
    # on any machine, however loaded.
    end = time.time() + 120
    while alive("%s-%s-" % (MARK, delay)) and time.time() < end:
        time.sleep(0.05)
    left = alive("%s-%s-" % (MARK, delay))
    ok(not left, "four calls cancelled %g ms after their call: none of their commands is left"
       % (delay * 1000), left)
    # The server answers a ping after them; a cancelled call is never answered.
    id += 1
    send({"jsonrpc": "2.0", "id": id, "method": "ping"})
    got, end = [], time.time() + 120
    while not any(m.get("id") == id for m in got) and time.time() < end:
        got += messages(1)
    answered = [m for m in got if m.get("id") in ids]
    ok(any(m.get("id") == id for m in got) and not answered,
       "... the server goes on, and none of them is answered", answered)

# A cancel after the answer is ignored: the next call runs as usual.
id += 1
send(call(id, ["echo", "done"]))
r = reply(id)
ok(r and r["result"]["structuredContent"]["stdout"] == "done\n", "a call runs to its answer", r)
send(cancel(id))
id += 1
send(call(id, ["echo", "after"]))
r = reply(id)
ok(r and r["result"]["structuredContent"]["stdout"] == "after\n",
   "a cancel after the answer is ignored, and the next call runs", r)
p.stdin.close()
ok(p.wait(timeout=120) == 0, "EOF ends the server")
sys.exit(1 if failed else 0)
