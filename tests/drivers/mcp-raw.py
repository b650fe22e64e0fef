#!/usr/bin/env python3
# mcp-raw.py - drives `paddock mcp` over its raw pipe: the protocol (initialize,
# tools, errors, a 100 MB line), overlapping calls, cancellation, EOF and SIGKILL.
# Prints TAP. Needs PADDOCK, T (a private temp directory) and MARK in the environment.
import json, os, subprocess, sys, time

import mcpclient
from mcpclient import alive, wait_gone

PADDOCK = os.environ["PADDOCK"]
T = os.environ["T"]
MARK = os.environ["MARK"]
tap = mcpclient.Tap()
ok = tap.ok


def Server(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return mcpclient.Server(PADDOCK, *args, env=e, cwd=T)


def wait_file(path, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return False


# --- protocol -----------------------------------------------------------------
s = Server()
r = s.request(1, "tools/list")
ok(r and r.get("error", {}).get("code") == -32002, "a request before initialize is refused", r)
r = s.request(2, "ping")
ok(r and r.get("result") == {}, "ping works before initialize", r)
r = s.init()
ok(r and r["result"]["protocolVersion"] == "2025-06-18" and "tools" in r["result"]["capabilities"],
   "initialize: the client's version, tools declared", r)
r = s.request(3, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
ok(r and r.get("error", {}).get("code") == -32600, "a second initialize is refused", r)
r = s.request(4, "tools/list")
names = [t["name"] for t in r["result"]["tools"]] if r and "result" in r else []
ok("run_command" in names and "recall_output" in names, "tools/list names run_command and recall_output", r)
ok(all("inputSchema" in t and t["description"] for t in r["result"]["tools"]), "every tool has a schema and a description", r)
s.send(b"this is not json\n")
r = s.recv(lambda m: m.get("error", {}).get("code") == -32700)
ok(r and r["id"] is None, "malformed JSON: parse error, id null", r)
s.send(b'[{"jsonrpc":"2.0","id":9,"method":"ping"}]\n')
r = s.recv(lambda m: m.get("error", {}).get("code") == -32600)
ok(r is not None, "a batch: invalid request", r)
s.send(b'{"jsonrpc":"1.0","id":10,"method":"ping"}\n')
r = s.reply(10)
ok(r and r["error"]["code"] == -32600, "wrong jsonrpc version: invalid request", r)
r = s.request(11, "no/such/method")
ok(r and r["error"]["code"] == -32601, "unknown method: method not found", r)
r = s.request(12, "tools/call", {"name": 5})
ok(r and r["error"]["code"] == -32602, "params of the wrong type: invalid params", r)
r = s.request(13, "tools/call", {"name": "no_such_tool", "arguments": {}})
ok(r and r["error"]["code"] == -32602, "unknown tool: invalid params", r)
r = s.request(14, "logging/setLevel", {"level": "loud"})
ok(r and r["error"]["code"] == -32602, "a bad log level: invalid params", r)
r = s.request(15, "logging/setLevel", {"level": "warning"})
ok(r and r.get("result") == {}, "logging/setLevel", r)
# 100 MB on one line: one parse error, and the server still serves.
chunk = b"x" * (1 << 20)
for _ in range(100):
    s.p.stdin.write(chunk)
s.p.stdin.write(b"\n")
s.p.stdin.flush()
r = s.recv(lambda m: m.get("error", {}).get("code") == -32700, timeout=120)
ok(r is not None and "longer" in r["error"]["message"], "a 100 MB line: parse error", r)
r = s.request(16, "ping")
ok(r and r.get("result") == {}, "still serving after the 100 MB line", r)

# --- tools --------------------------------------------------------------------
s.call(20, "run_command", {"argv": ["sh", "-c", "echo out; echo err >&2; exit 3"]})
r = s.reply(20)
res = r and r.get("result", {})
ok(res and res.get("isError") is False and res["structuredContent"]["exit_status"] == 3,
   "run_command: a non-zero exit is a result, not an error", r)
ok(res and res["content"][0]["text"].startswith("exit status: 3\nstdout:\nout\nstderr:\nerr\n"),
   "run_command: the text is the result as the CLI renders it", r)
s.call(21, "run_command", {"argv": ["sh", "-c", "seq 1 20000"]})
r = s.reply(21)
sc = r["result"]["structuredContent"] if r and "result" in r else {}
oid = sc.get("output_id")
ok(oid and sc["held_back"] and "held back" in r["result"]["content"][0]["text"]
   and oid in r["result"]["content"][0]["text"], "a long output: held back, with its output id", r)
s.call(22, "recall_output", {"id": oid or "00000000", "match": "^1999[0-9]$"})
r = s.reply(22)
text = r["result"]["content"][0]["text"] if r and "result" in r else ""
ok("19995" in text and r["result"].get("isError") is False, "recall_output finds the held-back lines", r)
s.call(23, "recall_output", {"id": "zz"})
r = s.reply(23)
ok(r and r["result"]["isError"] is True and "output id" in r["result"]["content"][0]["text"],
   "recall_output: a bad id is a tool error saying what an id is", r)
s.call(24, "run_command", {"argv": ["paddock-no-such-program"]})
r = s.reply(24)
ok(r and r["result"]["isError"] is True and "not found" in r["result"]["content"][0]["text"],
   "a program that does not exist: isError, saying so", r)
s.call(25, "run_command", {"argv": ["ls"], "timeoutSeconds": "soon"})
r = s.reply(25)
ok(r and r["result"]["isError"] is True and "timeoutSeconds" in r["result"]["content"][0]["text"],
   "an argument of the wrong type: isError naming it", r)
s.call(26, "run_command", {"argv": ["ls"], "colour": True})
r = s.reply(26)
ok(r and r["result"]["isError"] is True and "colour" in r["result"]["content"][0]["text"],
   "an unknown argument: isError naming it", r)
s.send(b'{"jsonrpc":"2.0","id":70,"method":"tools/call","params":{"name":"run_command",'
       b'"arguments":{"argv":["ls"],"col\\u001b[2J\xffour":true}}}\n')
r = s.reply(70)
ok(r and r["result"]["isError"] is True and "'col\\xffour'" in r["result"]["content"][0]["text"],
   "an unknown argument with an escape and a bad byte: named cleaned, the answer still UTF-8", r)
s.call(27, "run_command", {"argv": ["git", "push", "--force"]})
r = s.reply(27)
ok(r and r["result"]["isError"] is True and "not approved" in r["result"]["content"][0]["text"]
   and r["result"]["structuredContent"].get("ran") is False,
   "a call no one can approve is refused with the reason", r)
os.mkdir(os.path.join(T, "sub"))
s.call(28, "run_command", {"argv": ["cd", "sub"]})
r = s.reply(28)
s.call(29, "run_command", {"argv": ["pwd"]})
r = s.reply(29)
ok(r and r["result"]["structuredContent"]["stdout"].strip().endswith("/sub"),
   "cd lasts for the server's later calls", r)
s.call(30, "run_command", {"argv": ["cd", T]})
s.reply(30)

# --- overlap, progress, cancel ------------------------------------------------
s.call(40, "run_command", {"argv": ["sh", "-c", "sleep 1000 # %s-long" % MARK]},
       meta={"progressToken": "tok-40"})
r = s.recv(lambda m: m.get("method") == "notifications/progress"
           and m["params"]["progressToken"] == "tok-40", timeout=30)
ok(r is not None and r["params"]["progress"] >= 1, "progress notifications for a long call", r)
t0 = time.time()
r = s.request(41, "ping")
ok(r and r.get("result") == {} and time.time() - t0 < 5, "a long call does not block ping", r)
r = s.request(42, "tools/list")
ok(r and "result" in r, "nor tools/list", r)
s.call(43, "run_command", {"argv": ["echo", "alongside"]})
r = s.reply(43)
ok(r and r["result"]["structuredContent"]["stdout"] == "alongside\n", "nor another call", r)
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 40, "reason": "test"}})
ok(wait_gone(MARK + "-long"), "notifications/cancelled stops the command")
r = s.request(44, "ping")
ok(r and r.get("result") == {}, "and the server goes on", r)
ok(s.reply(40, timeout=1) is None, "a cancelled call gets no answer")

