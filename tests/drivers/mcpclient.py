# mcpclient.py - what the MCP drivers share: a `paddock mcp` on its raw pipe, each message
# it writes read as it comes (a line of anything but JSON fails the test), and the check
# and process helpers. Imported by the mcp-*.py drivers.
import json, os, select, subprocess, time


class Tap:
    """Numbered TAP lines from start: ok() prints one, with what was seen when it failed."""

    def __init__(self, start=0):
        self.n, self.failed = start, 0

    def ok(self, cond, desc, show=None):
        self.n += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, desc), flush=True)
        if not cond:
            self.failed += 1
            if show is not None:
                for line in str(show).splitlines()[:20]:
                    print("#   " + line[:300])


class Server:
    def __init__(self, paddock, *args, env=None, cwd=None, stderr=subprocess.PIPE):
        self.p = subprocess.Popen([paddock, "mcp", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr,
                                  env=env or dict(os.environ), cwd=cwd)
        self.buf = b""
        self.seen = []

    def send(self, *objs):
        """The messages (objects, or bytes as they are) in one write."""
        self.p.stdin.write(b"".join(o if isinstance(o, bytes) else (json.dumps(o) + "\n").encode()
                                    for o in objs))
        self.p.stdin.flush()

    def _read(self, until):
        """Read what is there by until (a time), into buf: False at EOF or at until."""
        r, _, _ = select.select([self.p.stdout], [], [], max(0, until - time.time()))
        if not r:
            return False
        chunk = os.read(self.p.stdout.fileno(), 1 << 20)
        self.buf += chunk
        return bool(chunk)

    def _lines(self):
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            yield json.loads(line)

    def recv(self, pred, timeout=60):
        """The first message (seen before or new) for which pred is true, or None."""
        for i, m in enumerate(self.seen):
            if pred(m):
                return self.seen.pop(i)
        end = time.time() + timeout
        while True:
            for m in self._lines():
                if pred(m):
                    return m
                self.seen.append(m)
            if time.time() >= end or not self._read(end):
                return None

    def messages(self, quiet):
        """Every message written until quiet seconds pass without one."""
        got = self.seen
        self.seen = []
        while self._read(time.time() + quiet):
            got += list(self._lines())
        return got + list(self._lines())

    def reply(self, id, timeout=60):
        return self.recv(lambda m: m.get("id") == id and ("result" in m or "error" in m), timeout)

    def request(self, id, method, params=None, timeout=60):
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.reply(id, timeout)

    def init(self, caps=None, name="mcpclient"):
        r = self.request(0, "initialize", {"protocolVersion": "2025-06-18",
                                           "capabilities": caps or {},
                                           "clientInfo": {"name": name, "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def call(self, id, name, args, meta=None):
        self.send(call(id, name, args, meta))

    def close(self, timeout=30):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        return self.p.returncode


def call(id, name, args, meta=None):
    """A tools/call message."""
    params = {"name": name, "arguments": args}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}


def cancel(id):
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}


def alive(pattern):
    """The pids whose command line holds pattern."""
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()


def wait_gone(pattern, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if not alive(pattern):
            return True
        time.sleep(0.05)
    return False
