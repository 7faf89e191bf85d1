# A kazoo client kept busy while an ensemble's servers are replaced one at
# a time: it holds an ephemeral node and a data watch, and creates nodes,
# retrying each create after a connection loss until it is acknowledged.
#
# Arguments: hosts (every server), the root to write under, the node to
# watch. Standard output carries one JSON object per line:
#   {"event": "ready", "session": "0x..."}  once the ephemeral and the
#                                           watch are in place
#   {"event": "done", ...}                  the summary, after "stop VALUE"
#                                           on standard input: writing
#                                           stops, and the watch is given
#                                           up to 60 s to show VALUE
# Everything else goes to standard error.

import json
import sys
import threading
import time

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import ConnectionLoss, NodeExistsError, OperationTimeoutError

hosts, root, watched = sys.argv[1], sys.argv[2], sys.argv[3]


def log(msg):
    sys.stderr.write("%s kazoo: %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


states = []
retries = {}
errors = []
acked = []
watch = {"events": 0, "value": None}
watch_cond = threading.Condition()


def listener(state):
    states.append(state)
    log("connection %s" % state)


zk = KazooClient(hosts=hosts, timeout=30,
                 connection_retry=dict(max_tries=-1, delay=0.1, backoff=1.5, max_delay=2))
zk.add_listener(listener)
zk.start(timeout=60)
session = zk.client_id[0]

zk.ensure_path(root)
eph = root + "/eph"
zk.create(eph, b"held by kazoo", ephemeral=True)


@zk.DataWatch(watched)
def on_data(data, stat):
    with watch_cond:
        watch["events"] += 1
        watch["value"] = None if data is None else data.decode()
        watch_cond.notify_all()


print(json.dumps({"event": "ready", "session": "0x%x" % session}), flush=True)

stop = threading.Event()


def retried(what, call):
    """Runs call until the server acknowledges it; a connection loss is
    retried (and counted), anything else is an error."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return call(attempt)
        except (ConnectionLoss, OperationTimeoutError) as e:
            name = type(e).__name__
            retries[name] = retries.get(name, 0) + 1
            log("%s: retrying after %s" % (what, name))
            time.sleep(0.1)


def writer():
    n = 0
    while not stop.is_set():
        path = "%s/k-%06d" % (root, n)

        def create(attempt, path=path, n=n):
            try:
                zk.create(path, str(n).encode())
            except NodeExistsError:
                # A create retried after a lost reply finds its own node.
                if attempt == 1:
                    raise
            return path

        try:
            acked.append(retried("create " + path, create))
        except Exception as e:  # noqa: BLE001 - every other error is reported
            errors.append("create %s: %r" % (path, e))
            log("create %s: %r" % (path, e))
            time.sleep(0.1)
        n += 1
        time.sleep(0.05)


t = threading.Thread(target=writer, daemon=True)
t.start()

line = sys.stdin.readline().split(" ", 1)
want = line[1].strip() if len(line) > 1 else None
stop.set()
t.join(60)
if t.is_alive():
    errors.append("the writer did not stop")

deadline = time.time() + 60
with watch_cond:
    while watch["value"] != want and time.time() < deadline:
        watch_cond.wait(1)

owner = None
try:
    stat = zk.exists(eph)
    owner = None if stat is None else "0x%x" % stat.ephemeralOwner
except Exception as e:  # noqa: BLE001
    errors.append("exists %s: %r" % (eph, e))

print(json.dumps({
    "event": "done",
    "session": "0x%x" % session,
    "session_end": "0x%x" % zk.client_id[0],
    "states": [str(s) for s in states],
    "lost": states.count(KazooState.LOST),
    "retries": retries,
    "errors": errors,
    "acked": acked,
    "watch_events": watch["events"],
    "watch_value": watch["value"],
    "eph_owner": owner,
}), flush=True)
zk.stop()
zk.close()
