#!/usr/bin/env python3
# mcp-zygote.py - `paddock mcp`'s zygotes under each backend in BACKENDS (landlock, bwrap), by
# attack and its legitimate twin: the calls come from one confined zygote, which holds what a
# fresh run holds, and leaves nothing of a call to the next. Prints TAP. Needs PADDOCK, T,
# MARK and BACKENDS in the environment.
import json, os, shutil, socket, sys, time

import mcpclient
from mcpclient import alive, wait_gone

PADDOCK = os.environ["PADDOCK"]
T = os.environ["T"]
MARK = os.environ["MARK"]
PROJ = os.path.join(T, "proj")
tap = mcpclient.Tap()
ok = tap.ok


class Server(mcpclient.Server):
    def __init__(self, *args):
        super().__init__(PADDOCK, "--backend", BACKEND, *args, cwd=PROJ)
        self.id = 0
        self.init(name="mcp-zygote")

    def start(self, argv):
        self.id += 1
        self.call(self.id, "run_command", {"argv": argv})
        return self.id

    def run(self, argv):
        """(exit status, stdout, stderr, the whole reply) of one call."""
        m = self.reply(self.start(argv))
        s = (m or {}).get("result", {}).get("structuredContent", {})
        return s.get("exit_status"), s.get("stdout", ""), s.get("stderr", ""), m


def sh(script):
    return ["sh", "-c", script]


# Who the command's parent is: its pid namespace (bwrap's zygote has one of its own) and pid.
WHO = "echo $(readlink /proc/self/ns/pid)-$PPID"


