#!/usr/bin/env python3
# mcp-pkg.py - the pkg_manage tool of `paddock mcp` on its raw pipe, against a fake
# dnf that records its argv: listed with its schema, search unasked, install asked
# through elicitation (accepted: the exact argv ran; declined: nothing ran), bad
# names and bad arguments refused as tool errors.
# Prints TAP lines (numbered from START). Needs PADDOCK, T, REC (where the fake
# records), PATH_FAKE, CONFIG (pkg.manager dnf) and START in the environment.
import json, os, subprocess, sys

import mcpclient

PADDOCK = os.environ["PADDOCK"]
T, REC = os.environ["T"], os.environ["REC"]
tap = mcpclient.Tap(int(os.environ.get("START", "0")))
ok = tap.ok


class Server(mcpclient.Server):
    def __init__(self, caps):
        super().__init__(PADDOCK, "--config", os.environ["CONFIG"], cwd=T,
                         env=dict(os.environ, PATH=os.environ["PATH_FAKE"]),
                         stderr=subprocess.DEVNULL)
        self.init(caps, "mcp-pkg")

    def reply(self, id, timeout=120):
        return super().reply(id, timeout)

    def recv(self, pred, timeout=120):
        return super().recv(pred, timeout)

    def call(self, id, args):
        super().call(id, "pkg_manage", args)


def recorded():
    try:
        with open(os.path.join(REC, "dnf")) as f:
            return f.read().split("\n")[:-1]
    except FileNotFoundError:
        return None


def clear():
    for f in os.listdir(REC):
        os.unlink(os.path.join(REC, f))


def text(r):
    return r["result"]["content"][0]["text"] if r and "result" in r else ""


s = Server({"elicitation": {}})
r = s.request(1, "tools/list")
tools = {t["name"]: t for t in r["result"]["tools"]} if r and "result" in r else {}
t = tools.get("pkg_manage", {})
ok(t and t["inputSchema"]["properties"]["action"]["enum"] ==
   ["install", "remove", "update", "upgrade", "search", "info"]
   and t["inputSchema"]["required"] == ["action"] and "pip" in t["description"],
   "tools/list: pkg_manage with its actions, and the language packages sent to run_command", t)

clear()
s.call(2, {"action": "search", "package": "hello"})
r = s.reply(2)
sc = r["result"].get("structuredContent", {}) if r and "result" in r else {}
ok(r and r["result"]["isError"] is False and "dnf line 1" in text(r) and sc.get("ran") is True
   and sc.get("exit_status") == 0, "search: runs unasked, text and structuredContent", r)
ok(recorded() == ["dnf", "search", "hello"], "search: the exact argv", recorded())

clear()
s.call(3, {"action": "install", "package": "hello"})
q = s.recv(lambda m: m.get("method") == "elicitation/create")
ok(q and "install `hello` with dnf, as root, outside the sandbox" in q["params"]["message"],
   "install: the person is asked through elicitation, told what it does", q)
ok(recorded() is None, "install: nothing runs before the answer", recorded())
if q:
    s.send({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "accept", "content": {"decision": "once"}}})
r = s.reply(3)
ok(r and r["result"]["isError"] is False and r["result"]["structuredContent"]["exit_code"] == 0,
   "install accepted: ran", r)
ok(recorded() == ["dnf", "install", "-y", "hello"], "install accepted: the exact argv", recorded())

clear()
s.call(4, {"action": "remove", "package": "hello"})
q = s.recv(lambda m: m.get("method") == "elicitation/create")
if q:
    s.send({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "decline"}})
r = s.reply(4)
ok(r and r["result"]["isError"] is True and "not approved" in text(r), "remove declined: refused", r)
ok(recorded() is None, "remove declined: nothing ran", recorded())

for i, (args, want) in enumerate([
        ({"action": "install", "package": "hello=2.10"}, "pins a version"),
        ({"action": "install", "package": "-y"}, "option"),
        ({"action": "install", "package": "hello curl"}, "more than one package"),
        ({"action": "install", "package": "https://example.com/x.rpm"}, "is a URL"),
        ({"action": "install"}, "needs one package name"),
        ({"action": "upgrade", "package": "hello"}, "takes no package name"),
        ({"action": "frobnicate"}, "'action' must be one of"),
        ({"action": 3}, "'action' must be one of"),
        ({"package": "hello"}, "'action' is missing"),
        ({"action": "info", "package": ["hello"]}, "'package' must be a string"),
        ({"action": "info", "package": "hello", "version": "2"}, "unknown key 'version'")]):
    clear()
    s.call(10 + i, args)
    r = s.reply(10 + i)
    ok(r and r["result"]["isError"] is True and want in text(r) and recorded() is None,
       "refused, nothing ran: %s -> %s" % (json.dumps(args), want), r)
s.close()

print("# %d" % tap.n)
sys.exit(1 if tap.failed else 0)