# --- EOF stops every command --------------------------------------------------
s.call(50, "run_command", {"argv": ["sh", "-c", "sleep 1000 # %s-eof" % MARK]})
s.call(51, "run_command", {"argv": ["sh", "-c", "sleep 1000 # %s-eof" % MARK]})
end = time.time() + 30
while len(alive(MARK + "-eof")) < 2 and time.time() < end:
    time.sleep(0.05)
rc = s.close()
ok(rc == 0 and wait_gone(MARK + "-eof"), "EOF on stdin ends the server and stops every command", rc)
err = s.p.stderr.read().decode(errors="replace")
ok(err == "", "nothing on stderr from a clean session", err)
sessions = os.path.join(os.environ["XDG_STATE_HOME"], "paddock", "sessions")
left = [d for d in os.listdir(sessions) if d.startswith("mcp-")] if os.path.isdir(sessions) else []
ok(left == [], "the server's own session (its cd) ends with it", left)

# --- SIGKILL of the server leaves nothing running --------------------------------
s = Server()
s.init()
s.call(60, "run_command", {"argv": ["sh", "-c", "sleep 1000 # %s-kill" % MARK]})
end = time.time() + 30
while not alive(MARK + "-kill") and time.time() < end:
    time.sleep(0.05)
s.p.kill()
s.p.wait()
ok(wait_gone(MARK + "-kill"), "SIGKILL of the server leaves nothing running")