def descendants(pid):
    """pid's descendants, from /proc."""
    kids = {}
    for d in os.listdir("/proc"):
        try:
            ppid = int(open("/proc/%s/stat" % d).read().rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
        except (OSError, ValueError, IndexError):
            pass
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


def dead(pid):
    try:
        return open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


os.makedirs(PROJ)
os.makedirs(os.path.join(T, "outside"))
with open(os.path.join(PROJ, ".env"), "w") as f:
    f.write("TOKEN=zygote-secret-%s\n" % MARK)
with open(os.path.join(PROJ, "readme"), "w") as f:
    f.write("readable-%s\n" % MARK)

def suite():
    # Two calls of a server with --no-zygote never share a parent: under Landlock another pid
    # each; under bwrap the parent is the run's own reaper, in a pid namespace whose number the
    # kernel may give again, so what the parent is tells it.
    fresh = Server("--no-zygote")
    parent = WHO + "; tr '\\0' ' ' < /proc/$PPID/cmdline"
    a, b = fresh.run(sh(parent)), fresh.run(sh(parent))
    fresh.close()
    ok(a[0] == 0 and b[0] == 0 and "__zygote" not in a[1] + b[1] and
       (BACKEND == "bwrap" or a[1].split()[0] != b[1].split()[0]),
       "--no-zygote: each call's command has a parent of its own", (a, b))

    s = Server()
    a, b = s.run(sh(WHO)), s.run(sh(WHO))
    ok(a[0] == 0 and a[1].strip() and a[1] == b[1],
       "by default two calls' commands have one parent, the zygote", (a, b))
    ppid = a[1].strip()
    r = s.run(sh("tr '\\0' ' ' < /proc/$PPID/cmdline; echo; echo $PPID"))
    words = r[1].split()
    host_ns = os.readlink("/proc/self/ns/pid")
    ok(r[0] == 0 and words[:1] and words[0].endswith("paddock") and
       (int(words[-1]) != s.p.pid if BACKEND == "landlock" else not ppid.startswith(host_ns)),
       "the zygote is paddock's, not the server", r)

    r = s.run(sh("grep -E '^(NoNewPrivs|Seccomp|CapEff):' /proc/self/status"))
    ok(r[0] == 0 and "NoNewPrivs:\t1" in r[1] and "Seccomp:\t2" in r[1] and
       "CapEff:\t0000000000000000" in r[1],
       "the command is confined: no_new_privs, seccomp, no capabilities", r)

    out_f = os.path.join(T, "outside", "f")
    r = s.run(sh("echo x > '%s'" % out_f))
    ok(r[0] != 0 and not os.path.exists(out_f), "attack: a write outside the roots is refused", r)
    r = s.run(sh("echo x > '%s/inside'" % PROJ))
    ok(r[0] == 0 and os.path.exists(os.path.join(PROJ, "inside")),
       "twin: a write in the project works", r)

    r = s.run(["cat", ".env"])
    ok(r[0] != 0 and "zygote-secret" not in r[1], "attack: the project's .env stays unread", r)
    r = s.run(["cat", "readme"])
    ok(r[0] == 0 and ("readable-" + MARK) in r[1], "twin: another file of the project reads", r)

    host_sock = os.path.join(T, "host.sock")
    if os.path.exists(host_sock):
        os.unlink(host_sock)
    lsn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsn.bind(host_sock)
    lsn.listen(4)
    connect = ("import socket,sys; c=socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); "
               "print('connected')")
    r = s.run(["python3", "-c", connect, host_sock])
    lsn.setblocking(False)
    try:
        lsn.accept()
        reached = True
    except BlockingIOError:
        reached = False
    ok(r[0] != 0 and "connected" not in r[1] and not reached,
       "attack: a host unix socket is out of reach", r)
    lsn.close()
    own = ("import socket,os; p='own.sock'; os.path.exists(p) and os.unlink(p); "
           "l=socket.socket(socket.AF_UNIX); l.bind(p); l.listen(1); "
           "c=socket.socket(socket.AF_UNIX); c.connect(p); print('own connected')")
    r = s.run(["python3", "-c", own])
    ok(r[0] == 0 and "own connected" in r[1], "twin: the command's own unix socket works", r)

    r = s.run(sh("echo x > /dev/shm/%s && ls /dev/shm" % MARK))
    ok(r[0] == 0 and MARK in r[1], "twin: a call writes its /dev/shm", r)
    r = s.run(sh("ls -A /dev/shm; " + WHO))
    ok(r[0] == 0 and MARK not in r[1] and r[1].split()[-1:] == [ppid],
       "what a call left in /dev/shm is gone for the next call of the same zygote", r)

    r = s.run(sh("sh -c 'sleep 1000; : %s' & setsid sh -c 'sleep 1001; : %s' &"
                 " echo started" % (MARK, MARK)))
    ok(r[0] == 0 and "started" in r[1] and wait_gone(MARK, 30),
       "nothing a call started is left after it: background and setsid'd processes", (r, alive(MARK)))

    r = s.run(["grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"])
    ok(r[0] == 0 and r[1].count("0000000000000000") == 2,
       "the command starts with no signal ignored or blocked", r)

    r = s.run(["sh", "-c", "echo ${#1} $(readlink /proc/self/ns/pid)-$PPID", "sh", "x" * 70000])
    ok(r[0] == 0 and r[1].split()[:1] == ["70000"] and r[1].split()[1:] != [ppid],
       "a call too big for the zygote's message runs, set up as without it", r)

    # The timeout and a cancel kill through the process group and the cgroup, as for a fresh run.
    s.id += 1
    s.send({"jsonrpc": "2.0", "id": s.id, "method": "tools/call",
            "params": {"name": "run_command",
                       "arguments": {"argv": sh("sleep 1000; : %s" % MARK), "timeoutSeconds": 1}}})
    m = s.reply(s.id)
    st = (m or {}).get("result", {}).get("structuredContent", {})
    ok(st.get("timed_out") is True and wait_gone(MARK, 30), "the timeout kills the zygote's command", m)
    i = s.start(sh("sleep 1000; : %s-c" % MARK))
    end = time.time() + 30
    while not alive(MARK + "-c") and time.time() < end:
        time.sleep(0.05)
    s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}})
    ok(alive(MARK + "-c") == [] or wait_gone(MARK + "-c", 30), "a cancel kills the zygote's command")
    r = s.run(sh(WHO))
    ok(r[0] == 0 and r[1].strip(), "twin: the next call runs", r)

    bad = os.path.join(PROJ, "not-a-program")
    with open(bad, "wb") as f:
        f.write(b"\x7fELF garbage")
    os.chmod(bad, 0o755)
    r = s.run([bad])
    ok(r[0] is None or r[0] == 126 or "Exec format error" in json.dumps(r[3]),
       "an exec that fails in the zygote's child is the command's failure", r)

    # Calls at once: a zygote each, none waits for another. Each command says it runs, then
    # waits for the word that all three do: with one zygote for two calls, that word never comes.
    go = os.path.join(PROJ, "go-" + MARK)
    ids = [s.start(sh("echo > at-once-%d; while [ ! -e '%s' ]; do sleep 0.05; done; "
                      % (k, go) + WHO)) for k in range(3)]
    end = time.time() + 60
    while (not all(os.path.exists(os.path.join(PROJ, "at-once-%d" % k)) for k in range(3))
           and time.time() < end):
        time.sleep(0.05)
    open(go, "w").close()
    rs = [s.reply(i) for i in ids]
    for name in ["at-once-%d" % k for k in range(3)] + [os.path.basename(go)]:
        if os.path.exists(os.path.join(PROJ, name)):
            os.unlink(os.path.join(PROJ, name))
    pp = [(m or {}).get("result", {}).get("structuredContent", {}).get("stdout", "") for m in rs]
    ok(all(p.strip() for p in pp) and len(set(pp)) == 3, "three calls at once: three zygotes", pp)

    # A protected name that appears changes the shape: a new zygote holds it.
    r = s.run(sh(WHO))
    os.makedirs(os.path.join(PROJ, ".vscode"))
    r2 = s.run(sh(WHO + "; echo '{}' > .vscode/settings.json"))
    ok(r2[0] != 0 and not os.path.exists(os.path.join(PROJ, ".vscode", "settings.json")) and
       r2[1].split()[:1] != r[1].split()[:1],
       "attack: a protected directory made since the zygote is held by a new one", (r, r2))
    r = s.run(sh("echo ok > notes"))
    ok(r[0] == 0, "twin: the project beside it stays writable", r)

    # The server SIGKILLed mid-call: nothing of the call, the zygotes or their host is left.
    i = s.start(sh("sleep 1000; : %s" % MARK))
    end = time.time() + 30
    while not alive(MARK) and time.time() < end:
        time.sleep(0.05)
    left = descendants(s.p.pid)
    s.p.kill()
    s.p.wait()
    gone = wait_gone(MARK, 30)
    end = time.time() + 30
    while not all(dead(p) for p in left) and time.time() < end:
        time.sleep(0.05)
    ok(gone and len(left) >= 3 and all(dead(p) for p in left),
       "the server killed: its call's command, the zygotes and their host are gone",
       (alive(MARK), left, [p for p in left if not dead(p)]))

    os.rmdir(os.path.join(PROJ, ".vscode")) if os.path.isdir(os.path.join(PROJ, ".vscode")) \
        and not os.listdir(os.path.join(PROJ, ".vscode")) else None


for BACKEND in os.environ["BACKENDS"].split():
    print("# backend %s" % BACKEND, flush=True)
    suite()

print("1..%d" % tap.n)
sys.exit(1 if tap.failed else 0)
