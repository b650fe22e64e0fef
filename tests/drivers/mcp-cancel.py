#!/usr/bin/env python3
# mcp-cancel.py - notifications/cancelled lands whenever it comes: in the same write as
# its tools/call, or 1, 10 or 100 ms after, with four calls in flight; a cancel after the
# answer is ignored. Prints a line a check: "ok DESC" or "not-ok DESC" with "#" lines.
# Needs PADDOCK, T, MARK and BACKEND in the environment.
import os, sys, time

import mcpclient
from mcpclient import alive, cancel

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


s = mcpclient.Server(PADDOCK, "--backend", BACKEND, cwd=T, stderr=None)
send, messages = s.send, s.messages


def reply(id, timeout=120):
    return s.reply(id, timeout)


def call(id, argv):
    return mcpclient.call(id, "run_command", {"argv": argv})


ok(s.init(name="mcp-cancel") is not None, "the server starts")

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
ok(s.close(120) == 0, "EOF ends the server")
sys.exit(1 if failed else 0)
