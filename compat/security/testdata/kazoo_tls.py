"""Connects to a ZooKeeper server with kazoo over TLS and prints FACT lines.

Arguments: address certfile|- keyfile|- ca connect_seconds op...
ops: create:<path>[:<x509 DN>]  get:<path>
"""
import sys

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException
from kazoo.security import ACL, Id, Permissions


def main():
    addr, cert, key, ca, wait = sys.argv[1:6]
    kwargs = dict(hosts=addr, use_ssl=True, ca=ca, verify_certs=True)
    if cert != "-":
        kwargs.update(certfile=cert, keyfile=key)
    zk = KazooClient(**kwargs)
    try:
        zk.start(timeout=float(wait))
    except Exception as e:  # the server refused: kazoo gives up after the timeout
        print("FACT connected False", flush=True)
        zk.stop()
        return
    print("FACT connected True", flush=True)
    for op in sys.argv[6:]:
        p = op.split(":", 2)
        try:
            if p[0] == "create":
                acl = None
                if len(p) > 2:
                    acl = [ACL(Permissions.ALL, Id("x509", p[2]))]
                out = zk.create(p[1], b"v", acl=acl)
            elif p[0] == "get":
                out = zk.get(p[1])[0].decode()
            else:
                out = "unknown op"
        except KazooException as e:
            out = type(e).__name__
        print("FACT %s %s" % (op, out), flush=True)
    zk.stop()


main()
