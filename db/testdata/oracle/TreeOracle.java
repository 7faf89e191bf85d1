// TreeOracle replays a db/testdata scenario on Apache ZooKeeper's own
// DataTree and prints what the Go tests compare against (the .golden
// files). It is test tooling, not part of gozk; see README.md beside it.
//
// Every txn line prints the error, lastProcessedZxid, tree digest, node
// count, approximate data size, ephemeral count, the watch events the txn
// fired (captured with a persistent watch on every path the scenario
// names) and, where the txn has one, the stat or the multi results.
// A "dump" line prints every node in path order, a "children" line a
// node's children in getChildren's order, and a "restart" line replaces
// the tree with one read back from its snapshot, as a restart does.

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.txn.CheckVersionTxn;
import org.apache.zookeeper.txn.CloseSessionTxn;
import org.apache.zookeeper.txn.CreateContainerTxn;
import org.apache.zookeeper.txn.CreateSessionTxn;
import org.apache.zookeeper.txn.CreateTTLTxn;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.DeleteTxn;
import org.apache.zookeeper.txn.ErrorTxn;
import org.apache.zookeeper.txn.MultiTxn;
import org.apache.zookeeper.txn.SetACLTxn;
import org.apache.zookeeper.txn.SetDataTxn;
import org.apache.zookeeper.txn.Txn;
import org.apache.zookeeper.txn.TxnHeader;