# --- elicitation and out-of-band approvals ----------------------------------------
ASK = ["git", "push", "--force", "origin", "HEAD"]  # asks for approval; harmless outside a repository


def approvals(*args):
    return subprocess.run([PADDOCK, "approvals", *args], capture_output=True, text=True, cwd=T)


def elicitation(s, timeout=60):
    return s.recv(lambda m: m.get("method") == "elicitation/create", timeout)


def answer(s, req, result):
    s.send({"jsonrpc": "2.0", "id": req["id"], "result": result})


def pending(timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        r = approvals("--json")
        lst = json.loads(r.stdout or "[]") if r.returncode == 0 else []
        if lst:
            return lst
        time.sleep(0.05)
    return []


s = Server()
s.init({"elicitation": {}})
s.call(70, "run_command", {"argv": ASK})
q = elicitation(s)
props = q and q["params"]["requestedSchema"]["properties"]["decision"]
ok(q and "git push --force" in q["params"]["message"] and "once" in props["enum"],
   "a call that needs approval asks the client (elicitation/create)", q)
lst = pending()
ok(len(lst) == 1 and lst[0]["command"].startswith("git push --force") and lst[0]["id"] in q["params"]["message"],
   "while it waits, paddock approvals lists it, and the question names its id", lst)
answer(s, q, {"action": "accept", "content": {"decision": "once"}})
r = s.reply(70)
ok(r and r["result"]["isError"] is False and "exit_status" in r["result"]["structuredContent"]
   and "approved" in r["result"]["content"][0]["text"], "accepted: the command runs, and the result says who approved", r)
ok(pending(timeout=0.5) == [], "once answered, nothing is pending")
r = approvals("approve", lst[0]["id"] if lst else "00000000")
ok(r.returncode == 125 and "no call" in r.stderr, "approving it again afterwards: no call is waiting", r.stderr)

s.call(71, "run_command", {"argv": ASK})
q = elicitation(s)
answer(s, q, {"action": "decline"})
r = s.reply(71)
ok(r and r["result"]["isError"] is True and "said no" in r["result"]["content"][0]["text"],
   "declined: the call is refused, saying the person said no", r)
s.call(72, "run_command", {"argv": ASK})
q = elicitation(s)
answer(s, q, {"action": "cancel"})
r = s.reply(72)
ok(r and r["result"]["isError"] is True and "dismissed" in r["result"]["content"][0]["text"],
   "cancelled: refused, saying no answer was given", r)

# Answered out of band while the dialog is open: first answer wins, the dialog is withdrawn.
s.call(73, "run_command", {"argv": ASK})
q = elicitation(s)
lst = pending()
r = approvals("approve", lst[0]["id"] if lst else "00000000")
ok(r.returncode == 0, "paddock approvals approve ID answers it", r.stderr)
w = s.recv(lambda m: m.get("method") == "notifications/cancelled" and m["params"]["requestId"] == q["id"])
ok(w is not None, "the open dialog is withdrawn (notifications/cancelled)", w)
r = s.reply(73)
ok(r and r["result"]["isError"] is False and "paddock approvals" in r["result"]["content"][0]["text"],
   "the call runs, approved out of band", r)
answer(s, q, {"action": "decline"})  # too late: ignored
r = s.request(74, "ping")
ok(r and r.get("result") == {}, "a late answer to the withdrawn dialog changes nothing", r)

s.call(75, "run_command", {"argv": ASK})
q = elicitation(s)
lst = pending()
r = approvals("deny", lst[0]["id"] if lst else "00000000")
r = s.reply(75)
ok(r and r["result"]["isError"] is True and "said no" in r["result"]["content"][0]["text"],
   "paddock approvals deny ID refuses it", r)

# An answer not bound to the request's digest is no answer.
s.call(76, "run_command", {"argv": ASK})
q = elicitation(s)
lst = pending()
adir = os.path.join(os.environ["XDG_STATE_HOME"], "paddock", "approvals")
rid = lst[0]["id"] if lst else "00000000"
with open(os.path.join(adir, rid + ".answer"), "w") as f:
    json.dump({"id": rid, "digest": "0" * 64, "answer": "approve"}, f)
time.sleep(0.5)  # the waiting call looks every 100 ms: it has seen the forged answer
ok(s.reply(76, timeout=0.1) is None, "an answer with another digest approves nothing")
answer(s, q, {"action": "decline"})
r = s.reply(76)
ok(r and r["result"]["isError"] is True, "... and the dialog's own answer still counts", r)

# Cancelled while asking: the dialog is withdrawn and nothing stays pending.
s.call(77, "run_command", {"argv": ASK})
q = elicitation(s)
pending()
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 77}})
w = s.recv(lambda m: m.get("method") == "notifications/cancelled" and m["params"]["requestId"] == q["id"])
ok(w is not None, "a call cancelled while asking withdraws its dialog", w)
end = time.time() + 30
while pending(timeout=0) and time.time() < end:
    time.sleep(0.05)
