#!/usr/bin/env python3
# soak-mcp.py - the resident half of `make soak`: N run_command calls through one `paddock mcp`,
# the server's descriptors and RSS sampled after the first 100 calls and at the end (and every
# 1000 calls, on stderr).
import json, os, subprocess, sys

usage = "usage: soak-mcp.py PADDOCK N CWD (prints: fds_start fds_end rss_kb_start rss_kb_end)"
if len(sys.argv) != 4:
    sys.exit(usage)
paddock, n, cwd = sys.argv[1], int(sys.argv[2]), sys.argv[3]
p = subprocess.Popen([paddock, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, cwd=cwd)


def call(id, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": id, "method": method,
                               "params": params}) + "\n").encode())
    p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("soak-mcp: the server went away after %d calls" % id)
        m = json.loads(line)
        if m.get("id") == id:
            return m


def sample():
    fds = len(os.listdir("/proc/%d/fd" % p.pid))
    with open("/proc/%d/status" % p.pid) as f:
        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    return fds, rss


call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "soak", "version": "1"}})
p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
p.stdin.flush()
# The mix a session makes: a quick command, one whose output is kept, an rm that goes to the
# trash, one that leaves a child behind.
mix = [["true"], ["seq", "1", "20000"], ["sh", "-c", "touch soak-f && rm soak-f"],
       ["sh", "-c", "sleep 1000 & echo x"]]
start = None
bad = 0
for i in range(1, n + 1):
    r = call(i, "tools/call", {"name": "run_command", "arguments": {"argv": mix[i % len(mix)]}})
    if "error" in r or r["result"].get("isError"):
        bad += 1
    if i == min(100, n):
        start = sample()
    if i % 1000 == 0:
        print("soak-mcp: %d calls: fds %d rss_kb %d failed %d" % ((i,) + sample() + (bad,)),
              file=sys.stderr, flush=True)
end = sample()
p.stdin.close()
p.wait()
print(start[0], end[0], start[1], end[1], bad)
