#!/usr/bin/env python3
"""Records the oracle corpus's kube-apiserver cases (docs/oracle.md, "The corpus").

    refserver.py KINFORMER SERVER_DIR OUT_DIR cache|nocache [CASE...]
    refserver.py --cases

SERVER_DIR is a running `scripts/refserver run DIR` (the real kube-apiserver and etcd):
`cache` is one with its default flags (the watch cache on), `nocache` one started with
KINFORMER_REFSERVER_ARGS=--watch-cache=false (every LIST and WATCH served by etcd: real
pages, a continue token that a compaction expires, a watch-list from etcd). Each case of that server
(or those named) runs `kinformer record` against it into OUT_DIR/NAME.jsonl.zst while it
writes, restarts kube-apiserver (SERVER_DIR/restart), deletes keys in etcd while kube-apiserver
is down and compacts etcd (etcd's gRPC gateway at SERVER_DIR/etcd-url), each in a namespace of its
own. Then the header gets `"server"` and `"case"`: which server, what it ran with, what the
case is. The cache server also records client-go itself (the 1.37 live oracle, path in
$ORACLE_LIVE) behind `kinformer proxy`. Real time: about six minutes for both servers.
`--cases` prints the cases.json entries.
"""

import base64
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

# The handlers every case replays with unless it names its own.
HANDLERS = ["fast", "slow:delay=20ms"]