ok(pending(timeout=0) == [], "... and leaves nothing pending")
# Nothing inside the sandbox can answer: the approvals directory is not writable there.
s.call(78, "run_command", {"argv": ["sh", "-c", 'echo forged > "$1/x.answer"; echo twin > "$2"', "sh", adir,
                                    os.path.join(T, "twin")]})
r = s.reply(78)
ok(not os.path.exists(os.path.join(adir, "x.answer")), "a command cannot write into the approvals directory", r)
ok(os.path.exists(os.path.join(T, "twin")), "... while the same write in the project works", r)
r = approvals("approve", "xyz")
ok(r.returncode == 125 and "not a request id" in r.stderr, "approvals: a bad id is refused", r.stderr)
s.close()

# Without elicitation the configured approver decides (here no one can be asked).
s = Server()
s.init()
s.call(80, "run_command", {"argv": ASK})
r = s.reply(80)
ok(r and r["result"]["isError"] is True and "no one can be asked" in r["result"]["content"][0]["text"],
   "a client without elicitation: the configured approver, never stdin", r)
s.close()

# The server's own -w was chosen by whoever configured the client, like writablePaths: a
# call is not asked about it (here no one could be asked); a call's writePaths still is.
own, other = os.path.join(T, "server-w"), os.path.join(T, "call-w")
os.makedirs(own, exist_ok=True)
os.makedirs(other, exist_ok=True)
s = Server("-w", own)
s.init()
s.call(90, "run_command", {"argv": ["sh", "-c", 'echo in > "$1/f"', "sh", own]})
r = s.reply(90)
ok(r and r["result"]["isError"] is False and r["result"]["structuredContent"]["exit_status"] == 0
   and os.path.exists(os.path.join(own, "f")),
   "mcp -w DIR: a call writing under it runs without being asked", r)
s.call(91, "run_command", {"argv": ["sh", "-c", 'echo in > "$1/g"', "sh", own], "writePaths": [other]})
r = s.reply(91)
ok(r and r["result"]["isError"] is True and os.path.realpath(other) in r["result"]["content"][0]["text"]
   and os.path.realpath(own) not in r["result"]["content"][0]["text"]
   and not os.path.exists(os.path.join(own, "g")),
   "... a call's own writePaths is still asked about (and only it is named)", r)
s.close()
# Under HOME, where -w for run is asked as a widening (no password due): the same.
s = Server("-w", own, env={"HOME": T})
s.init()
s.call(92, "run_command", {"argv": ["sh", "-c", 'echo in > "$1/h"', "sh", own]})
r = s.reply(92)
ok(r and r["result"]["isError"] is False and os.path.exists(os.path.join(own, "h")),
   "mcp -w DIR under HOME: not asked either", r)
s.call(93, "run_command", {"argv": ["true"], "writePaths": [other]})
r = s.reply(93)
ok(r and r["result"]["isError"] is True and "writes " + os.path.realpath(other) in r["result"]["content"][0]["text"]
   and "no one can be asked" in r["result"]["content"][0]["text"],
   "... while a call's writePaths under HOME is asked as a widening", r)
s.close()

print("1..%d" % tap.n)
sys.exit(1 if tap.failed else 0)
