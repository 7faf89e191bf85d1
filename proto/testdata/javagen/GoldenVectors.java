import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.MultiResponse;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.data.StatPersisted;
import org.apache.zookeeper.proto.*;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.EphemeralType;
import org.apache.zookeeper.server.ReferenceCountedACLCache;
import org.apache.zookeeper.server.persistence.FileHeader;
import org.apache.zookeeper.server.persistence.FileSnap;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.Util;
import org.apache.zookeeper.server.quorum.Leader;
import org.apache.zookeeper.server.quorum.LearnerInfo;
import org.apache.zookeeper.server.quorum.QuorumAuthPacket;
import org.apache.zookeeper.server.quorum.QuorumPacket;
import org.apache.zookeeper.server.quorum.auth.QuorumAuth;
import org.apache.zookeeper.server.util.SerializeUtils;
import org.apache.zookeeper.txn.*;

/**
 * Writes gozk's golden vectors: byte-exact jute encodings produced by
 * Apache ZooKeeper's own Java classes, each with a JSON rendering of the
 * field values, plus a few composite streams (multi bodies, the connect
 * handshake, a serialized DataTree, txn log entries).
 *
 * Usage: java GoldenVectors OUTDIR [zookeeper.jute]
 *
 * With the .jute path, the program fails unless every class it declares
 * got at least one vector. Run it through `make golden`.
 */
public final class GoldenVectors {

    static final String EMOJI = new String(Character.toChars(0x1F600));
    /** Non-ASCII text: two-byte, three-byte and supplementary characters. */
    static final String UNICODE = "ü名" + EMOJI;

    private final File outDir;
    private final File compDir;
    private final List<String> manifest = new ArrayList<>();
    private final List<String> compManifest = new ArrayList<>();
    private final TreeSet<String> covered = new TreeSet<>();