public class TreeOracle {
    static final List<String> events = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
        for (String line : lines) {
            if (line.startsWith("options ") && line.contains("extended=true")) {
                System.setProperty("zookeeper.extendedTypesEnabled", "true");
            }
        }
        DataTree dt = new DataTree();
        Watcher w = new Watcher() {
            public void process(WatchedEvent e) {
                events.add(e.getType().getIntValue() + ":" + e.getPath());
            }
        };
        Set<String> watched = new TreeSet<>();
        watched.add("/");
        for (String line : lines) {
            for (String tok : line.trim().split("[\\s,]+")) {
                if (tok.startsWith("/")) {
                    for (String p = tok; p.length() > 0; p = p.substring(0, p.lastIndexOf('/'))) {
                        watched.add(p);
                    }
                }
            }
        }
        for (String p : watched) {
            dt.addWatch(p, w, 0);
        }
        int lineno = 0;
        for (String raw : lines) {
            lineno++;
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("options ")) {
                continue;
            }
            String[] f = line.split("\\s+");
            if (f[0].equals("dump")) {
                dump(dt);
                continue;
            }
            if (f[0].equals("children")) {
                // getChildren's order: the parent's HashSet iterated.
                List<String> cs = dt.getChildren(f[1], null, null);
                System.out.println("#" + lineno + " children " + f[1] + " " + String.join(",", cs));
                continue;
            }
            if (f[0].equals("restart")) {
                // What a restart does to the tree: a snapshot written and
                // read back into a new DataTree.
                ByteArrayOutputStream bos = new ByteArrayOutputStream();
                dt.serialize(BinaryOutputArchive.getArchive(bos), "tree");
                DataTree nt = new DataTree();
                nt.deserialize(BinaryInputArchive.getArchive(new ByteArrayInputStream(bos.toByteArray())), "tree");
                nt.lastProcessedZxid = dt.lastProcessedZxid;
                dt = nt;
                for (String p : watched) {
                    dt.addWatch(p, w, 0);
                }
                System.out.println("#" + lineno + " restart nodes=" + dt.getNodeCount() + " digest=" + dt.getTreeDigest());
                continue;
            }
            long zxid = Long.parseLong(f[1]);
            long time = Long.parseLong(f[2]);
            long sid = Long.parseLong(f[3]);
            String[] rest = Arrays.copyOfRange(f, 4, f.length);
            int type;
            Record rec;
            if (f[0].equals("multi")) {
                type = ZooDefs.OpCode.multi;
                List<Txn> txns = new ArrayList<>();
                List<String> cur = new ArrayList<>();
                for (int i = 0; i <= rest.length; i++) {
                    if (i == rest.length || rest[i].equals(";")) {
                        if (!cur.isEmpty()) {
                            String[] sf = cur.toArray(new String[0]);
                            Object[] tr = txn(sf[0], Arrays.copyOfRange(sf, 1, sf.length));
                            txns.add(new Txn((Integer) tr[0], serialize((Record) tr[1])));
                            cur.clear();
                        }
                    } else {
                        cur.add(rest[i]);
                    }
                }
                rec = new MultiTxn(txns);
            } else {
                Object[] tr = txn(f[0], rest);
                type = (Integer) tr[0];
                rec = (Record) tr[1];
            }
            events.clear();
            DataTree.ProcessTxnResult rc = dt.processTxn(new TxnHeader(sid, 0, zxid, time, type), rec);
            StringBuilder out = new StringBuilder();
            out.append("#").append(lineno).append(" ").append(f[0]).append(" err=").append(rc.err)
               .append(" last=").append(dt.lastProcessedZxid)
               .append(" digest=").append(dt.getTreeDigest())
               .append(" nodes=").append(dt.getNodeCount())
               .append(" size=").append(dt.approximateDataSize())
               .append(" eph=").append(dt.getEphemeralsCount())
               .append(" events=").append(String.join(",", events));
            if (rc.stat != null && rc.err == 0) {
                out.append(" stat=").append(stat(rc.stat));
            }
            if (rc.multiResult != null) {
                out.append(" results=");
                List<String> rs = new ArrayList<>();
                for (DataTree.ProcessTxnResult s : rc.multiResult) {
                    rs.add(multiResult(s));
                }
                out.append(String.join(",", rs));
            }
            System.out.println(out);
        }
    }

    // multiResult mirrors FinalRequestProcessor's choice of result record.
    static String multiResult(DataTree.ProcessTxnResult s) {
        if (s.err != 0 || s.type == ZooDefs.OpCode.error) {
            return "-1/" + s.err;
        }
        switch (s.type) {
        case ZooDefs.OpCode.create:
            return "1/" + s.path;
        case ZooDefs.OpCode.create2:
        case ZooDefs.OpCode.createTTL:
        case ZooDefs.OpCode.createContainer:
            return "15/" + s.path + "/" + stat(s.stat);
        case ZooDefs.OpCode.delete:
        case ZooDefs.OpCode.deleteContainer:
            return "2";
        case ZooDefs.OpCode.setData:
            return "5/" + stat(s.stat);
        case ZooDefs.OpCode.check:
            return "13";
        }
        return "?" + s.type;
    }

    static Object[] txn(String op, String[] a) throws Exception {
        switch (op) {
        case "session":
            return new Object[] {ZooDefs.OpCode.createSession, new CreateSessionTxn(Integer.parseInt(a[0]))};
        case "create":
        case "create2":
            return new Object[] {op.equals("create") ? ZooDefs.OpCode.create : ZooDefs.OpCode.create2,
                new CreateTxn(a[0], data(a[1]), acl(a, 4), a[2].equals("1"), Integer.parseInt(a[3]))};
        case "container":
            return new Object[] {ZooDefs.OpCode.createContainer,
                new CreateContainerTxn(a[0], data(a[1]), acl(a, 3), Integer.parseInt(a[2]))};
        case "ttl":
            return new Object[] {ZooDefs.OpCode.createTTL,
                new CreateTTLTxn(a[0], data(a[1]), acl(a, 4), Integer.parseInt(a[2]), Long.parseLong(a[3]))};
        case "delete":
            return new Object[] {ZooDefs.OpCode.delete, new DeleteTxn(a[0])};
        case "deletecontainer":
            return new Object[] {ZooDefs.OpCode.deleteContainer, new DeleteTxn(a[0])};
        case "setdata":
            return new Object[] {ZooDefs.OpCode.setData, new SetDataTxn(a[0], data(a[1]), Integer.parseInt(a[2]))};
        case "setacl":
            return new Object[] {ZooDefs.OpCode.setACL, new SetACLTxn(a[0], acl(a, 2), Integer.parseInt(a[1]))};
        case "check":
            return new Object[] {ZooDefs.OpCode.check, new CheckVersionTxn(a[0], Integer.parseInt(a[1]))};
        case "error":
            return new Object[] {ZooDefs.OpCode.error, new ErrorTxn(Integer.parseInt(a[0]))};
        case "close":
            List<String> paths = new ArrayList<>();
            if (a.length > 0 && !a[0].equals(".")) {
                paths.addAll(Arrays.asList(a[0].split(",")));
            }
            return new Object[] {ZooDefs.OpCode.closeSession, new CloseSessionTxn(paths)};
        }
        throw new IllegalArgumentException("unknown op " + op);
    }

    static byte[] data(String s) {
        if (s.equals("null")) {
            return null;
        }
        if (s.equals("empty")) {
            return new byte[0];
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // acl reads the optional ACL argument: "open" (the default), "read", or
    // perms:scheme:id entries separated by ','.
    static List<ACL> acl(String[] a, int i) {
        String s = i < a.length ? a[i] : "open";
        if (s.equals("open")) {
            return ZooDefs.Ids.OPEN_ACL_UNSAFE;
        }
        if (s.equals("read")) {
            return ZooDefs.Ids.READ_ACL_UNSAFE;
        }
        List<ACL> out = new ArrayList<>();
        for (String e : s.split(",")) {
            String[] p = e.split(":", 3);
            out.add(new ACL(Integer.parseInt(p[0]), new Id(p[1], p[2])));
        }
        return out;
    }

    static byte[] serialize(Record r) throws Exception {
        ByteArrayOutputStream baos = new ByteArrayOutputStream();
        r.serialize(BinaryOutputArchive.getArchive(baos), "txn");
        return baos.toByteArray();
    }

    static String stat(Stat s) {
        return s.getCzxid() + "," + s.getMzxid() + "," + s.getCtime() + "," + s.getMtime() + ","
            + s.getVersion() + "," + s.getCversion() + "," + s.getAversion() + ","
            + s.getEphemeralOwner() + "," + s.getDataLength() + "," + s.getNumChildren() + "," + s.getPzxid();
    }

    static void dump(DataTree dt) throws Exception {
        System.out.println("dump nodes=" + dt.getNodeCount() + " all=" + dt.getAllChildrenNumber("/")
            + " containers=" + new TreeSet<>(dt.getContainers()) + " ttls=" + new TreeSet<>(dt.getTtls()));
        dumpNode(dt, "");
        for (long sid : new TreeSet<>(dt.getSessions())) {
            Set<String> eph = new TreeSet<>(dt.getEphemerals(sid));
            if (!eph.isEmpty()) {
                System.out.println("  ephemerals " + sid + " " + String.join(",", eph));
            }
        }
    }

    static void dumpNode(DataTree dt, String path) throws Exception {
        String p = path.isEmpty() ? "/" : path;
        Stat s = new Stat();
        byte[] d = dt.getData(p, s, null);
        DataNode n = dt.getNode(p);
        List<String> acl = new ArrayList<>();
        for (ACL a : dt.getACL(p, null)) {
            acl.add(a.getPerms() + ":" + a.getId().getScheme() + ":" + a.getId().getId());
        }
        System.out.println("  " + p + " data=" + (d == null ? "null" : "'" + new String(d, StandardCharsets.UTF_8) + "'")
            + " stat=" + stat(s) + " stored=" + n.stat.getCversion() + "," + n.stat.getEphemeralOwner()
            + " acl=" + String.join(",", acl));
        List<String> children = new ArrayList<>(dt.getChildren(p, null, null));
        Collections.sort(children);
        for (String c : children) {
            dumpNode(dt, path + "/" + c);
        }
    }
}