class Server:
    """kube-apiserver (HTTPS, the admin token) and etcd (its gateway) of a refserver DIR."""

    def __init__(self, directory):
        self.dir = directory
        with open(os.path.join(directory, "ready")) as f:
            self.base = f.read().strip()
        with open(os.path.join(directory, "etcd-url")) as f:
            self.etcd = f.read().strip()
        self.tls = ssl.create_default_context(cafile=os.path.join(directory, "certs", "apiserver.crt"))

    def call(self, method, path, body=None, ctype="application/json"):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": "Bearer admin-token", "Content-Type": ctype}
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, context=self.tls, timeout=60) as resp:
            return json.load(resp)

    def version(self):
        return self.call("GET", "/version")["gitVersion"]

    def namespace(self, ns):
        self.call("POST", "/api/v1/namespaces", {"metadata": {"name": ns}})

    def create(self, ns, name, labels=None, resource="configmaps"):
        if resource == "pods":
            body = {"metadata": {"name": name, "labels": labels or {}},
                    "spec": {"containers": [{"name": "c", "image": "registry.invalid/pause"}]}}
        else:
            body = {"metadata": {"name": name, "labels": labels or {}}, "data": {"v": "0"}}
        self.call("POST", f"/api/v1/namespaces/{ns}/{resource}", body)

    def patch(self, ns, name, patch, resource="configmaps", sub=""):
        self.call("PATCH", f"/api/v1/namespaces/{ns}/{resource}/{name}{sub}", patch,
                  "application/merge-patch+json")

    def update(self, ns, name, n, resource="configmaps"):
        if resource == "pods":
            self.patch(ns, name, {"metadata": {"annotations": {"n": str(n)}}}, resource)
        else:
            self.patch(ns, name, {"data": {"v": str(n)}}, resource)

    def delete(self, ns, name, resource="configmaps"):
        self.call("DELETE", f"/api/v1/namespaces/{ns}/{resource}/{name}", {"gracePeriodSeconds": 0})

    def many(self, ns, count, prefix="bulk"):
        """count configmaps, created by 8 writers at once."""
        def writer(k):
            for i in range(k, count, 8):
                self.create(ns, f"{prefix}-{i:05d}")
        threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def etcd_call(self, path, body):
        req = urllib.request.Request(self.etcd + path, data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.load(resp)

    def revision(self):
        key = base64.b64encode(b"/registry/none").decode()
        return int(self.etcd_call("/v3/kv/range", {"key": key})["header"]["revision"])

    def compact(self):
        """Compacts etcd at its current revision: every older one is gone (a 410 for it)."""
        self.etcd_call("/v3/kv/compaction", {"revision": str(self.revision()), "physical": True})

    def etcd_delete(self, ns, name, resource="configmaps"):
        """Deletes an object in etcd itself: kube-apiserver need not be up."""
        key = base64.b64encode(f"/registry/{resource}/{ns}/{name}".encode()).decode()
        self.etcd_call("/v3/kv/deleterange", {"key": key})

    def restart(self, while_down=None):
        """Restarts kube-apiserver (SERVER_DIR/restart); while_down runs once the old process is
        gone (a watch of our own ends: a graceful kube-apiserver serves open watches until
        refserver kills it, 10 s after its port closed) and before the new one serves."""
        restarted = os.path.join(self.dir, "restarted")
        if os.path.exists(restarted):
            os.remove(restarted)
        watch = self.open_watch() if while_down else None
        open(os.path.join(self.dir, "restart"), "w").close()
        if watch:
            try:
                while watch.readline():
                    pass
            except OSError:
                pass
            while_down()
        deadline = time.time() + 180
        while not os.path.exists(restarted):
            if time.time() > deadline:
                sys.exit("refserver.py: kube-apiserver did not come back in 180 s")
            time.sleep(0.1)

    def open_watch(self):
        path = "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=600"
        req = urllib.request.Request(self.base + path, headers={"Authorization": "Bearer admin-token"})
        return urllib.request.urlopen(req, context=self.tls, timeout=120)

    def bump(self):
        """Moves etcd's revision on (a key outside every resource)."""
        key = base64.b64encode(b"/kinformer-corpus/bump").decode()
        self.etcd_call("/v3/kv/put", {"key": key, "value": key})

    def up(self):
        """Whether kube-apiserver's port takes connections (it serves while it shuts down)."""
        host, port = self.base.removeprefix("https://").split(":")
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
        except OSError:
            return False
        return True


@dataclass
class Case:
    name: str
    server: str
    resources: str
    seconds: int
    steps: object
    watch_list: bool
    flags: list = field(default_factory=list)
    setup: object = None
    # Runs alongside the recorder from just before it starts.
    early: object = None
    what: str = ""
    # Extra cases.json entries replaying the same file with other handlers: (suffix, entry).
    variants: list = field(default_factory=list)


def churn(resource="configmaps"):
    def steps(s, ns):
        for i in range(8):
            s.create(ns, f"o-{i}", resource=resource)
            time.sleep(0.1)
        for i in range(6):
            s.update(ns, f"o-{i}", 1, resource)
            time.sleep(0.15)
        for i in range(3):
            s.delete(ns, f"o-{i}", resource)
            time.sleep(0.1)
        for i in range(3, 6):
            s.update(ns, f"o-{i}", 2, resource)
        s.create(ns, "o-late", resource=resource)
    return steps


def selector_moves(s, ns):
    """Objects moving into and out of `-l tier=web`."""
    s.create(ns, "a", {"tier": "web"})
    s.create(ns, "b", {"tier": "db"})
    time.sleep(0.3)
    s.patch(ns, "b", {"metadata": {"labels": {"tier": "web"}}})
    time.sleep(0.3)
    s.patch(ns, "a", {"metadata": {"labels": {"tier": "db"}}})
    time.sleep(0.3)
    s.update(ns, "b", 1)
    s.update(ns, "a", 1)
    time.sleep(0.3)
    s.patch(ns, "a", {"metadata": {"labels": {"tier": "web"}}})
    s.delete(ns, "b")


def phase_moves(s, ns):
    """Pods moving into and out of `--field-selector status.phase=Running`."""
    for name in ("p", "q"):
        s.create(ns, name, resource="pods")
    time.sleep(0.3)
    for name in ("p", "q"):
        s.patch(ns, name, {"status": {"phase": "Running"}}, "pods", "/status")
        time.sleep(0.3)
    s.update(ns, "q", 1, "pods")
    time.sleep(0.3)
    s.patch(ns, "p", {"status": {"phase": "Succeeded"}}, "pods", "/status")
    time.sleep(0.3)
    s.delete(ns, "q", "pods")


def restart_mid_watch(s, ns):
    churn()(s, ns)
    s.restart()
    time.sleep(0.5)
    s.update(ns, "o-5", 9)
    s.create(ns, "after-restart")


def deletes_while_down(s, ns):
    """Two objects deleted in etcd while kube-apiserver is down: the informer's watch is down
    too, so only a relist can tell (a tombstone)."""
    churn()(s, ns)
    s.restart(while_down=lambda: (s.etcd_delete(ns, "o-4"), s.etcd_delete(ns, "o-5")))
    time.sleep(0.5)
    s.update(ns, "o-3", 9)


def compaction_while_down(s, ns):
    """While kube-apiserver is down, an object is deleted in etcd, etcd's revision moves on and
    etcd is compacted there: the informer's watch resumes from a compacted revision (410)."""
    churn()(s, ns)
    s.restart(while_down=lambda: (s.etcd_delete(ns, "o-4"), s.bump(), s.compact()))
    time.sleep(0.5)
    s.update(ns, "o-3", 9)


def several(s, ns):
    for i in range(4):
        s.create(ns, f"cm-{i}")
        s.create(ns, f"pod-{i}", resource="pods")
        time.sleep(0.1)
    for i in range(4):
        s.update(ns, f"cm-{i}", 1)
        s.update(ns, f"pod-{i}", 1, "pods")
    s.delete(ns, "cm-0")
    s.delete(ns, "pod-0", "pods")


def a_few_updates(s, ns):
    for i in range(3):
        s.update(ns, f"bulk-{i:05d}", 1)
        time.sleep(0.2)
    s.delete(ns, "bulk-00003")


def compacting(s, ns):
    """Compactions every 20 ms while the informer pages 5 objects at a time (from before its
    first LIST): the continue token's revision is compacted under it."""
    deadline = time.time() + 1.5
    while time.time() < deadline:
        s.bump()
        s.compact()
        time.sleep(0.02)


def quiet(s, ns):
    s.update(ns, "o-3", 5)
    time.sleep(20)
    s.update(ns, "o-4", 5)


def bulk(count):
    return lambda s, ns: s.many(ns, count)


def seeded(s, ns):
    for i in range(6):
        s.create(ns, f"o-{i}")


def both(name, server, resources, seconds, steps, what, **kw):
    """The case with LIST (client-go's gate off) and with watch-list."""
    return [Case(f"{name}-list", server, resources, seconds, steps, False, what=what + ", LIST", **kw),
            Case(f"{name}-watch-list", server, resources, seconds, steps, True, what=what + ", watch-list", **kw)]


SLOW = ("slow-handler", {"handlers": ["fast", "slow:delay=300ms"]})
PANIC = ("panicking-handler", {"handlers": ["steady", "flaky:panic-every=3"]})
RESYNC = ("resync", {"resync": "2s", "handlers": ["fast", "often:resync=1s"]})

CASES = [
    *both("churn", "cache", "configmaps", 6, churn(), "creates, updates, deletes",
          variants=[SLOW, PANIC, RESYNC]),
    *both("pods", "cache", "pods", 6, churn("pods"), "pods: creates, updates, deletes"),
    *both("label-selector", "cache", "configmaps", 5, selector_moves,
          "-l tier=web: objects moving in and out", flags=["-l", "tier=web"]),
    *both("field-selector", "cache", "pods", 6, phase_moves,
          "--field-selector status.phase=Running: pods moving in and out",
          flags=["--field-selector", "status.phase=Running"]),
    *both("restart", "cache", "configmaps", 45, restart_mid_watch,
          "kube-apiserver restarted mid-watch", variants=[SLOW]),
    *both("deletes-while-down", "cache", "configmaps", 45, deletes_while_down,
          "objects deleted in etcd while kube-apiserver (and so the watch) is down"),
    *both("several-resources", "cache", "configmaps,pods", 5, several,
          "configmaps and pods in one recording", variants=[SLOW]),
    *both("thousands", "cache", "configmaps", 8, a_few_updates,
          "2000 objects, then updates", setup=bulk(2000), variants=[SLOW]),
    Case("bookmarks-list", "cache", "configmaps", 70, quiet, False, setup=seeded,
         what="a quiet watch for 70 s: the watch cache's periodic bookmarks, LIST"),
    Case("paging-list", "nocache", "configmaps", 8, a_few_updates, False, setup=bulk(1200),
         what="no watch cache: 1200 objects in pages of 500 from etcd, LIST"),
    Case("watch-list-from-etcd", "nocache", "configmaps", 6, a_few_updates, True, setup=bulk(10),
         what="no watch cache: a watch-list served from etcd"),
    Case("expired-continue", "nocache", "configmaps", 10, a_few_updates, False,
         setup=bulk(1500), early=compacting, flags=["--page-size", "5"],
         what="no watch cache: pages of 5 while etcd is compacted, a 410 on a continue"),
    Case("compaction-while-down-list", "nocache", "configmaps", 45, compaction_while_down, False,
         what="no watch cache: etcd compacted while kube-apiserver is down, a 410 on the resumed watch"),
    Case("churn-nocache-list", "nocache", "configmaps", 6, churn(), False,
         what="no watch cache: creates, updates, deletes, LIST"),
]


# client-go itself (the 1.37 live oracle, a dynamic client: JSON) behind `kinformer proxy` in
# front of kube-apiserver; its stream is replayed as `oracle-live.test/configmaps@NS`.
PROXIED_NS = "client-go-behind-proxy"
PROXIED = Case("client-go-behind-proxy", "cache", "configmaps", 9, churn(), True,
               what="client-go 1.37's informer (the live oracle) recorded behind kinformer proxy")


def record_proxied(kinformer, s, out_dir, live):
    """PROXIED: the live oracle watches configmaps through the proxy while churn() writes."""
    try:
        s.namespace(PROXIED_NS)
    except urllib.error.HTTPError as e:
        if e.code != 409:
            raise
    out = os.path.join(out_dir, f"{PROXIED.name}.jsonl.zst")
    work = tempfile.mkdtemp()
    proxy_config = os.path.join(work, "proxy")
    proxy = subprocess.Popen([kinformer, "proxy", "--kubeconfig", os.path.join(s.dir, "kubeconfig"),
                              "--kubeconfig-out", proxy_config, "--record", out, "-o", "jsonl"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not os.path.exists(proxy_config) or os.path.getsize(proxy_config) == 0:
        if proxy.poll() is not None:
            sys.exit("refserver.py: kinformer proxy exited")
        time.sleep(0.1)
    print(f"refserver.py: recording {PROXIED.name} ({PROXIED.seconds} s)", file=sys.stderr)
    client = subprocess.Popen([live, "-test.run", "TestLive", "-live", "configmaps", "-kubeconfig",
                               proxy_config, "-namespace", PROXIED_NS, "-timeout", f"{PROXIED.seconds}s",
                               "-handler", "fast"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    PROXIED.steps(s, PROXIED_NS)
    client.wait()
    proxy.send_signal(signal.SIGINT)
    proxy.wait()
    name_server(out, s, PROXIED)


def entry(case, **over):
    e = {"name": f"kube-apiserver/{case.name}", "file": f"kube-apiserver/{case.name}.jsonl.zst",
         "resync": "0", "handlers": HANDLERS, "watch_list": case.watch_list}
    e.update(over)
    return e


def cases_json():
    out = []
    for case in CASES:
        out.append(entry(case))
        for suffix, over in case.variants:
            out.append(entry(case, name=f"kube-apiserver/{case.name} {suffix}", **over))
    out.append(entry(PROXIED, stream=f"oracle-live.test/configmaps@{PROXIED_NS}"))
    return out


def record(kinformer, s, case, out_dir):
    ns = f"{case.name}-{int(time.time()) % 100000}"  # fresh on every regeneration
    s.namespace(ns)
    if case.setup:
        case.setup(s, ns)
    out = os.path.join(out_dir, f"{case.name}.jsonl.zst")
    cmd = [kinformer, "record", case.resources, "-n", ns, "--kubeconfig",
           os.path.join(s.dir, "kubeconfig"), "--timeout", f"{case.seconds}s",
           f"--watch-list={str(case.watch_list).lower()}", "-o", out, *case.flags]
    print(f"refserver.py: recording {case.name} ({case.seconds} s)", file=sys.stderr)
    early = threading.Thread(target=case.early, args=(s, ns)) if case.early else None
    if early:
        early.start()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    time.sleep(1.5)
    if early:
        early.join()
    case.steps(s, ns)
    if proc.wait() != 0:
        sys.exit(f"refserver.py: {' '.join(cmd)} failed")
    name_server(out, s, case)


def name_server(path, s, case):
    """Writes which server the recording came from into its header (`server`)."""
    text = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout.decode()
    head, rest = text.split("\n", 1)
    header = json.loads(head)
    flags = " --watch-cache=false" if case.server == "nocache" else ""
    header["server"] = f"kube-apiserver {s.version()}{flags} + etcd (scripts/refserver)"
    header["case"] = case.what
    text = json.dumps(header, separators=(",", ":")) + "\n" + rest
    subprocess.run(["zstd", "-q", "-19", "-f", "-o", path], input=text.encode(), check=True)


def main():
    if sys.argv[1:] == ["--cases"]:
        print(json.dumps(cases_json(), indent=1))
        return
    kinformer, server_dir, out_dir, server = sys.argv[1:5]
    wanted = set(sys.argv[5:])
    os.makedirs(out_dir, exist_ok=True)
    s = Server(server_dir)
    for case in CASES:
        if case.server == server and (not wanted or case.name in wanted):
            record(kinformer, s, case, out_dir)
    if server == PROXIED.server and (not wanted or PROXIED.name in wanted):
        record_proxied(kinformer, s, out_dir, os.environ["ORACLE_LIVE"])


if __name__ == "__main__":
    main()