    private GoldenVectors(File outDir) {
        this.outDir = outDir;
        this.compDir = new File(outDir, "composite");
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: java GoldenVectors OUTDIR [zookeeper.jute]");
            System.exit(2);
        }
        // TTL and container owners only mean something with extended types
        // on; set it before EphemeralType is first touched.
        System.setProperty("zookeeper.extendedTypesEnabled", "true");
        GoldenVectors g = new GoldenVectors(new File(args[0]));
        g.clean();
        g.records();
        g.composites();
        g.finish(args.length == 2 ? new File(args[1]) : null);
    }

    // ---------------------------------------------------------------------
    // Output

    private void clean() throws IOException {
        for (File dir : new File[] {outDir, compDir}) {
            Files.createDirectories(dir.toPath());
            File[] files = dir.listFiles();
            for (File f : files) {
                String n = f.getName();
                if (f.isFile() && (n.endsWith(".bin") || n.endsWith(".json") || n.equals("MANIFEST"))) {
                    Files.delete(f.toPath());
                }
            }
        }
    }

    private static void write(File f, byte[] b) throws IOException {
        Files.write(f.toPath(), b);
    }

    private static void write(File f, String s) throws IOException {
        Files.write(f.toPath(), s.getBytes(UTF_8));
    }

    private void finish(File jute) throws IOException {
        write(new File(outDir, "MANIFEST"), header("<Record> <case>") + String.join("\n", manifest) + "\n");
        write(new File(compDir, "MANIFEST"), header("<name>") + String.join("\n", compManifest) + "\n");
        System.out.printf("wrote %d record vectors for %d records and %d composite vectors to %s%n",
                manifest.size(), covered.size(), compManifest.size(), outDir);
        if (jute != null) {
            String src = new String(Files.readAllBytes(jute.toPath()), UTF_8);
            Matcher m = Pattern.compile("(?m)^\\s*class\\s+(\\w+)").matcher(src);
            List<String> missing = new ArrayList<>();
            while (m.find()) {
                if (!covered.contains(m.group(1))) {
                    missing.add(m.group(1));
                }
            }
            if (!missing.isEmpty()) {
                throw new IllegalStateException("no golden vector for " + missing);
            }
        }
    }

    private static String header(String format) {
        return "# Generated by proto/testdata/javagen/GoldenVectors.java (make golden)\n"
                + "# from Apache ZooKeeper's Java classes. Do not edit.\n# " + format + "\n";
    }

    static byte[] binary(Record r) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        r.serialize(BinaryOutputArchive.getArchive(bos), "");
        return bos.toByteArray();
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }

    static void sameBytes(String what, byte[] want, byte[] got) {
        if (!Arrays.equals(want, got)) {
            throw new IllegalStateException(what + ": bytes differ\n want " + hex(want) + "\n  got " + hex(got));
        }
    }

    // ---------------------------------------------------------------------
    // Single records

    /** The generated variants, applied to every record on top of its hand-written cases. */
    enum Flavor {
        ZERO("zero"), NULL("null"), MIN("min"), MINUS1("minus1"), MAX("max");

        final String name;

        Flavor(String name) {
            this.name = name;
        }
    }

    /**
     * Builds a value of t for flavor f. ZERO: zeros, false, empty strings,
     * buffers and vectors. NULL: like ZERO but null buffers and vectors.
     * MIN: minimum numbers, a string holding NUL, one-element vectors.
     * MINUS1: -1 everywhere (the same bits as a null length). MAX: maximum
     * numbers, Unicode strings with every UTF-8 length boundary and two
     * supplementary characters, a 256-byte buffer, two-element vectors.
     */
    static Object value(Type t, Flavor f) throws Exception {
        if (t == int.class) {
            switch (f) {
                case MIN: return Integer.MIN_VALUE;
                case MINUS1: return -1;
                case MAX: return Integer.MAX_VALUE;
                default: return 0;
            }
        }
        if (t == long.class) {
            switch (f) {
                case MIN: return Long.MIN_VALUE;
                case MINUS1: return -1L;
                case MAX: return Long.MAX_VALUE;
                default: return 0L;
            }
        }
        if (t == boolean.class) {
            return f != Flavor.ZERO && f != Flavor.NULL;
        }
        if (t == String.class) {
            switch (f) {
                case MIN: return "a\u0000b";
                case MINUS1: return "/";
                case MAX: return "/" + UNICODE + "/\u007f\u0080\u07ff\u0800\ud7ff\ue000\uffff"
                        + new String(Character.toChars(0x10FFFF)) + "\"\\end";
                default: return "";
            }
        }
        if (t == byte[].class) {
            switch (f) {
                case NULL: return null;
                case MIN: return new byte[] {0};
                case MINUS1: return new byte[] {(byte) 0xff};
                case MAX: {
                    byte[] b = new byte[256];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = (byte) i;
                    }
                    return b;
                }
                default: return new byte[0];
            }
        }
        if (t instanceof ParameterizedType && ((ParameterizedType) t).getRawType() == List.class) {
            Type e = ((ParameterizedType) t).getActualTypeArguments()[0];
            List<Object> l = new ArrayList<>();
            switch (f) {
                case NULL: return null;
                case ZERO: break;
                case MAX:
                    l.add(value(e, Flavor.MAX));
                    l.add(value(e, Flavor.ZERO));
                    break;
                default:
                    l.add(value(e, f));
            }
            return l;
        }
        if (t instanceof Class && Record.class.isAssignableFrom((Class<?>) t)) {
            return make((Class<?>) t, f);
        }
        throw new IllegalArgumentException("no value for " + t);
    }

    /** Builds a record through its all-fields constructor. */
    static Record make(Class<?> c, Flavor f) throws Exception {
        Constructor<?> best = null;
        for (Constructor<?> k : c.getConstructors()) {
            if (best == null || k.getParameterCount() > best.getParameterCount()) {
                best = k;
            }
        }
        Type[] ps = best.getGenericParameterTypes();
        Object[] args = new Object[ps.length];
        for (int i = 0; i < ps.length; i++) {
            args[i] = value(ps[i], f);
        }
        return (Record) best.newInstance(args);
    }

    /** A hand-written case list; keep insertion order, "basic" first. */
    static final class Cases {
        final Map<String, Record> m = new LinkedHashMap<>();

        Cases add(String name, Record r) {
            if (m.put(name, r) != null) {
                throw new IllegalArgumentException("duplicate case " + name);
            }
            return this;
        }
    }

    static Cases basic(Record r) {
        return new Cases().add("basic", r);
    }

    /**
     * Writes every hand-written case of a record and every generated
     * flavor whose bytes differ from the cases already written.
     */
    private void emit(Class<? extends Record> cls, Cases hand) throws Exception {
        String name = cls.getSimpleName();
        Map<String, Record> all = new LinkedHashMap<>(hand.m);
        for (Flavor f : Flavor.values()) {
            all.put(f.name, make(cls, f));
        }
        List<byte[]> seen = new ArrayList<>();
        outer:
        for (Map.Entry<String, Record> e : all.entrySet()) {
            Record r = e.getValue();
            if (r.getClass() != cls) {
                throw new IllegalStateException(name + "-" + e.getKey() + " is a " + r.getClass());
            }
            byte[] bin = binary(r);
            for (byte[] s : seen) {
                if (Arrays.equals(s, bin)) {
                    continue outer;
                }
            }
            if (!crossCheck(name + "-" + e.getKey(), r, bin)) {
                continue;
            }
            seen.add(bin);
            String base = name + "-" + e.getKey();
            write(new File(outDir, base + ".bin"), bin);
            write(new File(outDir, base + ".json"), JsonArchive.render(r, true) + "\n");
            manifest.add(name + " " + e.getKey());
            covered.add(name);
        }
    }

    /**
     * For the records written by hand, checks our bytes against the code
     * path ZooKeeper itself uses. Returns false when ZooKeeper cannot write
     * the value at all (then there is no golden vector to take).
     */
    private static boolean crossCheck(String what, Record r, byte[] ours) throws Exception {
        if (r instanceof SnapshotRecords.DataNode) {
            SnapshotRecords.DataNode n = (SnapshotRecords.DataNode) r;
            org.apache.zookeeper.server.DataNode real =
                    new org.apache.zookeeper.server.DataNode(n.data, n.acl, n.stat);
            sameBytes(what + " vs server.DataNode", binary(real), ours);
        } else if (r instanceof SnapshotRecords.ACLCacheEntry) {
            SnapshotRecords.ACLCacheEntry a = (SnapshotRecords.ACLCacheEntry) r;
            if (a.acl == null) {
                // The cache never holds a null list, and serializing one
                // would throw: not something ZooKeeper writes.
                System.err.println("skipping " + what + ": ZooKeeper never writes a null ACL list");
                return false;
            }
            ReferenceCountedACLCache cache = new ReferenceCountedACLCache();
            Field f = ReferenceCountedACLCache.class.getDeclaredField("longKeyMap");
            f.setAccessible(true);
            @SuppressWarnings("unchecked")
            Map<Long, List<ACL>> m = (Map<Long, List<ACL>>) f.get(cache);
            m.put(a.id, a.acl);
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            cache.serialize(BinaryOutputArchive.getArchive(bos));
            byte[] real = bos.toByteArray();
            // The cache writes its entry count first.
            sameBytes(what + " vs ReferenceCountedACLCache", Arrays.copyOfRange(real, 4, real.length), ours);
        } else if (r instanceof SnapshotRecords.SnapshotSession) {
            SnapshotRecords.SnapshotSession s = (SnapshotRecords.SnapshotSession) r;
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            SerializeUtils.serializeSnapshot(new DataTree(), BinaryOutputArchive.getArchive(bos),
                    Collections.singletonMap(s.id, s.timeout));
            byte[] real = bos.toByteArray();
            // Session count first, then the sessions, then the tree.
            sameBytes(what + " vs SerializeUtils.serializeSnapshot", Arrays.copyOfRange(real, 4, 16), ours);
        } else if (r instanceof SnapshotRecords.ZxidDigest) {
            SnapshotRecords.ZxidDigest z = (SnapshotRecords.ZxidDigest) r;
            Class<?> c = Class.forName("org.apache.zookeeper.server.DataTree$ZxidDigest");
            Constructor<?> k = c.getDeclaredConstructor(DataTree.class, long.class, int.class, long.class);
            k.setAccessible(true);
            Object real = k.newInstance(new DataTree(), z.zxid, z.digestVersion, z.digest);
            Method ser = c.getMethod("serialize", org.apache.jute.OutputArchive.class);
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            ser.invoke(real, BinaryOutputArchive.getArchive(bos));
            sameBytes(what + " vs DataTree.ZxidDigest", bos.toByteArray(), ours);
        }
        return true;
    }

    // Sample values shared by the hand-written cases.

    static final long SESSION = 0x1000003c5f60000L;
    static final long TIME = 1700000000123L;
    static final byte[] PASSWD = {
        (byte) 0x8a, 0x11, 0x7c, (byte) 0xf0, 0x00, 0x21, 0x5e, (byte) 0x99,
        0x3b, (byte) 0xc4, 0x0d, 0x62, (byte) 0xee, 0x07, 0x40, (byte) 0xff};

    static List<ACL> acls(ACL... a) {
        return new ArrayList<>(Arrays.asList(a));
    }

    static ACL acl(int perms, String scheme, String id) {
        return new ACL(perms, new Id(scheme, id));
    }

    static final List<ACL> OPEN = acls(acl(ZooDefs.Perms.ALL, "world", "anyone"));
    static final List<ACL> MIXED = acls(
            acl(ZooDefs.Perms.READ, "world", "anyone"),
            acl(ZooDefs.Perms.ALL, "digest", "alice:K3s+xW9QvGz0y1mFZ2pQ5bN7Hc4="),
            acl(ZooDefs.Perms.READ | ZooDefs.Perms.WRITE, "ip", "10.0.0.0/8"),
            acl(ZooDefs.Perms.ADMIN, "sasl", UNICODE + "@EXAMPLE.COM"));

    static List<String> strs(String... s) {
        return new ArrayList<>(Arrays.asList(s));
    }

    static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    static Stat stat(long ephemeralOwner) {
        return new Stat(0x100000002L, 0x100000007L, TIME, TIME + 333, 3, 2, 1, ephemeralOwner, 11, 2,
                0x100000009L);
    }

    static StatPersisted statPersisted(long ephemeralOwner) {
        return new StatPersisted(0x100000002L, 0x100000007L, TIME, TIME + 333, 3, 2, 1, ephemeralOwner,
                0x100000009L);
    }

    static final long TTL_OWNER = EphemeralType.TTL.toEphemeralOwner(60000);
    static final long CONTAINER_OWNER = EphemeralType.CONTAINER_EPHEMERAL_OWNER;

    private void records() throws Exception {
        // module data
        emit(Id.class, basic(new Id("digest", "alice:K3s+xW9QvGz0y1mFZ2pQ5bN7Hc4="))
                .add("world", new Id("world", "anyone"))
                .add("unicode", new Id("sasl", UNICODE + "@EXAMPLE.COM")));
        emit(ACL.class, basic(acl(ZooDefs.Perms.ALL, "world", "anyone"))
                .add("digest", acl(ZooDefs.Perms.READ | ZooDefs.Perms.WRITE, "digest", "bob:hash=")));
        emit(Stat.class, basic(stat(0))
                .add("ephemeral", stat(SESSION))
                .add("container", stat(CONTAINER_OWNER))
                .add("ttl", stat(TTL_OWNER)));
        emit(StatPersisted.class, basic(statPersisted(0))
                .add("container", statPersisted(CONTAINER_OWNER))
                .add("ttl", statPersisted(TTL_OWNER)));
        emit(ClientInfo.class, basic(new ClientInfo("digest", "alice"))
                .add("unicode", new ClientInfo("sasl", UNICODE)));

        // module proto
        emit(ConnectRequest.class, basic(new ConnectRequest(0, 0x100000005L, 30000, SESSION, PASSWD))
                .add("new", new ConnectRequest(0, 0, 30000, 0, new byte[16])));
        emit(ConnectResponse.class, basic(new ConnectResponse(0, 30000, SESSION, PASSWD))
                .add("expired", new ConnectResponse(0, 0, 0, new byte[16])));
        emit(SetWatches.class, basic(new SetWatches(0x100000007L, strs("/app/config", "/app/a"),
                strs("/app/missing"), strs("/app"))));
        emit(SetWatches2.class, basic(new SetWatches2(0x100000007L, strs("/app/config"), strs(),
                strs("/app"), strs("/persist"), strs("/", "/" + UNICODE))));
        emit(RequestHeader.class, basic(new RequestHeader(7, ZooDefs.OpCode.getData))
                .add("ping", new RequestHeader(-2, ZooDefs.OpCode.ping))
                .add("auth", new RequestHeader(-4, ZooDefs.OpCode.auth))
                .add("setwatches", new RequestHeader(-8, ZooDefs.OpCode.setWatches)));
        emit(MultiHeader.class, basic(new MultiHeader(ZooDefs.OpCode.create, false, -1))
                .add("end", new MultiHeader(-1, true, -1))
                .add("error", new MultiHeader(-1, false, KeeperException.Code.NONODE.intValue())));
        emit(AuthPacket.class, basic(new AuthPacket(0, "digest", b("alice:secret"))));
        emit(ReplyHeader.class, basic(new ReplyHeader(7, 0x100000007L, 0))
                .add("notification", new ReplyHeader(-1, -1, 0))
                .add("error", new ReplyHeader(8, 0x100000007L, KeeperException.Code.NONODE.intValue())));
        emit(GetDataRequest.class, basic(new GetDataRequest("/app/config", true)));
        emit(SetDataRequest.class, basic(new SetDataRequest("/app/config", b("hello"), -1))
                .add("versioned", new SetDataRequest("/app/config", b("x"), 3)));
        emit(ReconfigRequest.class, basic(new ReconfigRequest(
                "server.4=10.0.0.4:2888:3888:participant;0.0.0.0:2181", "2", "", -1)));
        emit(SetDataResponse.class, basic(new SetDataResponse(stat(0))));
        byte[] token = {0x60, (byte) 0x82, 0x02, 0x1d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48};
        emit(GetSASLRequest.class, basic(new GetSASLRequest(token)));
        emit(SetSASLRequest.class, basic(new SetSASLRequest(token)));
        emit(SetSASLResponse.class, basic(new SetSASLResponse(token)));
        emit(CreateRequest.class, basic(new CreateRequest("/app/node", b("data"), OPEN,
                CreateMode.PERSISTENT.toFlag()))
                .add("sequential", new CreateRequest("/app/lock-", null, MIXED,
                        CreateMode.EPHEMERAL_SEQUENTIAL.toFlag()))
                .add("container", new CreateRequest("/app/container", new byte[0], OPEN,
                        CreateMode.CONTAINER.toFlag())));
        emit(CreateTTLRequest.class, basic(new CreateTTLRequest("/app/ttl", b("data"), OPEN,
                CreateMode.PERSISTENT_WITH_TTL.toFlag(), 60000))
                .add("sequential", new CreateTTLRequest("/app/ttl-", null, MIXED,
                        CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL.toFlag(), 1)));
        emit(DeleteRequest.class, basic(new DeleteRequest("/app/node", -1))
                .add("versioned", new DeleteRequest("/app/node", 3)));
        emit(GetChildrenRequest.class, basic(new GetChildrenRequest("/app", false)));
        emit(GetAllChildrenNumberRequest.class, basic(new GetAllChildrenNumberRequest("/app")));
        emit(GetChildren2Request.class, basic(new GetChildren2Request("/app", true)));
        emit(CheckVersionRequest.class, basic(new CheckVersionRequest("/app/node", 3)));
        emit(GetMaxChildrenRequest.class, basic(new GetMaxChildrenRequest("/app")));
        emit(GetMaxChildrenResponse.class, basic(new GetMaxChildrenResponse(100)));
        emit(SetMaxChildrenRequest.class, basic(new SetMaxChildrenRequest("/app", 100)));
        emit(SyncRequest.class, basic(new SyncRequest("/app")));
        emit(SyncResponse.class, basic(new SyncResponse("/app")));
        emit(GetACLRequest.class, basic(new GetACLRequest("/app")));
        emit(SetACLRequest.class, basic(new SetACLRequest("/app", MIXED, 2)));
        emit(SetACLResponse.class, basic(new SetACLResponse(stat(0))));
        emit(AddWatchRequest.class, basic(new AddWatchRequest("/app", AddWatchMode.PERSISTENT_RECURSIVE.getMode()))
                .add("persistent", new AddWatchRequest("/app", AddWatchMode.PERSISTENT.getMode())));
        emit(WatcherEvent.class, basic(new WatcherEvent(Watcher.Event.EventType.NodeDataChanged.getIntValue(),
                Watcher.Event.KeeperState.SyncConnected.getIntValue(), "/app/config"))
                .add("expired", new WatcherEvent(Watcher.Event.EventType.None.getIntValue(),
                        Watcher.Event.KeeperState.Expired.getIntValue(), "")));
        emit(ErrorResponse.class, basic(new ErrorResponse(KeeperException.Code.NONODE.intValue())));
        emit(CreateResponse.class, basic(new CreateResponse("/app/lock-0000000007")));
        emit(Create2Response.class, basic(new Create2Response("/app/lock-0000000007", stat(SESSION))));
        emit(ExistsRequest.class, basic(new ExistsRequest("/app", true)));
        emit(ExistsResponse.class, basic(new ExistsResponse(stat(0))));
        emit(GetDataResponse.class, basic(new GetDataResponse(b("hello world"), stat(0)))
                .add("nulldata", new GetDataResponse(null, stat(0)))
                .add("emptydata", new GetDataResponse(new byte[0], stat(0))));
        emit(GetChildrenResponse.class, basic(new GetChildrenResponse(
                strs("a", "config", "lock-0000000001", UNICODE))));
        emit(GetAllChildrenNumberResponse.class, basic(new GetAllChildrenNumberResponse(42)));
        emit(GetChildren2Response.class, basic(new GetChildren2Response(strs("a", "b"), stat(0))));
        emit(GetACLResponse.class, basic(new GetACLResponse(MIXED, stat(0))));
        emit(CheckWatchesRequest.class, basic(new CheckWatchesRequest("/app",
                Watcher.WatcherType.Data.getIntValue())));
        emit(RemoveWatchesRequest.class, basic(new RemoveWatchesRequest("/app",
                Watcher.WatcherType.Any.getIntValue())));
        emit(GetEphemeralsRequest.class, basic(new GetEphemeralsRequest("/app")));
        emit(GetEphemeralsResponse.class, basic(new GetEphemeralsResponse(
                strs("/app/lock-0000000001", "/app/lock-0000000002"))));
        emit(WhoAmIResponse.class, basic(new WhoAmIResponse(new ArrayList<>(Arrays.asList(
                new ClientInfo("ip", "127.0.0.1"), new ClientInfo("digest", "alice"))))));

        // module quorum
        emit(LearnerInfo.class, basic(new LearnerInfo(3, 0x10000, 0x100000000L)));
        byte[] proposal = Util.marshallTxnEntry(
                new TxnHeader(SESSION, 5, 0x100000008L, TIME, ZooDefs.OpCode.delete), new DeleteTxn("/app/x"));
        emit(QuorumPacket.class, basic(new QuorumPacket(Leader.PROPOSAL, 0x100000008L, proposal, null))
                // Leader.PING (5) is package-private; a ping carries no data.
                .add("ping", new QuorumPacket(5, 0x100000008L, null, null))
                // Leader.REQUEST (1) forwards a client request with its auth.
                .add("request", new QuorumPacket(1, -1, b("request"), new ArrayList<>(Arrays.asList(
                        new Id("digest", "alice:hash="), new Id("ip", "10.0.0.7")))))
                .add("emptyauth", new QuorumPacket(Leader.LEADERINFO, 0x200000000L, new byte[0],
                        new ArrayList<>())));
        emit(QuorumAuthPacket.class, basic(QuorumAuth.createPacket(QuorumAuth.Status.IN_PROGRESS, token))
                .add("success", QuorumAuth.createPacket(QuorumAuth.Status.SUCCESS, null)));

        // module persistence
        emit(FileHeader.class, basic(new FileHeader(FileTxnLog.TXNLOG_MAGIC, FileTxnLog.VERSION, 0))
                // FileSnap.VERSION is private; snapshots use version 2 as well.
                .add("snapshot", new FileHeader(FileSnap.SNAP_MAGIC, 2, -1)));
        emit(SnapshotRecords.DataNode.class, basic(new SnapshotRecords.DataNode(b("data"), 1, statPersisted(0)))
                .add("nulldata", new SnapshotRecords.DataNode(null, -1, statPersisted(SESSION)))
                .add("container", new SnapshotRecords.DataNode(new byte[0], 2, statPersisted(CONTAINER_OWNER)))
                .add("ttl", new SnapshotRecords.DataNode(b("t"), 3, statPersisted(TTL_OWNER))));
        emit(SnapshotRecords.ACLCacheEntry.class, basic(new SnapshotRecords.ACLCacheEntry(1, MIXED))
                .add("open", new SnapshotRecords.ACLCacheEntry(2, OPEN)));
        emit(SnapshotRecords.SnapshotSession.class, basic(new SnapshotRecords.SnapshotSession(SESSION, 30000)));
        emit(SnapshotRecords.ZxidDigest.class, basic(new SnapshotRecords.ZxidDigest(0x100000009L, 2,
                0x1234abcd5678ef90L)));

        // module txn
        emit(TxnDigest.class, basic(new TxnDigest(2, 0x1234abcd5678ef90L)));
        emit(TxnHeader.class, basic(new TxnHeader(SESSION, 7, 0x100000007L, TIME, ZooDefs.OpCode.create))
                .add("createsession", new TxnHeader(SESSION, 0, 0x100000001L, TIME, ZooDefs.OpCode.createSession)));
        emit(CreateTxnV0.class, basic(new CreateTxnV0("/app/old", b("data"), OPEN, false)));
        emit(CreateTxn.class, basic(new CreateTxn("/app/node", b("data"), OPEN, false, 3))
                .add("ephemeral", new CreateTxn("/app/lock-0000000001", null, MIXED, true, 4)));
        emit(CreateTTLTxn.class, basic(new CreateTTLTxn("/app/ttl", b("data"), OPEN, 5, 60000)));
        emit(CreateContainerTxn.class, basic(new CreateContainerTxn("/app/container", new byte[0], OPEN, 6)));
        emit(DeleteTxn.class, basic(new DeleteTxn("/app/node")));
        emit(SetDataTxn.class, basic(new SetDataTxn("/app/config", b("new"), 4)));
        emit(CheckVersionTxn.class, basic(new CheckVersionTxn("/app/config", 4)));
        emit(SetACLTxn.class, basic(new SetACLTxn("/app", MIXED, 2)));
        emit(SetMaxChildrenTxn.class, basic(new SetMaxChildrenTxn("/app", 100)));
        emit(CreateSessionTxn.class, basic(new CreateSessionTxn(30000)));
        emit(CloseSessionTxn.class, basic(new CloseSessionTxn(strs("/app/lock-0000000001", "/app/e"))));
        emit(ErrorTxn.class, basic(new ErrorTxn(KeeperException.Code.NODEEXISTS.intValue())));
        emit(Txn.class, basic(new Txn(ZooDefs.OpCode.delete, binary(new DeleteTxn("/app/x")))));
        emit(MultiTxn.class, basic(new MultiTxn(new ArrayList<>(Arrays.asList(
                new Txn(ZooDefs.OpCode.delete, binary(new DeleteTxn("/app/x"))),
                new Txn(ZooDefs.OpCode.check, binary(new CheckVersionTxn("/app", 1))))))));
    }

    // ---------------------------------------------------------------------
    // Composite vectors

    /**
     * Rebuilds a stream as a list of parts: each part is written both to a
     * binary archive and as JSON, so the finished list can be checked
     * against the bytes ZooKeeper produced and describes them exactly.
     */
    static final class Parts {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final BinaryOutputArchive bin = BinaryOutputArchive.getArchive(bytes);
        final List<String> json = new ArrayList<>();

        Parts record(Record r) throws IOException {
            return record(r, null);
        }

        /** Adds a record; inner, if set, describes the payload buffers it holds. */
        Parts record(Record r, List<String> inner) throws IOException {
            r.serialize(bin, "");
            String s = "{\"type\": " + JsonArchive.quote(r.getClass().getSimpleName())
                    + ", \"value\": " + JsonArchive.render(r, false);
            if (inner != null) {
                s += ", \"inner\": [" + String.join(", ", inner) + "]";
            }
            json.add(s + "}");
            return this;
        }

        private Parts prim(String type, JsonWrite w) throws IOException {
            JsonArchive a = new JsonArchive(false);
            w.write(a);
            json.add("{\"type\": \"" + type + "\", \"value\": " + a.result() + "}");
            return this;
        }

        interface JsonWrite {
            void write(org.apache.jute.OutputArchive a) throws IOException;
        }

        Parts writeInt(int v) throws IOException {
            bin.writeInt(v, "");
            return prim("int", a -> a.writeInt(v, ""));
        }

        Parts writeBool(boolean v) throws IOException {
            bin.writeBool(v, "");
            return prim("boolean", a -> a.writeBool(v, ""));
        }

        Parts writeString(String v) throws IOException {
            bin.writeString(v, "");
            return prim("ustring", a -> a.writeString(v, ""));
        }
    }

    /** Describes one record as a part, for the inner list of a MultiTxn. */
    static String innerPart(Record r) throws IOException {
        return "{\"type\": " + JsonArchive.quote(r.getClass().getSimpleName())
                + ", \"value\": " + JsonArchive.render(r, false) + "}";
    }

    private void composite(String name, String source, String description, byte[] java, Parts parts)
            throws IOException {
        sameBytes("composite " + name, java, parts.bytes.toByteArray());
        write(new File(compDir, name + ".bin"), java);
        StringBuilder s = new StringBuilder();
        s.append("{\n  \"name\": ").append(JsonArchive.quote(name))
                .append(",\n  \"source\": ").append(JsonArchive.quote(source))
                .append(",\n  \"description\": ").append(JsonArchive.quote(description))
                .append(",\n  \"length\": ").append(java.length)
                .append(",\n  \"parts\": [\n    ")
                .append(String.join(",\n    ", parts.json))
                .append("\n  ]\n}\n");
        write(new File(compDir, name + ".json"), s.toString());
        compManifest.add(name);
    }

    private void composites() throws Exception {
        multiRequests();
        multiResponses();
        connectRequests();
        dataTree();
        txnEntries();
    }

    private void multiRequests() throws Exception {
        List<Op> ops = Arrays.asList(
                Op.create("/app/p", b("p"), OPEN, CreateMode.PERSISTENT),
                Op.create("/app/seq-", null, MIXED, CreateMode.PERSISTENT_SEQUENTIAL),
                Op.create("/app/eph", new byte[0], OPEN, CreateMode.EPHEMERAL),
                Op.create("/app/container", b("c"), OPEN, CreateMode.CONTAINER),
                Op.create("/app/ttl", b("t"), OPEN, CreateMode.PERSISTENT_WITH_TTL, 60000),
                Op.create("/app/ttl-seq-", b("t"), OPEN, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, 1000),
                Op.delete("/app/old", -1),
                Op.setData("/app/" + UNICODE, b("v"), 3),
                Op.check("/app", 7));
        multiRequest("multi-request", ops,
                "body of a multi request (opcode 14) as the Java client sends it after the RequestHeader: "
                        + "a MultiHeader and request record per op, then MultiHeader{-1,true,-1}");
        multiRequest("multiread-request", Arrays.asList(Op.getChildren("/app"), Op.getData("/app/p")),
                "body of a multiRead request (opcode 22) after the RequestHeader");
    }

    private void multiRequest(String name, List<Op> ops, String description) throws Exception {
        MultiOperationRecord rec = new MultiOperationRecord(ops);
        Parts p = new Parts();
        for (Op op : ops) {
            p.record(new MultiHeader(op.getType(), false, -1));
            p.record(op.toRequestRecord());
        }
        p.record(new MultiHeader(-1, true, -1));
        composite(name, "org.apache.zookeeper.MultiOperationRecord.serialize", description, binary(rec), p);
    }

    private void multiResponses() throws Exception {
        Stat st = stat(0);
        multiResponse("multi-response", Arrays.asList(
                new OpResult.CreateResult("/app/p"),
                new OpResult.CreateResult("/app/seq-0000000003", st),
                new OpResult.DeleteResult(),
                new OpResult.SetDataResult(st),
                new OpResult.CheckResult(),
                new OpResult.GetDataResult(b("data"), st),
                new OpResult.GetChildrenResult(strs("a", UNICODE)),
                new OpResult.ErrorResult(KeeperException.Code.NONODE.intValue())),
                "a MultiResponse holding every OpResult kind: create, create2, delete, setData, check, "
                        + "getData, getChildren and error (delete and check have no body)");
        multiResponse("multi-response-failed", Arrays.asList(
                new OpResult.ErrorResult(KeeperException.Code.OK.intValue()),
                new OpResult.ErrorResult(KeeperException.Code.BADVERSION.intValue()),
                new OpResult.ErrorResult(KeeperException.Code.RUNTIMEINCONSISTENCY.intValue())),
                "the MultiResponse of a failed multi: one ErrorResult per op");
        multiResponse("multiread-response", Arrays.asList(
                new OpResult.GetChildrenResult(strs()),
                new OpResult.GetDataResult(null, st),
                new OpResult.ErrorResult(KeeperException.Code.NONODE.intValue())),
                "a multiRead MultiResponse: empty children list, null data, and an error");
    }

    private void multiResponse(String name, List<OpResult> results, String description) throws Exception {
        MultiResponse rec = new MultiResponse();
        Parts p = new Parts();
        for (OpResult r : results) {
            rec.add(r);
            int err = r instanceof OpResult.ErrorResult ? ((OpResult.ErrorResult) r).getErr() : 0;
            p.record(new MultiHeader(r.getType(), false, err));
            if (r instanceof OpResult.ErrorResult) {
                p.record(new ErrorResponse(err));
            } else if (r instanceof OpResult.CreateResult) {
                OpResult.CreateResult c = (OpResult.CreateResult) r;
                p.record(c.getStat() == null ? new CreateResponse(c.getPath())
                        : new Create2Response(c.getPath(), c.getStat()));
            } else if (r instanceof OpResult.SetDataResult) {
                p.record(new SetDataResponse(((OpResult.SetDataResult) r).getStat()));
            } else if (r instanceof OpResult.GetDataResult) {
                OpResult.GetDataResult g = (OpResult.GetDataResult) r;
                p.record(new GetDataResponse(g.getData(), g.getStat()));
            } else if (r instanceof OpResult.GetChildrenResult) {
                p.record(new GetChildrenResponse(((OpResult.GetChildrenResult) r).getChildren()));
            }
        }
        p.record(new MultiHeader(-1, true, -1));
        composite(name, "org.apache.zookeeper.MultiResponse.serialize", description, binary(rec), p);
    }

    /** The connect frame exactly as ClientCnxn.Packet.createBB builds it, length prefix included. */
    static byte[] clientConnectFrame(ConnectRequest req, boolean readOnly) throws Exception {
        Class<?> packet = Class.forName("org.apache.zookeeper.ClientCnxn$Packet");
        Class<?> watchReg = Class.forName("org.apache.zookeeper.ZooKeeper$WatchRegistration");
        Constructor<?> k = packet.getDeclaredConstructor(RequestHeader.class, ReplyHeader.class, Record.class,
                Record.class, watchReg, boolean.class);
        k.setAccessible(true);
        Object p = k.newInstance(null, null, req, null, null, readOnly);
        Method create = packet.getMethod("createBB");
        create.setAccessible(true);
        create.invoke(p);
        Field bbf = packet.getDeclaredField("bb");
        bbf.setAccessible(true);
        ByteBuffer bb = ((ByteBuffer) bbf.get(p)).duplicate();
        bb.rewind();
        byte[] out = new byte[bb.remaining()];
        bb.get(out);
        return out;
    }

    private void connectRequests() throws Exception {
        connect("connect-request-new", new ConnectRequest(0, 0, 30000, 0, new byte[16]), false,
                "payload of a fresh Java client's connect frame (length prefix removed): "
                        + "ConnectRequest then the readOnly byte");
        connect("connect-request-resume", new ConnectRequest(0, 0x100000005L, 40000, SESSION, PASSWD), true,
                "payload of a read-only-capable Java client resuming a session");
    }

    private void connect(String name, ConnectRequest req, boolean readOnly, String description)
            throws Exception {
        byte[] frame = clientConnectFrame(req, readOnly);
        int len = ByteBuffer.wrap(frame).getInt();
        if (len != frame.length - 4 || len != 45) {
            throw new IllegalStateException(name + ": frame length " + len + " of " + frame.length);
        }
        byte[] payload = Arrays.copyOfRange(frame, 4, frame.length);
        Parts p = new Parts().record(req).writeBool(readOnly);
        composite(name, "org.apache.zookeeper.ClientCnxn$Packet.createBB", description, payload, p);
    }

    private void dataTree() throws Exception {
        DataTree dt = new DataTree();
        long z = 0x100000001L;
        long t = TIME;
        List<ACL> digestOnly = acls(acl(ZooDefs.Perms.ALL, "digest", "alice:K3s+xW9QvGz0y1mFZ2pQ5bN7Hc4="));
        dt.createNode("/app", b("app"), ZooDefs.Ids.OPEN_ACL_UNSAFE, 0, -1, z++, t++);
        dt.createNode("/app/config", b("{\"k\":1}"), MIXED, 0, -1, z++, t++);
        dt.createNode("/app/nodata", null, digestOnly, 0, -1, z++, t++);
        dt.createNode("/app/empty", new byte[0], ZooDefs.Ids.READ_ACL_UNSAFE, 0, -1, z++, t++);
        dt.createNode("/app/lock-0000000000", b("e1"), ZooDefs.Ids.OPEN_ACL_UNSAFE, SESSION, -1, z++, t++);
        dt.createNode("/app/lock-0000000001", b("e2"), ZooDefs.Ids.OPEN_ACL_UNSAFE, SESSION + 1, -1, z++, t++);
        dt.createNode("/app/container", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CONTAINER_OWNER, -1, z++, t++);
        dt.createNode("/app/ttl-0000000002", b("ttl"), ZooDefs.Ids.CREATOR_ALL_ACL, TTL_OWNER, -1, z++, t++);
        dt.createNode("/" + UNICODE, b(UNICODE), MIXED, 0, -1, z++, t++);
        dt.setData("/app/config", b("{\"k\":2}"), 1, z++, t++);
        dt.setACL("/app/empty", digestOnly, 1);

        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        dt.serialize(BinaryOutputArchive.getArchive(bos), "tree");
        byte[] java = bos.toByteArray();

        // Read the stream back in its documented shape to describe it.
        UnitInputArchive in = UnitInputArchive.over(java);
        Parts p = new Parts();
        int n = in.readInt("map");
        p.writeInt(n);
        for (int i = 0; i < n; i++) {
            SnapshotRecords.ACLCacheEntry e = new SnapshotRecords.ACLCacheEntry(0, null);
            e.deserialize(in, "entry");
            p.record(e);
        }
        while (true) {
            String path = in.readString("path");
            p.writeString(path);
            if (path.equals("/")) {
                break;
            }
            SnapshotRecords.DataNode node = new SnapshotRecords.DataNode(null, 0, null);
            node.deserialize(in, "node");
            p.record(node);
        }
        composite("datatree", "org.apache.zookeeper.server.DataTree.serialize", "a DataTree as a snapshot "
                + "stores it: int ACL cache size, ACLCacheEntry per entry, then (ustring path, DataNode) "
                + "per znode depth first from the root (path \"\"), ending with the path \"/\"", java, p);
    }

    private void txnEntries() throws Exception {
        int cxid = 1;
        long zxid = 0x100000001L;
        TxnDigest digest = new TxnDigest(2, 0x0fedcba987654321L);

        txn("txn-createSession", hdr(cxid++, zxid++, ZooDefs.OpCode.createSession), new CreateSessionTxn(30000), null);
        txn("txn-create", hdr(cxid++, zxid++, ZooDefs.OpCode.create),
                new CreateTxn("/app", b("app"), OPEN, false, 1), null);
        txn("txn-create-digest", hdr(cxid++, zxid++, ZooDefs.OpCode.create),
                new CreateTxn("/app/config", b("cfg"), MIXED, false, 2), digest);
        txn("txn-create-v0", hdr(cxid++, zxid++, ZooDefs.OpCode.create),
                new CreateTxnV0("/app/old", b("v0"), OPEN, false), null);
        txn("txn-create2", hdr(cxid++, zxid++, ZooDefs.OpCode.create2),
                new CreateTxn("/app/lock-0000000000", null, OPEN, true, 3), null);
        txn("txn-createContainer", hdr(cxid++, zxid++, ZooDefs.OpCode.createContainer),
                new CreateContainerTxn("/app/container", new byte[0], OPEN, 4), null);
        txn("txn-createTTL", hdr(cxid++, zxid++, ZooDefs.OpCode.createTTL),
                new CreateTTLTxn("/app/ttl", b("t"), OPEN, 5, 60000), null);
        txn("txn-delete", hdr(cxid++, zxid++, ZooDefs.OpCode.delete), new DeleteTxn("/app/old"), null);
        txn("txn-deleteContainer", hdr(cxid++, zxid++, ZooDefs.OpCode.deleteContainer),
                new DeleteTxn("/app/container"), null);
        txn("txn-setData", hdr(cxid++, zxid++, ZooDefs.OpCode.setData),
                new SetDataTxn("/app/config", b("v2"), 1), null);
        txn("txn-setData-digest", hdr(cxid++, zxid++, ZooDefs.OpCode.setData),
                new SetDataTxn("/" + UNICODE, b(UNICODE), 2), digest);
        txn("txn-setACL", hdr(cxid++, zxid++, ZooDefs.OpCode.setACL), new SetACLTxn("/app", MIXED, 1), null);
        txn("txn-reconfig", hdr(cxid++, zxid++, ZooDefs.OpCode.reconfig), new SetDataTxn(ZooDefs.CONFIG_NODE,
                b("server.1=127.0.0.1:2888:3888:participant;0.0.0.0:2181\nversion=100000010"), -1), null);
        txn("txn-error", hdr(cxid++, zxid++, ZooDefs.OpCode.error),
                new ErrorTxn(KeeperException.Code.NODEEXISTS.intValue()), null);
        List<Record> subs = Arrays.asList(
                new CreateTxn("/app/m", b("m"), OPEN, false, 6),
                new CreateTTLTxn("/app/mttl", null, OPEN, 7, 5000),
                new DeleteTxn("/app/p"),
                new SetDataTxn("/app/config", b("v3"), 2),
                new CheckVersionTxn("/app", 1),
                new SetACLTxn("/app/m", OPEN, 1));
        int[] types = {ZooDefs.OpCode.create, ZooDefs.OpCode.createTTL, ZooDefs.OpCode.delete,
            ZooDefs.OpCode.setData, ZooDefs.OpCode.check, ZooDefs.OpCode.setACL};
        multiTxn("txn-multi", hdr(cxid++, zxid++, ZooDefs.OpCode.multi), types, subs, null);
        multiTxn("txn-multi-digest", hdr(cxid++, zxid++, ZooDefs.OpCode.multi), types, subs, digest);
        multiTxn("txn-multi-failed", hdr(cxid++, zxid++, ZooDefs.OpCode.multi),
                new int[] {ZooDefs.OpCode.error, ZooDefs.OpCode.error, ZooDefs.OpCode.error},
                Arrays.asList(new ErrorTxn(0), new ErrorTxn(KeeperException.Code.BADVERSION.intValue()),
                        new ErrorTxn(KeeperException.Code.RUNTIMEINCONSISTENCY.intValue())), null);
        txn("txn-closeSession", hdr(cxid++, zxid++, ZooDefs.OpCode.closeSession),
                new CloseSessionTxn(strs("/app/lock-0000000000")), null);
        txn("txn-closeSession-digest", hdr(cxid++, zxid++, ZooDefs.OpCode.closeSession),
                new CloseSessionTxn(strs()), digest);
        txn("txn-closeSession-legacy", hdr(cxid++, zxid++, ZooDefs.OpCode.closeSession), null, null);
    }

    static TxnHeader hdr(int cxid, long zxid, int type) {
        return new TxnHeader(SESSION, cxid, zxid, TIME + cxid, type);
    }

    private void txn(String name, TxnHeader h, Record txn, TxnDigest digest) throws Exception {
        Parts p = new Parts().record(h);
        if (txn != null) {
            p.record(txn);
        }
        if (digest != null) {
            p.record(digest);
        }
        txnComposite(name, h, txn, digest, p);
    }

    private void multiTxn(String name, TxnHeader h, int[] types, List<Record> subs, TxnDigest digest)
            throws Exception {
        List<Txn> txns = new ArrayList<>();
        List<String> inner = new ArrayList<>();
        for (int i = 0; i < subs.size(); i++) {
            txns.add(new Txn(types[i], binary(subs.get(i))));
            inner.add(innerPart(subs.get(i)));
        }
        MultiTxn m = new MultiTxn(txns);
        Parts p = new Parts().record(h).record(m, inner);
        if (digest != null) {
            p.record(digest);
        }
        txnComposite(name, h, m, digest, p);
    }

    private void txnComposite(String name, TxnHeader h, Record txn, TxnDigest digest, Parts p) throws Exception {
        byte[] java = Util.marshallTxnEntry(h, txn, digest);
        composite(name, "org.apache.zookeeper.server.persistence.Util.marshallTxnEntry",
                "a txn log entry body (what the log checksums and length-prefixes): TxnHeader, the txn "
                        + "record for its type" + (txn == null ? " (none here, as old servers logged closeSession)" : "")
                        + (digest != null ? ", then a TxnDigest" : ""), java, p);
    }
}
