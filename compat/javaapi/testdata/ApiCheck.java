// ApiCheck drives the ZooKeeper 3.8.0 Java client API against one server
// and reports each check on standard output (see Checks). Arguments: the
// server's "host:port", then optionally the names of the checks to run.
//
// Every expectation here was first seen to hold against Apache ZooKeeper
// 3.8.0; a check that fails against Java is a wrong check.

import static org.apache.zookeeper.CreateMode.CONTAINER;
import static org.apache.zookeeper.CreateMode.EPHEMERAL;
import static org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL;
import static org.apache.zookeeper.CreateMode.PERSISTENT;
import static org.apache.zookeeper.CreateMode.PERSISTENT_SEQUENTIAL;
import static org.apache.zookeeper.CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
import static org.apache.zookeeper.CreateMode.PERSISTENT_WITH_TTL;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Arrays;
import java.util.List;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Transaction;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.HostProvider;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

public final class ApiCheck extends Checks {
    static final List<ACL> OPEN = Ids.OPEN_ACL_UNSAFE;
    /** Session timeout of ordinary handles (ms). */
    static final int TIMEOUT = 4000;
    /** Nothing is expected within QUIET ms. */
    static final long QUIET = 300;

    static String hosts;
    static ZooKeeper zk;

    public static void main(String[] args) throws Exception {
        hosts = args[0];
        zk = connect("", new Events("main"));
        add("create-modes-sync", ApiCheck::createModesSync);
        add("create-modes-async", ApiCheck::createModesAsync);
        add("create-errors", ApiCheck::createErrors);
        add("delete", ApiCheck::delete);
        add("exists", ApiCheck::exists);
        add("get-set-data", ApiCheck::getSetData);
        add("acl", ApiCheck::acl);
        add("auth-digest", ApiCheck::authDigest);
        add("auth-failed", ApiCheck::authFailed);
        add("acl-validation", ApiCheck::aclValidation);
        add("whoami", ApiCheck::whoAmI);
        add("children", ApiCheck::children);
        add("all-children-number", ApiCheck::allChildrenNumber);
        add("ephemerals", ApiCheck::ephemerals);
        add("sync", ApiCheck::sync);
        add("multi", ApiCheck::multi);
        add("multi-failure", ApiCheck::multiFailure);
        add("multi-read", ApiCheck::multiRead);
        add("transaction", ApiCheck::transaction);
        add("watch-data", ApiCheck::watchData);
        add("watch-exists", ApiCheck::watchExists);
        add("watch-children", ApiCheck::watchChildren);
        add("watch-async", ApiCheck::watchAsync);
        add("watch-dedup", ApiCheck::watchDedup);
        add("remove-watches", ApiCheck::removeWatches);
        add("remove-all-watches", ApiCheck::removeAllWatches);
        add("remove-watches-async", ApiCheck::removeWatchesAsync);
        add("persistent-watch", ApiCheck::persistentWatch);
        add("persistent-recursive-watch", ApiCheck::persistentRecursiveWatch);
        add("chroot", ApiCheck::chroot);
        add("ephemerals-on-close", ApiCheck::ephemeralsOnClose);
        add("container-ttl-reaped", ApiCheck::containerTtlReaped);
        add("ttl-touch", ApiCheck::ttlTouch);
        add("readonly-handshake", ApiCheck::readonlyHandshake);
        add("session-move", ApiCheck::sessionMove);
        add("session-expiry", ApiCheck::sessionExpiry);
        add("session-timeout-expiry", ApiCheck::sessionTimeoutExpiry);
        add("session-timeout-negotiation", ApiCheck::sessionTimeoutNegotiation);
        add("system-nodes", ApiCheck::systemNodes);
        add("config-and-reconfig", ApiCheck::configAndReconfig);
        add("multi-watch-order", ApiCheck::multiWatchOrder);
        add("noauth-sets-no-watch", ApiCheck::noAuthSetsNoWatch);
        add("auth-schemes", ApiCheck::authSchemes);
        add("unicode-paths", ApiCheck::unicodePaths);
        add("persistent-watch-partial-removal", ApiCheck::persistentWatchPartialRemoval);
        add("request-size-limit", ApiCheck::requestSizeLimit);
        add("set-watches-catch-up", ApiCheck::setWatchesCatchUp);
        add("restart-recovery", ApiCheck::restartRecovery);
        runAll(Arrays.asList(args).subList(1, args.length));
        zk.close();
        System.exit(0);
    }

    /** connect opens a handle to hosts+chroot and waits for SyncConnected. */
    static ZooKeeper connect(String chroot, Events ev) throws Exception {
        return connect(chroot, ev, TIMEOUT);
    }

    static ZooKeeper connect(String chroot, Events ev, int timeout) throws Exception {
        ZooKeeper h = new ZooKeeper(hosts + chroot, timeout, ev);
        ev.waitState(KeeperState.SyncConnected, WAIT);
        return h;
    }

    static void mk(String path) throws Exception {
        zk.create(path, null, OPEN, PERSISTENT);
    }

    // --- create ---

    static void createModesSync() throws Exception {
        String r = "/create-modes-sync";
        mk(r);
        CreateMode[] modes = {PERSISTENT, EPHEMERAL, PERSISTENT_SEQUENTIAL, EPHEMERAL_SEQUENTIAL, CONTAINER};
        String[] want = {r + "/persistent", r + "/ephemeral", r + "/persistent_sequential0000000002",
            r + "/ephemeral_sequential0000000003", r + "/container"};
        for (int i = 0; i < modes.length; i++) {
            Stat st = new Stat();
            String name = zk.create(r + "/" + modes[i].name().toLowerCase(), b("x"), OPEN, modes[i], st);
            eq(want[i], name, modes[i] + " name");
            eq(stat(zk.exists(name, false)), stat(st), modes[i] + " stat against exists");
            // Clients see 0 as the owner of containers and TTL nodes.
            long owner = modes[i].isEphemeral() ? zk.getSessionId() : 0;
            eq(owner, st.getEphemeralOwner(), modes[i] + " ephemeralOwner");
            check(st.getCzxid() == st.getMzxid() && st.getMzxid() == st.getPzxid(), "%s: czxid, mzxid, pzxid differ: %s", modes[i], stat(st));
            check(st.getVersion() == 0 && st.getCversion() == 0 && st.getAversion() == 0 && st.getDataLength() == 1 && st.getNumChildren() == 0,
                    "%s: fresh stat %s", modes[i], stat(st));
        }
        Stat st = new Stat();
        eq(r + "/ttl", zk.create(r + "/ttl", b("x"), OPEN, PERSISTENT_WITH_TTL, st, 60_000), "ttl name");
        eq(0L, st.getEphemeralOwner(), "ttl ephemeralOwner");
        eq(stat(zk.exists(r + "/ttl", false)), stat(st), "ttl stat against exists");
        eq(r + "/ttlseq0000000006", zk.create(r + "/ttlseq", b("x"), OPEN, PERSISTENT_SEQUENTIAL_WITH_TTL, st, 1234), "sequential ttl name");
        eq(0L, st.getEphemeralOwner(), "sequential ttl ephemeralOwner");
        // The four-argument create returns the name only.
        eq(r + "/plain", zk.create(r + "/plain", null, OPEN, PERSISTENT), "create without stat");
        Stat parent = zk.exists(r, false);
        eq(8, parent.getNumChildren(), "parent numChildren");
        eq(8, parent.getCversion(), "parent cversion");
        eq(zk.exists(r + "/plain", false).getCzxid(), parent.getPzxid(), "parent pzxid is the last child's czxid");
    }

    static void createModesAsync() throws Exception {
        String r = "/create-modes-async";
        mk(r);
        CreateMode[] modes = {PERSISTENT, EPHEMERAL, PERSISTENT_SEQUENTIAL, EPHEMERAL_SEQUENTIAL, CONTAINER};
        String[] want = {r + "/persistent", r + "/ephemeral", r + "/persistent_sequential0000000002",
            r + "/ephemeral_sequential0000000003", r + "/container"};
        for (int i = 0; i < modes.length; i++) {
            String path = r + "/" + modes[i].name().toLowerCase();
            Reply a = new Reply();
            zk.create(path, b("x"), OPEN, modes[i], (AsyncCallback.StringCallback) a, "ctx" + i);
            a.await();
            eq(Code.OK, a.code(), modes[i] + " rc");
            eq(path, a.path, modes[i] + " path");
            eq("ctx" + i, a.ctx, modes[i] + " ctx");
            eq(want[i], a.name, modes[i] + " name");
        }
        // Create2Callback: name and stat.
        Reply a = new Reply();
        zk.create(r + "/c2", b("xy"), OPEN, EPHEMERAL_SEQUENTIAL, (AsyncCallback.Create2Callback) a, null);
        a.await();
        eq(Code.OK, a.code(), "create2 rc");
        eq(r + "/c20000000005", a.name, "create2 name");
        eq(stat(zk.exists(a.name, false)), stat(a.stat), "create2 stat against exists");
        eq(zk.getSessionId(), a.stat.getEphemeralOwner(), "create2 ephemeralOwner");
        a = new Reply();
        zk.create(r + "/ttl", b("x"), OPEN, PERSISTENT_WITH_TTL, a, "t", 5000);
        a.await();
        eq(Code.OK, a.code(), "ttl rc");
        eq(r + "/ttl", a.name, "ttl name");
        eq(0L, a.stat.getEphemeralOwner(), "ttl ephemeralOwner");
        eq(stat(zk.exists(r + "/ttl", false)), stat(a.stat), "ttl stat against exists");
        // Errors: the name and stat are null.
        a = new Reply();
        zk.create(r + "/c2", null, OPEN, PERSISTENT, (AsyncCallback.Create2Callback) a, null);
        a.await();
        eq(Code.OK, a.code(), "create2 of a new name");
        a = new Reply();
        zk.create(r + "/c2", null, OPEN, PERSISTENT, (AsyncCallback.Create2Callback) a, null);
        a.await();
        eq(Code.NODEEXISTS, a.code(), "create2 of an existing node");
        check(a.name == null && a.stat == null, "failed create2 gave name %s stat %s", a.name, stat(a.stat));
        a = new Reply();
        zk.create(r + "/no/such", null, OPEN, PERSISTENT, (AsyncCallback.StringCallback) a, null);
        a.await();
        eq(Code.NONODE, a.code(), "create under a missing parent");
        eq(r + "/no/such", a.path, "failed create path");
        a = new Reply();
        zk.create(r + "/ephemeral/child", null, OPEN, PERSISTENT, (AsyncCallback.StringCallback) a, null);
        a.await();
        eq(Code.NOCHILDRENFOREPHEMERALS, a.code(), "create under an ephemeral");
    }

    static void createErrors() throws Exception {
        String r = "/create-errors";
        mk(r);
        try {
            zk.create(r, null, OPEN, PERSISTENT);
            throw new AssertionError("create of an existing node succeeded");
        } catch (KeeperException.NodeExistsException e) {
            eq(r, e.getPath(), "NodeExists path");
        }
        fails(Code.NONODE, "missing parent", () -> zk.create(r + "/a/b", null, OPEN, PERSISTENT));
        fails(Code.NONODE, "missing parent, sequential", () -> zk.create(r + "/a/b", null, OPEN, PERSISTENT_SEQUENTIAL));
        zk.create(r + "/e", null, OPEN, EPHEMERAL);
        fails(Code.NOCHILDRENFOREPHEMERALS, "child of an ephemeral", () -> zk.create(r + "/e/c", null, OPEN, PERSISTENT));
        fails(Code.NOCHILDRENFOREPHEMERALS, "sequential child of an ephemeral", () -> zk.create(r + "/e/c", null, OPEN, EPHEMERAL_SEQUENTIAL));
        fails(Code.INVALIDACL, "empty ACL", () -> zk.create(r + "/x", null, new ArrayList<>(), PERSISTENT));
        fails(Code.INVALIDACL, "creator ACL without auth", () -> zk.create(r + "/x", null, Ids.CREATOR_ALL_ACL, PERSISTENT));
        List<ACL> bad = Arrays.asList(new ACL(Perms.ALL, new Id("nosuchscheme", "x")));
        fails(Code.INVALIDACL, "unknown ACL scheme", () -> zk.create(r + "/x", null, bad, PERSISTENT));
        zk.create(r + "/ro", null, Ids.READ_ACL_UNSAFE, PERSISTENT);
        fails(Code.NOAUTH, "create without CREATE permission", () -> zk.create(r + "/ro/c", null, OPEN, PERSISTENT));
        fails(Code.NONODE, "TTL node under a missing parent", () -> zk.create(r + "/a/t", null, OPEN, PERSISTENT_WITH_TTL, null, 100));
        eq(null, zk.exists(r + "/x", false), "nothing was created");
    }

    // --- delete, exists, data ---

    static void delete() throws Exception {
        String r = "/delete";
        mk(r);
        zk.create(r + "/a", null, OPEN, PERSISTENT);
        zk.setData(r + "/a", b("1"), -1);
        fails(Code.BADVERSION, "delete with a stale version", () -> zk.delete(r + "/a", 0));
        zk.delete(r + "/a", 1);
        fails(Code.NONODE, "delete of a missing node", () -> zk.delete(r + "/a", -1));
        zk.create(r + "/p", null, OPEN, PERSISTENT);
        zk.create(r + "/p/c", null, OPEN, PERSISTENT);
        fails(Code.NOTEMPTY, "delete of a parent", () -> zk.delete(r + "/p", -1));
        Reply a = new Reply();
        zk.delete(r + "/p", -1, a, "ctx");
        a.await();
        eq(Code.NOTEMPTY, a.code(), "async delete of a parent");
        eq(r + "/p", a.path, "async delete path");
        eq("ctx", a.ctx, "async delete ctx");
        a = new Reply();
        zk.delete(r + "/p/c", 5, a, null);
        eq(Code.BADVERSION, a.await().code(), "async delete with a wrong version");
        a = new Reply();
        zk.delete(r + "/p/c", 0, a, null);
        eq(Code.OK, a.await().code(), "async delete");
        a = new Reply();
        zk.delete(r + "/p/c", -1, a, null);
        eq(Code.NONODE, a.await().code(), "async delete of a missing node");
        Stat p = zk.exists(r + "/p", false);
        eq(2, p.getCversion(), "cversion after a create and a delete");
        eq(0, p.getNumChildren(), "numChildren after the delete");
    }

    static void exists() throws Exception {
        String r = "/exists";
        eq(null, zk.exists(r, false), "exists of a missing node");
        Stat created = new Stat();
        zk.create(r, b("abc"), OPEN, PERSISTENT, created);
        eq(stat(created), stat(zk.exists(r, false)), "exists stat");
        Reply a = new Reply();
        zk.exists(r, false, a, "c");
        a.await();
        eq(Code.OK, a.code(), "async exists rc");
        eq(stat(created), stat(a.stat), "async exists stat");
        eq(r, a.path, "async exists path");
        a = new Reply();
        zk.exists(r + "/missing", false, a, null);
        a.await();
        eq(Code.NONODE, a.code(), "async exists of a missing node");
        eq(null, a.stat, "async exists stat of a missing node");
    }

    static void getSetData() throws Exception {
        String r = "/get-set-data";
        Stat c = new Stat();
        zk.create(r, null, OPEN, PERSISTENT, c);
        Stat st = new Stat();
        eq(null, zk.getData(r, false, st), "null data");
        eq(0, st.getDataLength(), "dataLength of null data");
        Stat s1 = zk.setData(r, new byte[0], -1);
        eq(new byte[0], zk.getData(r, false, null), "empty data");
        eq(1, s1.getVersion(), "version after setData");
        check(s1.getMzxid() > c.getMzxid() && s1.getCzxid() == c.getCzxid(), "zxids after setData: %s", stat(s1));
        Stat s2 = zk.setData(r, b("hello"), 1);
        eq(2, s2.getVersion(), "version after a conditional setData");
        eq(5, s2.getDataLength(), "dataLength");
        eq(b("hello"), zk.getData(r, false, st), "data");
        eq(stat(s2), stat(st), "getData stat against setData stat");
        fails(Code.BADVERSION, "setData with a stale version", () -> zk.setData(r, b("x"), 1));
        fails(Code.NONODE, "setData of a missing node", () -> zk.setData(r + "/missing", b("x"), -1));
        fails(Code.NONODE, "getData of a missing node", () -> zk.getData(r + "/missing", false, null));
        Reply a = new Reply();
        zk.getData(r, false, a, "g");
        a.await();
        eq(Code.OK, a.code(), "async getData rc");
        eq(b("hello"), a.data, "async getData data");
        eq(stat(s2), stat(a.stat), "async getData stat");
        eq("g", a.ctx, "async getData ctx");
        a = new Reply();
        zk.getData(r + "/missing", false, a, null);
        a.await();
        eq(Code.NONODE, a.code(), "async getData of a missing node");
        check(a.data == null && a.stat == null, "async getData of a missing node gave data or stat");
        a = new Reply();
        zk.setData(r, b("async"), 2, a, "s");
        a.await();
        eq(Code.OK, a.code(), "async setData rc");
        eq(3, a.stat.getVersion(), "async setData version");
        eq(r, a.path, "async setData path");
        a = new Reply();
        zk.setData(r, b("async"), 2, a, "s");
        a.await();
        eq(Code.BADVERSION, a.code(), "async setData with a stale version");
        eq(null, a.stat, "async setData stat on failure");
        // Data up to the limit of one request (1 MiB less the request's own bytes).
        byte[] big = new byte[1000 * 1000];
        Arrays.fill(big, (byte) 'z');
        zk.setData(r, big, -1);
        eq(big.length, zk.getData(r, false, null).length, "1 MB of data");
    }

    // --- ACLs and auth ---

    static void acl() throws Exception {
        String r = "/acl";
        mk(r);
        Stat st = new Stat();
        eq(OPEN, zk.getACL(r, st), "getACL");
        eq(0, st.getAversion(), "aversion");
        Stat s1 = zk.setACL(r, Ids.READ_ACL_UNSAFE, -1);
        eq(1, s1.getAversion(), "aversion after setACL");
        eq(Ids.READ_ACL_UNSAFE, zk.getACL(r, st), "getACL after setACL");
        eq(stat(s1), stat(st), "getACL stat against setACL stat");
        fails(Code.NOAUTH, "setACL without ADMIN", () -> zk.setACL(r, OPEN, 1));
        fails(Code.NOAUTH, "setData without WRITE", () -> zk.setData(r, b("x"), -1));
        fails(Code.NOAUTH, "create without CREATE", () -> zk.create(r + "/c", null, OPEN, PERSISTENT));
        String r2 = "/acl2";
        mk(r2);
        fails(Code.BADVERSION, "setACL with a stale aversion", () -> zk.setACL(r2, Ids.READ_ACL_UNSAFE, 3));
        fails(Code.INVALIDACL, "setACL with no entries", () -> zk.setACL(r2, new ArrayList<>(), -1));
        fails(Code.NONODE, "getACL of a missing node", () -> zk.getACL(r2 + "/missing", null));
        fails(Code.NONODE, "setACL of a missing node", () -> zk.setACL(r2 + "/missing", OPEN, -1));
        List<ACL> mixed = Arrays.asList(new ACL(Perms.READ | Perms.WRITE, Ids.ANYONE_ID_UNSAFE),
                new ACL(Perms.ALL, new Id("ip", "127.0.0.1")));
        Reply a = new Reply();
        zk.setACL(r2, mixed, 0, a, "s");
        a.await();
        eq(Code.OK, a.code(), "async setACL rc");
        eq(1, a.stat.getAversion(), "async setACL aversion");
        a = new Reply();
        zk.getACL(r2, null, a.acls(), "g");
        a.await();
        eq(Code.OK, a.code(), "async getACL rc");
        eq(mixed, a.acl, "async getACL");
        eq(1, a.stat.getAversion(), "async getACL aversion");
        a = new Reply();
        zk.getACL(r2 + "/missing", null, a.acls(), null);
        eq(Code.NONODE, a.await().code(), "async getACL of a missing node");
        a = new Reply();
        zk.setACL(r2, mixed, 0, a, null);
        eq(Code.BADVERSION, a.await().code(), "async setACL with a stale aversion");
        // The ip entry grants this client (on 127.0.0.1) everything.
        zk.create(r2 + "/c", null, OPEN, PERSISTENT);
    }

    static void authDigest() throws Exception {
        String r = "/auth-digest";
        mk(r);
        String digest = DigestAuthenticationProvider.generateDigest("alice:secret");
        ZooKeeper alice = connect("", new Events("alice"));
        ZooKeeper other = connect("", new Events("other"));
        try {
            alice.addAuthInfo("digest", b("alice:secret"));
            alice.create(r + "/c", b("private"), Ids.CREATOR_ALL_ACL, PERSISTENT);
            eq(Arrays.asList(new ACL(Perms.ALL, new Id("digest", digest))), alice.getACL(r + "/c", null), "creator ACL");
            eq(b("private"), alice.getData(r + "/c", false, null), "owner reads");
            fails(Code.NOAUTH, "getData without auth", () -> other.getData(r + "/c", false, null));
            fails(Code.NOAUTH, "getChildren without auth", () -> other.getChildren(r + "/c", false));
            fails(Code.NOAUTH, "setData without auth", () -> other.setData(r + "/c", b("x"), -1));
            fails(Code.NOAUTH, "getACL without auth", () -> other.getACL(r + "/c", null));
            check(other.exists(r + "/c", false) != null, "exists needs no permission");
            other.addAuthInfo("digest", b("alice:wrong"));
            fails(Code.NOAUTH, "getData with a wrong password", () -> other.getData(r + "/c", false, null));
            other.addAuthInfo("digest", b("alice:secret"));
            eq(b("private"), other.getData(r + "/c", false, null), "getData after the right password");
            // READ for the world, ALL for alice: getACL with READ alone shows
            // the ACL with the digests' hashes replaced by "x".
            List<ACL> mixed = Arrays.asList(new ACL(Perms.READ, Ids.ANYONE_ID_UNSAFE), new ACL(Perms.ALL, new Id("digest", digest)));
            alice.create(r + "/m", null, mixed, PERSISTENT);
            eq(Arrays.asList(new ACL(Perms.READ, Ids.ANYONE_ID_UNSAFE), new ACL(Perms.ALL, new Id("digest", "alice:x"))),
                    zk.getACL(r + "/m", null), "getACL with READ only");
            eq(mixed, alice.getACL(r + "/m", null), "getACL with ADMIN");
            fails(Code.NOAUTH, "create without CREATE", () -> zk.create(r + "/c/x", null, OPEN, PERSISTENT));
            // delete needs DELETE on the parent (open here), nothing on the node.
            zk.delete(r + "/c", -1);
            // Auth added to one handle is not seen by another.
            fails(Code.NOAUTH, "another handle without auth", () -> zk.setData(r + "/m", b("x"), -1));
            // "auth" scheme entries take every digest identity of the caller.
            alice.addAuthInfo("digest", b("bob:pw"));
            alice.create(r + "/two", null, Arrays.asList(new ACL(Perms.ALL, new Id("auth", ""))), PERSISTENT);
            List<ACL> got = sortedAcl(alice.getACL(r + "/two", null));
            List<ACL> want = sortedAcl(Arrays.asList(new ACL(Perms.ALL, new Id("digest", digest)),
                    new ACL(Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest("bob:pw")))));
            eq(want, got, "auth ACL with two identities");
        } finally {
            alice.close();
            other.close();
        }
    }

    /** Which ACL entries create and setACL accept, and what ip entries grant. */
    static void aclValidation() throws Exception {
        String r = "/acl-validation";
        mk(r);
        String[][] cases = {
            {"world", "anyone", "OK"}, {"world", "bob", "INVALIDACL"}, {"world", "", "INVALIDACL"},
            {"digest", "u:hash", "OK"}, {"digest", "nocolon", "INVALIDACL"}, {"digest", "a:b:c", "INVALIDACL"},
            {"digest", ":x", "OK"}, {"digest", "u:", "INVALIDACL"},
            {"ip", "127.0.0.1", "OK"}, {"ip", "127.0.0.0/8", "OK"}, {"ip", "10.1.2.3/32", "OK"},
            {"ip", "300.1.1.1", "INVALIDACL"}, {"ip", "127.0.0.1/33", "INVALIDACL"}, {"ip", "not-an-ip", "INVALIDACL"},
            {"ip", "::1", "INVALIDACL"}, {"ip", "127.0.0.1/0", "OK"},
            {"super", "x", "INVALIDACL"}, {"auth", "", "INVALIDACL"}, {"sasl", "user", "INVALIDACL"},
            {"x509", "CN=a", "INVALIDACL"}, {"nosuch", "x", "INVALIDACL"},
        };
        List<String> mismatches = new ArrayList<>();
        int i = 0;
        for (String[] c : cases) {
            List<ACL> acl = Arrays.asList(new ACL(Perms.ALL, new Id(c[0], c[1])));
            Code got = code(() -> zk.create(r + "/n", null, acl, PERSISTENT));
            if (got == Code.OK) {
                zk.delete(r + "/n", -1);
            }
            String target = r + "/s" + i;
            zk.create(target, null, OPEN, PERSISTENT);
            Code set = code(() -> zk.setACL(target, acl, -1));
            if (!got.name().equals(c[2]) || !set.name().equals(c[2])) {
                mismatches.add(c[0] + ":" + c[1] + " create " + got + " setACL " + set + " (want " + c[2] + ")");
            }
            i++;
        }
        check(mismatches.isEmpty(), "%s", mismatches);
        // Permission 0 and unknown bits are stored as given.
        List<ACL> odd = Arrays.asList(new ACL(0, Ids.ANYONE_ID_UNSAFE), new ACL(Perms.READ | 64, new Id("ip", "127.0.0.1")));
        zk.create(r + "/odd", null, odd, PERSISTENT);
        eq(odd, zk.getACL(r + "/odd", null), "ACL with odd permissions");
        eq(null, zk.getData(r + "/odd", false, null), "read through the ip entry");
        fails(Code.NOAUTH, "write with READ alone", () -> zk.setData(r + "/odd", b("x"), -1));
        // ip entries: a range that holds the client, one that does not.
        zk.create(r + "/in", null, Arrays.asList(new ACL(Perms.READ, new Id("ip", "127.0.0.0/8"))), PERSISTENT);
        zk.create(r + "/out", null, Arrays.asList(new ACL(Perms.READ, new Id("ip", "10.0.0.0/8"))), PERSISTENT);
        eq(null, zk.getData(r + "/in", false, null), "read granted by 127.0.0.0/8");
        fails(Code.NOAUTH, "read refused by 10.0.0.0/8", () -> zk.getData(r + "/out", false, null));
        // Duplicate entries are stored once.
        List<ACL> dup = Arrays.asList(new ACL(Perms.READ, Ids.ANYONE_ID_UNSAFE), new ACL(Perms.READ, Ids.ANYONE_ID_UNSAFE));
        zk.create(r + "/dup", null, dup, PERSISTENT);
        eq(Ids.READ_ACL_UNSAFE, zk.getACL(r + "/dup", null), "duplicate ACL entries");
    }

    static List<ACL> sortedAcl(List<ACL> l) {
        List<ACL> c = new ArrayList<>(l);
        c.sort((x, y) -> (x.getId().getScheme() + x.getId().getId()).compareTo(y.getId().getScheme() + y.getId().getId()));
        return c;
    }

    static void authFailed() throws Exception {
        Events ev = new Events("authfailed");
        ZooKeeper h = connect("", ev);
        try {
            h.addAuthInfo("nosuchscheme", b("x"));
            eq("None AuthFailed", ev.next(WAIT), "event after auth with an unknown scheme");
            eq(ZooKeeper.States.AUTH_FAILED, h.getState(), "state after AuthFailed");
            fails(Code.AUTHFAILED, "request after AuthFailed", () -> h.exists("/", false));
        } finally {
            h.close();
        }
    }

    static void whoAmI() throws Exception {
        ZooKeeper h = connect("", new Events("whoami"));
        try {
            eq("[ip 127.0.0.1]", clients(h.whoAmI()), "whoAmI without auth");
            h.addAuthInfo("digest", b("carol:pw"));
            h.addAuthInfo("digest", b("dave:pw"));
            eq("[digest carol, digest dave, ip 127.0.0.1]", clients(h.whoAmI()), "whoAmI with two digests");
        } finally {
            h.close();
        }
    }

    static String clients(List<ClientInfo> l) {
        List<String> s = new ArrayList<>();
        for (ClientInfo c : l) {
            s.add(c.getAuthScheme() + " " + c.getUser());
        }
        return sorted(s).toString();
    }

    // --- children ---

    static void children() throws Exception {
        String r = "/children";
        mk(r);
        eq(list(), zk.getChildren(r, false), "no children");
        for (String c : list("b", "a", "c")) {
            zk.create(r + "/" + c, null, OPEN, PERSISTENT);
        }
        eq(list("a", "b", "c"), sorted(zk.getChildren(r, false)), "getChildren");
        Stat st = new Stat();
        eq(list("a", "b", "c"), sorted(zk.getChildren(r, false, st)), "getChildren with stat");
        eq(stat(zk.exists(r, false)), stat(st), "getChildren stat");
        eq(3, st.getCversion(), "cversion");
        fails(Code.NONODE, "getChildren of a missing node", () -> zk.getChildren(r + "/x", false));
        fails(Code.NONODE, "getChildren with stat of a missing node", () -> zk.getChildren(r + "/x", false, new Stat()));
        Reply a = new Reply();
        zk.getChildren(r, false, (AsyncCallback.ChildrenCallback) a, "c");
        a.await();
        eq(Code.OK, a.code(), "async getChildren rc");
        eq(list("a", "b", "c"), sorted(a.children), "async getChildren");
        eq("c", a.ctx, "async getChildren ctx");
        a = new Reply();
        zk.getChildren(r, false, (AsyncCallback.Children2Callback) a, "c2");
        a.await();
        eq(list("a", "b", "c"), sorted(a.children), "async getChildren2");
        eq(stat(st), stat(a.stat), "async getChildren2 stat");
        a = new Reply();
        zk.getChildren(r + "/x", false, (AsyncCallback.Children2Callback) a, null);
        a.await();
        eq(Code.NONODE, a.code(), "async getChildren2 of a missing node");
        check(a.children == null && a.stat == null, "async getChildren2 failure gave children %s", a.children);
        eq(list(), zk.getChildren(r + "/a", false), "children of a leaf");
    }

    static void allChildrenNumber() throws Exception {
        String r = "/all-children-number";
        mk(r);
        eq(0, zk.getAllChildrenNumber(r), "no descendants");
        for (String p : list("/a", "/a/b", "/a/b/c", "/d")) {
            zk.create(r + p, null, OPEN, PERSISTENT);
        }
        eq(4, zk.getAllChildrenNumber(r), "descendants");
        eq(2, zk.getAllChildrenNumber(r + "/a"), "descendants of a child");
        fails(Code.NONODE, "missing node", () -> zk.getAllChildrenNumber(r + "/x"));
        Reply a = new Reply();
        zk.getAllChildrenNumber(r, a, "n");
        a.await();
        eq(Code.OK, a.code(), "async rc");
        eq(4, a.number, "async number");
        eq(r, a.path, "async path");
        a = new Reply();
        zk.getAllChildrenNumber(r + "/x", a, null);
        eq(Code.NONODE, a.await().code(), "async missing node");
    }

    static void ephemerals() throws Exception {
        String r = "/ephemerals";
        mk(r);
        ZooKeeper h = connect("", new Events("ephemerals"));
        try {
            eq(list(), h.getEphemerals(), "no ephemerals");
            for (String p : list("/a1", "/a2", "/b1")) {
                h.create(r + p, null, OPEN, EPHEMERAL);
            }
            zk.create(r + "/mine", null, OPEN, EPHEMERAL);
            h.create(r + "/p", null, OPEN, PERSISTENT);
            eq(list(r + "/a1", r + "/a2", r + "/b1"), sorted(h.getEphemerals()), "getEphemerals");
            eq(list(r + "/a1", r + "/a2"), sorted(h.getEphemerals(r + "/a")), "getEphemerals with a prefix");
            eq(list(r + "/a1", r + "/a2", r + "/b1"), sorted(h.getEphemerals("/")), "getEphemerals with prefix /");
            eq(list(), h.getEphemerals("/nothing"), "getEphemerals with a prefix that matches nothing");
            Reply a = new Reply();
            h.getEphemerals(a, "e");
            a.await();
            eq(Code.OK, a.code(), "async rc");
            eq(list(r + "/a1", r + "/a2", r + "/b1"), sorted(a.paths), "async getEphemerals");
            eq("e", a.ctx, "async ctx");
            a = new Reply();
            h.getEphemerals(r + "/b", a, null);
            a.await();
            eq(list(r + "/b1"), a.paths, "async getEphemerals with a prefix");
        } finally {
            h.close();
        }
    }

    static void sync() throws Exception {
        String r = "/sync";
        mk(r);
        Reply a = new Reply();
        zk.sync(r, a, "s");
        a.await();
        eq(Code.OK, a.code(), "sync rc");
        eq(r, a.path, "sync path");
        eq("s", a.ctx, "sync ctx");
        a = new Reply();
        zk.sync(r + "/missing", a, null);
        a.await();
        eq(Code.OK, a.code(), "sync of a missing path");
        eq(r + "/missing", a.path, "sync path of a missing node");
    }

    // --- multi ---

    static void multi() throws Exception {
        String r = "/multi";
        mk(r);
        List<OpResult> rs = zk.multi(Arrays.asList(
                Op.create(r + "/a", b("a"), OPEN, PERSISTENT),
                Op.create(r + "/s", null, OPEN, PERSISTENT_SEQUENTIAL),
                Op.create(r + "/t", null, OPEN, PERSISTENT_WITH_TTL, 60_000),
                Op.create(r + "/k", null, OPEN, CONTAINER),
                Op.setData(r + "/a", b("b"), 0),
                Op.check(r + "/a", 1),
                Op.create(r + "/e", null, OPEN, EPHEMERAL),
                Op.delete(r + "/e", 0)));
        eq("create " + r + "/a|create " + r + "/s0000000001|create " + r + "/t v0|create " + r + "/k v0|setData v1|check|create " + r + "/e|delete",
                results(rs), "multi results");
        eq(b("b"), zk.getData(r + "/a", false, null), "data after multi");
        eq(0L, zk.exists(r + "/t", false).getEphemeralOwner(), "ttl from multi");
        eq(0L, zk.exists(r + "/k", false).getEphemeralOwner(), "container from multi");
        // All ops of one multi share one zxid.
        Stat a = zk.exists(r + "/a", false);
        eq(a.getCzxid(), a.getMzxid(), "one zxid for the multi");
        Reply cb = new Reply();
        zk.multi(Arrays.asList(Op.setData(r + "/a", b("c"), 1), Op.create(r + "/b", null, OPEN, PERSISTENT)), cb.multis(), "m");
        cb.await();
        eq(Code.OK, cb.code(), "async multi rc");
        eq("setData v2|create " + r + "/b", results(cb.results), "async multi results");
        eq("m", cb.ctx, "async multi ctx");
        eq("", results(zk.multi(new ArrayList<>())), "empty multi");
    }

    static void multiFailure() throws Exception {
        String r = "/multi-failure";
        mk(r);
        try {
            zk.multi(Arrays.asList(
                    Op.create(r + "/x", null, OPEN, PERSISTENT),
                    Op.delete(r + "/missing", -1),
                    Op.setData(r + "/x", b("y"), -1)));
            throw new AssertionError("the multi succeeded");
        } catch (KeeperException e) {
            eq(Code.NONODE, e.code(), "multi exception code");
            eq("error 0|error -101|error -2", results(e.getResults()), "multi failure results");
        }
        eq(null, zk.exists(r + "/x", false), "nothing of the failed multi applied");
        Reply cb = new Reply();
        zk.multi(Arrays.asList(
                Op.check(r, 0),
                Op.check(r, 7),
                Op.create(r + "/x", null, OPEN, PERSISTENT)), cb.multis(), null);
        cb.await();
        eq(Code.BADVERSION, cb.code(), "async multi failure rc");
        eq("error 0|error -103|error -2", results(cb.results), "async multi failure results");
        // Errors other than the first are not reported.
        try {
            zk.multi(Arrays.asList(
                    Op.create(r, null, OPEN, PERSISTENT),
                    Op.create(r + "/no/parent", null, OPEN, PERSISTENT)));
            throw new AssertionError("the multi succeeded");
        } catch (KeeperException e) {
            eq(Code.NODEEXISTS, e.code(), "code of the first failure");
            eq("error -110|error -2", results(e.getResults()), "results after the first failure");
        }
        // A later op sees the effects of earlier ones.
        zk.multi(Arrays.asList(
                Op.create(r + "/p", null, OPEN, PERSISTENT),
                Op.create(r + "/p/c", null, OPEN, PERSISTENT),
                Op.delete(r + "/p/c", 0),
                Op.delete(r + "/p", 0)));
        eq(null, zk.exists(r + "/p", false), "create and delete in one multi");
        try {
            zk.multi(Arrays.asList(
                    Op.create(r + "/q", null, OPEN, PERSISTENT),
                    Op.create(r + "/q/c", null, OPEN, PERSISTENT),
                    Op.delete(r + "/q", -1)));
            throw new AssertionError("the multi succeeded");
        } catch (KeeperException e) {
            eq(Code.NOTEMPTY, e.code(), "delete of a parent created in the same multi");
            eq("error 0|error 0|error -111", results(e.getResults()), "results of the NotEmpty multi");
        }
    }

    static void multiRead() throws Exception {
        String r = "/multi-read";
        mk(r);
        zk.create(r + "/a", b("A"), OPEN, PERSISTENT);
        zk.create(r + "/b", null, OPEN, PERSISTENT);
        List<OpResult> rs = zk.multi(Arrays.asList(
                Op.getData(r + "/a"),
                Op.getChildren(r),
                Op.getData(r + "/missing"),
                Op.getChildren(r + "/a")));
        eq("getData bytes\"A\" v0|getChildren [a, b]|error -101|getChildren []", results(rs), "multiRead results");
        Reply cb = new Reply();
        zk.multi(Arrays.asList(Op.getChildren(r + "/missing"), Op.getData(r + "/a")), cb.multis(), "mr");
        cb.await();
        eq(Code.NONODE, cb.code(), "async multiRead rc: the first error, unlike the synchronous call");
        eq("error -101|getData bytes\"A\" v0", results(cb.results), "async multiRead results");
        ZooKeeper h = connect("", new Events("multiread"));
        try {
            zk.create(r + "/secret", b("s"), Arrays.asList(new ACL(Perms.WRITE, Ids.ANYONE_ID_UNSAFE)), PERSISTENT);
            eq("error -102|getData bytes\"A\" v0", results(h.multi(Arrays.asList(Op.getData(r + "/secret"), Op.getData(r + "/a")))), "multiRead without READ");
        } finally {
            h.close();
        }
    }

    static void transaction() throws Exception {
        String r = "/transaction";
        mk(r);
        Transaction t = zk.transaction();
        t.create(r + "/a", b("1"), OPEN, PERSISTENT);
        t.create(r + "/s", null, OPEN, EPHEMERAL_SEQUENTIAL);
        t.setData(r + "/a", b("2"), 0);
        t.check(r + "/a", 1);
        t.delete(r + "/a", 1);
        eq("create " + r + "/a|create " + r + "/s0000000001|setData v1|check|delete", results(t.commit()), "commit results");
        eq(null, zk.exists(r + "/a", false), "after the transaction");
        Transaction bad = zk.transaction();
        bad.create(r + "/b", null, OPEN, PERSISTENT);
        bad.check(r + "/missing", 0);
        try {
            bad.commit();
            throw new AssertionError("the transaction committed");
        } catch (KeeperException e) {
            eq(Code.NONODE, e.code(), "failed commit code");
            eq("error 0|error -101", results(e.getResults()), "failed commit results");
        }
        Transaction async = zk.transaction();
        async.create(r + "/c", null, OPEN, PERSISTENT);
        async.setData(r + "/c", b("x"), -1);
        Reply cb = new Reply();
        async.commit(cb.multis(), "tx");
        cb.await();
        eq(Code.OK, cb.code(), "async commit rc");
        eq("create " + r + "/c|setData v1", results(cb.results), "async commit results");
    }

    // --- one-shot watches ---

    static void watchData() throws Exception {
        String r = "/watch-data";
        zk.create(r, null, OPEN, PERSISTENT);
        Events w = new Events("data");
        zk.getData(r, w, null);
        zk.setData(r, b("1"), -1);
        w.expect("NodeDataChanged " + r);
        zk.setData(r, b("2"), -1);
        w.none(QUIET);
        zk.getData(r, w, null);
        zk.delete(r, -1);
        w.expect("NodeDeleted " + r);
        // No watch is left by a getData that fails.
        fails(Code.NONODE, "getData of a missing node", () -> zk.getData(r, w, null));
        zk.create(r, null, OPEN, PERSISTENT);
        w.none(QUIET);
        // The default watcher, through watch=true, on another handle.
        Events def = new Events("default");
        ZooKeeper h = connect("", def);
        try {
            h.getData(r, true, null);
            zk.setData(r, b("3"), -1);
            def.expect("NodeDataChanged " + r);
            // A watch set by one handle is not fired by its own change only: both see it.
            h.getData(r, true, null);
            zk.getData(r, w, null);
            h.setData(r, b("4"), -1);
            def.expect("NodeDataChanged " + r);
            w.expect("NodeDataChanged " + r);
        } finally {
            h.close();
        }
    }

    static void watchExists() throws Exception {
        String r = "/watch-exists";
        Events w = new Events("exists");
        eq(null, zk.exists(r, w), "exists of a missing node");
        zk.create(r, null, OPEN, PERSISTENT);
        w.expect("NodeCreated " + r);
        check(zk.exists(r, w) != null, "exists after create");
        zk.setData(r, b("x"), -1);
        w.expect("NodeDataChanged " + r);
        zk.exists(r, w);
        zk.create(r + "/child", null, OPEN, PERSISTENT);
        w.none(QUIET); // a child does not fire an exists watch
        zk.delete(r + "/child", -1);
        zk.delete(r, -1);
        w.expect("NodeDeleted " + r);
        zk.create(r, null, OPEN, PERSISTENT);
        w.none(QUIET);
    }

    static void watchChildren() throws Exception {
        String r = "/watch-children";
        mk(r);
        Events w = new Events("children");
        zk.getChildren(r, w);
        zk.create(r + "/a", null, OPEN, PERSISTENT);
        w.expect("NodeChildrenChanged " + r);
        zk.getChildren(r, w, new Stat());
        zk.setData(r, b("x"), -1); // data does not fire a child watch
        zk.setData(r + "/a", b("x"), -1);
        zk.create(r + "/a/grandchild", null, OPEN, PERSISTENT);
        w.none(QUIET);
        zk.delete(r + "/a/grandchild", -1);
        zk.delete(r + "/a", -1);
        w.expect("NodeChildrenChanged " + r);
        zk.getChildren(r, w);
        zk.delete(r, -1);
        w.expect("NodeDeleted " + r);
        fails(Code.NONODE, "getChildren of a missing node", () -> zk.getChildren(r, w));
        zk.create(r, null, OPEN, PERSISTENT);
        zk.create(r + "/b", null, OPEN, PERSISTENT);
        w.none(QUIET);
    }

    static void watchAsync() throws Exception {
        String r = "/watch-async";
        mk(r);
        Events wd = new Events("data"), we = new Events("exists"), wc = new Events("children");
        Reply a = new Reply();
        zk.getData(r, wd, a, null);
        eq(Code.OK, a.await().code(), "async getData with a watcher");
        a = new Reply();
        zk.exists(r + "/new", we, a, null);
        eq(Code.NONODE, a.await().code(), "async exists of a missing node");
        a = new Reply();
        zk.getChildren(r, wc, (AsyncCallback.Children2Callback) a, null);
        eq(Code.OK, a.await().code(), "async getChildren with a watcher");
        zk.create(r + "/new", null, OPEN, PERSISTENT);
        we.expect("NodeCreated " + r + "/new");
        wc.expect("NodeChildrenChanged " + r);
        wd.none(QUIET);
        zk.setData(r, null, -1);
        wd.expect("NodeDataChanged " + r);
    }

    static void watchDedup() throws Exception {
        String r = "/watch-dedup";
        mk(r);
        Events w = new Events("dedup");
        // One watcher registered for data and exists at one path is told once.
        zk.getData(r, w, null);
        zk.exists(r, w);
        zk.getChildren(r, w);
        zk.setData(r, b("x"), -1);
        w.expect("NodeDataChanged " + r);
        w.none(QUIET);
        // delete fires the data/exists watch and the child watch: one event for the one watcher.
        zk.getData(r, w, null);
        zk.delete(r, -1);
        w.expect("NodeDeleted " + r);
        w.none(QUIET);
        // Two watchers at one path are each told.
        Events w2 = new Events("second");
        zk.create(r, null, OPEN, PERSISTENT);
        zk.getData(r, w, null);
        zk.getData(r, w2, null);
        zk.setData(r, b("y"), -1);
        w.expect("NodeDataChanged " + r);
        w2.expect("NodeDataChanged " + r);
    }

    // --- removing watches ---

    static void removeWatches() throws Exception {
        String r = "/remove-watches";
        mk(r);
        Events wd = new Events("data"), wc = new Events("children"), other = new Events("other");
        zk.getData(r, wd, null);
        zk.getChildren(r, wc);
        zk.removeWatches(r, wd, WatcherType.Data, false);
        wd.expect("DataWatchRemoved " + r);
        zk.setData(r, b("x"), -1);
        wd.none(QUIET);
        zk.removeWatches(r, wc, WatcherType.Children, false);
        wc.expect("ChildWatchRemoved " + r);
        zk.create(r + "/c", null, OPEN, PERSISTENT);
        wc.none(QUIET);
        try {
            zk.removeWatches(r, other, WatcherType.Data, false);
            throw new AssertionError("removing a watcher that was never added succeeded");
        } catch (KeeperException.NoWatcherException e) {
            eq(r, e.getPath(), "NoWatcher path");
        }
        fails(Code.NOWATCHER, "removing a removed watcher", () -> zk.removeWatches(r, wd, WatcherType.Data, false));
        // Any: both kinds.
        Events both = new Events("both");
        zk.getData(r, both, null);
        zk.getChildren(r, both);
        zk.removeWatches(r, both, WatcherType.Any, false);
        both.expectAnyOrder("DataWatchRemoved " + r, "ChildWatchRemoved " + r);
        // Only the kind asked for: a data watcher is not a child watcher.
        Events d2 = new Events("data2");
        zk.getData(r, d2, null);
        fails(Code.NOWATCHER, "child removal of a data watcher", () -> zk.removeWatches(r, d2, WatcherType.Children, false));
        zk.setData(r, b("y"), -1);
        d2.expect("NodeDataChanged " + r);
        // An exists watch on a missing node is a data watch.
        Events ex = new Events("exists");
        zk.exists(r + "/missing", ex);
        zk.removeWatches(r + "/missing", ex, WatcherType.Data, false);
        ex.expect("DataWatchRemoved " + r + "/missing");
        // local=true removes it from the client only.
        Events loc = new Events("local");
        zk.getData(r, loc, null);
        zk.removeWatches(r, loc, WatcherType.Data, true);
        loc.expect("DataWatchRemoved " + r);
        zk.setData(r, b("z"), -1);
        loc.none(QUIET);
        // Another handle's watch is not ours to remove.
        ZooKeeper h = connect("", new Events("h"));
        try {
            Events hw = new Events("h-data");
            h.getData(r, hw, null);
            fails(Code.NOWATCHER, "removing another handle's watch", () -> zk.removeAllWatches(r, WatcherType.Data, false));
            zk.setData(r, b("w"), -1);
            hw.expect("NodeDataChanged " + r);
        } finally {
            h.close();
        }
    }

    static void removeAllWatches() throws Exception {
        String r = "/remove-all-watches";
        mk(r);
        Events a = new Events("a"), b2 = new Events("b");
        zk.getData(r, a, null);
        zk.getData(r, b2, null);
        zk.getChildren(r, a);
        zk.removeAllWatches(r, WatcherType.Data, false);
        a.expect("DataWatchRemoved " + r);
        b2.expect("DataWatchRemoved " + r);
        zk.create(r + "/c", null, OPEN, PERSISTENT);
        a.expect("NodeChildrenChanged " + r);
        fails(Code.NOWATCHER, "removeAllWatches with none left", () -> zk.removeAllWatches(r, WatcherType.Any, false));
        fails(Code.NOWATCHER, "removeAllWatches of a path never watched", () -> zk.removeAllWatches(r + "/never", WatcherType.Data, false));
        zk.getChildren(r, a);
        zk.exists(r, b2);
        zk.removeAllWatches(r, WatcherType.Any, false);
        a.expect("ChildWatchRemoved " + r);
        b2.expect("DataWatchRemoved " + r);
        zk.setData(r, b("x"), -1);
        zk.delete(r + "/c", -1);
        a.none(QUIET);
        b2.none(0);
    }

    static void removeWatchesAsync() throws Exception {
        String r = "/remove-watches-async";
        mk(r);
        Events w = new Events("w");
        zk.getData(r, w, null);
        Reply a = new Reply();
        zk.removeWatches(r, w, WatcherType.Data, false, a, "rw");
        a.await();
        eq(Code.OK, a.code(), "async removeWatches rc");
        eq(r, a.path, "async removeWatches path");
        eq("rw", a.ctx, "async removeWatches ctx");
        w.expect("DataWatchRemoved " + r);
        a = new Reply();
        zk.removeWatches(r, w, WatcherType.Data, false, a, null);
        eq(Code.NOWATCHER, a.await().code(), "async removeWatches of a removed watcher");
        zk.getChildren(r, w);
        a = new Reply();
        zk.removeAllWatches(r, WatcherType.Children, false, a, null);
        eq(Code.OK, a.await().code(), "async removeAllWatches rc");
        w.expect("ChildWatchRemoved " + r);
        a = new Reply();
        zk.removeAllWatches(r, WatcherType.Any, false, a, null);
        eq(Code.NOWATCHER, a.await().code(), "async removeAllWatches with none left");
    }

    // --- persistent watches ---

    static void persistentWatch() throws Exception {
        String r = "/persistent-watch";
        mk(r);
        Events w = new Events("persistent");
        zk.addWatch(r, w, AddWatchMode.PERSISTENT);
        zk.setData(r, b("1"), -1);
        zk.create(r + "/c", null, OPEN, PERSISTENT);
        zk.setData(r + "/c", b("1"), -1);
        zk.create(r + "/c/g", null, OPEN, PERSISTENT);
        zk.delete(r + "/c/g", -1);
        zk.delete(r + "/c", -1);
        zk.delete(r, -1);
        zk.create(r, null, OPEN, PERSISTENT);
        zk.setData(r, b("2"), -1);
        w.expect("NodeDataChanged " + r, "NodeChildrenChanged " + r, "NodeChildrenChanged " + r,
                "NodeDeleted " + r, "NodeCreated " + r, "NodeDataChanged " + r);
        w.none(QUIET);
        // A one-shot watch by the same watcher at the same path adds no second event.
        zk.getData(r, w, null);
        zk.setData(r, b("3"), -1);
        w.expect("NodeDataChanged " + r);
        w.none(QUIET);
        // Removal: PersistentWatchRemoved, then silence.
        zk.removeWatches(r, w, WatcherType.Any, false);
        w.expect("PersistentWatchRemoved " + r);
        zk.setData(r, b("4"), -1);
        w.none(QUIET);
        // Asynchronous addWatch, on a path that does not exist yet, and the default watcher.
        Events def = new Events("default");
        ZooKeeper h = connect("", def);
        try {
            Reply a = new Reply();
            h.addWatch(r + "/later", AddWatchMode.PERSISTENT, a, "aw");
            a.await();
            eq(Code.OK, a.code(), "async addWatch rc");
            eq(r + "/later", a.path, "async addWatch path");
            zk.create(r + "/later", null, OPEN, PERSISTENT);
            zk.delete(r + "/later", -1);
            def.expect("NodeCreated " + r + "/later", "NodeDeleted " + r + "/later");
            h.removeAllWatches(r + "/later", WatcherType.Any, false);
            def.expect("PersistentWatchRemoved " + r + "/later");
        } finally {
            h.close();
        }
    }

    static void persistentRecursiveWatch() throws Exception {
        String r = "/persistent-recursive-watch";
        Events w = new Events("recursive");
        zk.addWatch(r, w, AddWatchMode.PERSISTENT_RECURSIVE);
        zk.create(r, null, OPEN, PERSISTENT);
        zk.create(r + "/a", null, OPEN, PERSISTENT);
        zk.create(r + "/a/b", null, OPEN, PERSISTENT);
        zk.setData(r + "/a/b", b("x"), -1);
        zk.create(r + "x", null, OPEN, PERSISTENT); // a sibling with the path as a prefix
        zk.delete(r + "/a/b", -1);
        zk.setData(r, b("y"), -1);
        zk.multi(Arrays.asList(Op.create(r + "/m", null, OPEN, PERSISTENT), Op.setData(r + "/m", b("z"), 0)));
        w.expect("NodeCreated " + r, "NodeCreated " + r + "/a", "NodeCreated " + r + "/a/b", "NodeDataChanged " + r + "/a/b",
                "NodeDeleted " + r + "/a/b", "NodeDataChanged " + r, "NodeCreated " + r + "/m", "NodeDataChanged " + r + "/m");
        w.none(QUIET);
        // A child watch beside the recursive watch still fires, and once.
        Events c = new Events("children");
        zk.getChildren(r, c);
        zk.create(r + "/n", null, OPEN, PERSISTENT);
        c.expect("NodeChildrenChanged " + r);
        // The 3.8.0 client also hands the child event the server sends for
        // the child watch to the recursive watcher at that path.
        w.expect("NodeCreated " + r + "/n", "NodeChildrenChanged " + r);
        zk.removeWatches(r, w, WatcherType.Any, false);
        w.expect("PersistentWatchRemoved " + r);
        zk.create(r + "/o", null, OPEN, PERSISTENT);
        w.none(QUIET);
        // Watches on the root see everything below it.
        Events root = new Events("root");
        ZooKeeper h = connect("", new Events("h"));
        try {
            h.addWatch("/", root, AddWatchMode.PERSISTENT_RECURSIVE);
            zk.setData(r + "/o", b("x"), -1);
            root.expect("NodeDataChanged " + r + "/o");
            h.removeWatches("/", root, WatcherType.Any, false);
            root.expect("PersistentWatchRemoved /");
        } finally {
            h.close();
        }
    }

    // --- chroot ---

    static void chroot() throws Exception {
        String base = "/chroot";
        mk(base);
        Events ev = new Events("chroot");
        ZooKeeper c = connect(base, ev);
        try {
            eq(stat(zk.exists(base, false)), stat(c.exists("/", false)), "the chroot is /");
            eq("/a", c.create("/a", b("a"), OPEN, PERSISTENT), "create name");
            eq("/s0000000001", c.create("/s", null, OPEN, EPHEMERAL_SEQUENTIAL), "sequential name");
            eq(b("a"), zk.getData(base + "/a", false, null), "node under the chroot");
            eq(list("a", "s0000000001"), sorted(c.getChildren("/", false)), "children of /");
            // The 3.8.0 client does not strip the chroot from getEphemerals.
            eq(list(base + "/s0000000001"), c.getEphemerals(), "getEphemerals");
            // ... nor does it add the chroot to the prefix.
            eq(list(), c.getEphemerals("/s"), "getEphemerals with a prefix");
            eq(list(base + "/s0000000001"), c.getEphemerals(base + "/s"), "getEphemerals with the full prefix");
            eq(2, c.getAllChildrenNumber("/"), "getAllChildrenNumber of /");
            Reply a = new Reply();
            c.create("/b", null, OPEN, PERSISTENT, (AsyncCallback.Create2Callback) a, null);
            a.await();
            eq("/b", a.name, "async create name");
            eq("/b", a.path, "async create path");
            a = new Reply();
            c.sync("/a", a, null);
            eq("/a", a.await().path, "sync path");
            // The 3.8.0 client does not strip the chroot from multi results.
            eq("create " + base + "/m|setData v1", results(c.multi(Arrays.asList(Op.create("/m", null, OPEN, PERSISTENT), Op.setData("/m", b("x"), 0)))), "multi results");
            try {
                c.create("/a", null, OPEN, PERSISTENT);
                throw new AssertionError("create of an existing node succeeded");
            } catch (KeeperException.NodeExistsException e) {
                eq("/a", e.getPath(), "exception path");
            }
            Events w = new Events("w");
            c.getData("/a", w, null);
            c.getChildren("/", w);
            c.addWatch("/m", w, AddWatchMode.PERSISTENT_RECURSIVE);
            zk.setData(base + "/a", b("b"), -1);
            w.expect("NodeDataChanged /a");
            zk.create(base + "/m/x", null, OPEN, PERSISTENT);
            w.expect("NodeCreated /m/x");
            zk.create(base + "/n", null, OPEN, PERSISTENT);
            w.expect("NodeChildrenChanged /");
            c.removeWatches("/m", w, WatcherType.Any, false);
            w.expect("PersistentWatchRemoved /m");
            // Exists on the chroot's own path, from outside it.
            Events e2 = new Events("e2");
            check(c.exists("/", e2) != null, "exists /");
            zk.setData(base, b("x"), -1);
            e2.expect("NodeDataChanged /");
        } finally {
            c.close();
        }
        // A chroot that does not exist: the session works, requests see NoNode.
        ZooKeeper missing = connect("/no-such-chroot", new Events("missing"));
        try {
            eq(null, missing.exists("/", false), "exists / in a missing chroot");
            fails(Code.NONODE, "create in a missing chroot", () -> missing.create("/a", null, OPEN, PERSISTENT));
        } finally {
            missing.close();
        }
    }

    // --- edges ---

    /** The server clamps the requested timeout to [2, 20] ticks (tickTime 500). */
    static void sessionTimeoutNegotiation() throws Exception {
        int[][] cases = {{100, 1000}, {4000, 4000}, {3_600_000, 10_000}};
        for (int[] c : cases) {
            ZooKeeper h = connect("", new Events("t" + c[0]), c[0]);
            try {
                eq(c[1], h.getSessionTimeout(), "negotiated timeout for " + c[0] + " ms");
            } finally {
                h.close();
            }
        }
    }

    static void systemNodes() throws Exception {
        eq(list("config", "quota"), sorted(zk.getChildren("/zookeeper", false)), "children of /zookeeper");
        Stat st = new Stat();
        byte[] config = zk.getData("/zookeeper/config", false, st);
        eq(0, config == null ? 0 : config.length, "standalone /zookeeper/config data length");
        eq(Ids.READ_ACL_UNSAFE, zk.getACL("/zookeeper/config", null), "ACL of /zookeeper/config");
        eq(OPEN, zk.getACL("/zookeeper", null), "ACL of /zookeeper");
        eq(OPEN, zk.getACL("/zookeeper/quota", null), "ACL of /zookeeper/quota");
        eq(OPEN, zk.getACL("/", null), "ACL of /");
        Stat root = zk.exists("/", false);
        eq(0L, root.getCzxid(), "czxid of /");
        eq(0, root.getVersion(), "version of /");
        // Every node below / is counted, the system nodes included.
        eq(countBelow("/"), zk.getAllChildrenNumber("/"), "getAllChildrenNumber of / against a walk");
        eq(2, zk.getAllChildrenNumber("/zookeeper"), "getAllChildrenNumber of /zookeeper");
        fails(Code.NOAUTH, "setData of /zookeeper/config", () -> zk.setData("/zookeeper/config", b("x"), -1));
        fails(Code.BADARGUMENTS, "delete of /", () -> zk.delete("/", -1));
        fails(Code.NODEEXISTS, "create of /zookeeper", () -> zk.create("/zookeeper", null, OPEN, PERSISTENT));
        fails(Code.BADARGUMENTS, "delete of /zookeeper", () -> zk.delete("/zookeeper", -1));
    }

    /** getConfig reads /zookeeper/config; reconfig is refused by a standalone server. */
    static void configAndReconfig() throws Exception {
        Stat st = new Stat();
        byte[] cfg = zk.getConfig(false, st);
        eq(0, cfg == null ? 0 : cfg.length, "config of a standalone server");
        eq(stat(zk.exists("/zookeeper/config", false)), stat(st), "getConfig stat");
        Reply a = new Reply();
        zk.getConfig(false, a, "c");
        a.await();
        eq(Code.OK, a.code(), "async getConfig rc");
        eq("/zookeeper/config", a.path, "async getConfig path");
        org.apache.zookeeper.admin.ZooKeeperAdmin admin = new org.apache.zookeeper.admin.ZooKeeperAdmin(hosts, TIMEOUT, new Events("admin"));
        try {
            fails(Code.RECONFIGDISABLED, "reconfig", () -> admin.reconfigure(null, null, "server.1=127.0.0.1:2888:3888:participant;2181", -1, new Stat()));
            fails(Code.RECONFIGDISABLED, "incremental reconfig", () -> admin.reconfigure("server.2=127.0.0.1:2889:3889", null, null, -1, new Stat()));
        } finally {
            admin.close();
        }
    }

    /** countBelow walks the tree; nodes this handle may not read are leaves here. */
    static int countBelow(String path) throws Exception {
        List<String> children;
        try {
            children = zk.getChildren(path, false);
        } catch (KeeperException.NoAuthException e) {
            return 0;
        }
        int n = 0;
        for (String c : children) {
            String p = path.equals("/") ? "/" + c : path + "/" + c;
            n += 1 + countBelow(p);
        }
        return n;
    }

    /** The events of one multi come in the order of its ops. */
    static void multiWatchOrder() throws Exception {
        String r = "/multi-watch-order";
        mk(r);
        zk.create(r + "/x", null, OPEN, PERSISTENT);
        Events p = new Events("persistent"), d = new Events("data"), c = new Events("children");
        ZooKeeper h = connect("", new Events("h"));
        try {
            h.addWatch(r, p, AddWatchMode.PERSISTENT_RECURSIVE);
            h.getData(r + "/x", d, null);
            h.getChildren(r, c);
            zk.multi(Arrays.asList(
                    Op.delete(r + "/x", -1),
                    Op.create(r + "/x", b("again"), OPEN, PERSISTENT),
                    Op.setData(r + "/x", b("more"), -1),
                    Op.create(r + "/y", null, OPEN, PERSISTENT),
                    Op.setData(r, b("r"), -1)));
            // The recursive watcher also gets the child event the server sends
            // for the child watch of the same connection (a 3.8.0 client quirk).
            p.expect("NodeDeleted " + r + "/x", "NodeChildrenChanged " + r, "NodeCreated " + r + "/x",
                    "NodeDataChanged " + r + "/x", "NodeCreated " + r + "/y", "NodeDataChanged " + r);
            d.expect("NodeDeleted " + r + "/x");
            c.expect("NodeChildrenChanged " + r);
            p.none(QUIET);
            d.none(0);
            c.none(0);
        } finally {
            h.close();
        }
    }

    /**
     * A read refused for want of READ sets no watch, and a watch event is
     * only delivered to a connection with READ on the node it is about (on
     * the parent for NodeChildrenChanged): 3.8.0 as Debian ships it, with the
     * fix of CVE-2024-23944 (as in Apache ZooKeeper 3.8.4). An event filtered
     * out still uses up a one-shot watch.
     */
    static void noAuthSetsNoWatch() throws Exception {
        String r = "/noauth-sets-no-watch";
        List<ACL> noRead = Arrays.asList(new ACL(Perms.WRITE | Perms.CREATE | Perms.DELETE, Ids.ANYONE_ID_UNSAFE));
        zk.create(r, null, noRead, PERSISTENT);
        Events w = new Events("w");
        fails(Code.NOAUTH, "getData without READ", () -> zk.getData(r, w, null));
        fails(Code.NOAUTH, "getChildren without READ", () -> zk.getChildren(r, w));
        check(zk.exists(r, false) != null, "exists without READ");
        zk.setData(r, b("x"), -1);
        zk.create(r + "/c", null, OPEN, PERSISTENT);
        w.none(QUIET);
        // exists sets a watch without READ, but its event is not delivered.
        Events e = new Events("exists");
        zk.exists(r, e);
        zk.setData(r, b("y"), -1);
        e.none(QUIET);
        // Nor is the NodeChildrenChanged of a parent without READ.
        Events cw = new Events("recursive");
        zk.addWatch(r, cw, AddWatchMode.PERSISTENT_RECURSIVE);
        zk.create(r + "/d", null, OPEN, PERSISTENT);
        zk.setData(r, b("z"), -1);
        zk.setData(r + "/d", b("z"), -1);
        cw.expect("NodeCreated " + r + "/d", "NodeDataChanged " + r + "/d");
        // A secret node below an open one: its own events go only to a
        // connection that may read it; its parent's child event to all.
        String o = "/noauth-open";
        mk(o);
        String digest = DigestAuthenticationProvider.generateDigest("frank:pw");
        List<ACL> secret = Arrays.asList(new ACL(Perms.ALL, new Id("digest", digest)));
        ZooKeeper frank = connect("", new Events("frank"));
        try {
            frank.addAuthInfo("digest", b("frank:pw"));
            Events anon = new Events("anon"), auth = new Events("auth"), kids = new Events("kids");
            zk.addWatch(o, anon, AddWatchMode.PERSISTENT_RECURSIVE);
            frank.addWatch(o, auth, AddWatchMode.PERSISTENT_RECURSIVE);
            zk.getChildren(o, kids);
            zk.exists(o + "/s", anon);
            frank.create(o + "/s", b("x"), secret, PERSISTENT);
            frank.setData(o + "/s", b("y"), -1);
            frank.delete(o + "/s", -1);
            zk.create(o + "/t", null, OPEN, PERSISTENT);
            kids.expect("NodeChildrenChanged " + o);
            auth.expect("NodeCreated " + o + "/s", "NodeDataChanged " + o + "/s", "NodeDeleted " + o + "/s", "NodeCreated " + o + "/t");
            // anon also gets the child event of kids, a watch of the same handle
            // (the client quirk seen in persistent-recursive-watch).
            anon.expect("NodeChildrenChanged " + o, "NodeCreated " + o + "/t");
            anon.none(QUIET);
            // The super user (none configured here) aside, a session
            // that gains READ by auth is told from then on.
            zk.addAuthInfo("digest", b("frank:pw"));
            // addAuthInfo does not wait for the server: a round trip on
            // zk's connection makes sure the auth packet is processed
            // before frank's create, which goes over another connection
            // and could otherwise overtake it.
            zk.exists(o, false);
            frank.create(o + "/s", b("x"), secret, PERSISTENT);
            anon.expect("NodeCreated " + o + "/s");
        } finally {
            frank.close();
        }
    }

    static void authSchemes() throws Exception {
        Events ev = new Events("ip");
        ZooKeeper h = connect("", ev);
        try {
            h.addAuthInfo("ip", b("10.0.0.1"));
            h.addAuthInfo("digest", b("erin:pw"));
            h.addAuthInfo("digest", b("erin:pw"));
            eq("[digest erin, ip 127.0.0.1]", clients(h.whoAmI()), "whoAmI after ip and a repeated digest");
        } finally {
            h.close();
        }
        Events bad = new Events("bad-digest");
        ZooKeeper h2 = connect("", bad);
        try {
            h2.addAuthInfo("digest", b("nocolon"));
            eq("[digest nocolon, ip 127.0.0.1]", clients(h2.whoAmI()), "whoAmI after a digest without a colon");
            bad.none(QUIET);
        } finally {
            h2.close();
        }
        Events world = new Events("world");
        ZooKeeper h3 = connect("", world);
        try {
            h3.addAuthInfo("world", b("anyone"));
            eq("None AuthFailed", world.next(WAIT), "auth with the world scheme");
        } finally {
            h3.close();
        }
    }

    static void unicodePaths() throws Exception {
        String r = "/unicode-paths";
        mk(r);
        // (The client refuses surrogate pairs in paths.)
        List<String> names = list("\u00fcber", "\u65e5\u672c", "a b", "\u00e9t\u00e9", "z");
        for (String n : names) {
            eq(r + "/" + n, zk.create(r + "/" + n, b(n), OPEN, EPHEMERAL), "name " + n);
        }
        eq(sorted(names), sorted(zk.getChildren(r, false)), "children");
        for (String n : names) {
            eq(b(n), zk.getData(r + "/" + n, false, null), "data of " + n);
        }
        eq(list(r + "/\u00fcber"), zk.getEphemerals(r + "/\u00fc"), "getEphemerals with a non-ASCII prefix");
        eq(names.size(), zk.getAllChildrenNumber(r), "getAllChildrenNumber");
        Events w = new Events("w");
        zk.getData(r + "/\u65e5\u672c", w, null);
        zk.setData(r + "/\u65e5\u672c", b("x"), -1);
        w.expect("NodeDataChanged " + r + "/\u65e5\u672c");
        for (String n : names) {
            zk.delete(r + "/" + n, -1);
        }
    }

    /**
     * addWatch PERSISTENT is a data and a child watch on the server; removing
     * one kind of it is answered as Java 3.8.0 answers it.
     */
    static void persistentWatchPartialRemoval() throws Exception {
        String r = "/persistent-watch-partial-removal";
        mk(r);
        Events w = new Events("w");
        zk.addWatch(r, w, AddWatchMode.PERSISTENT);
        KeeperException.Code children = code(() -> zk.removeWatches(r, w, WatcherType.Children, false));
        KeeperException.Code data = code(() -> zk.removeWatches(r, w, WatcherType.Data, false));
        zk.create(r + "/c", null, OPEN, PERSISTENT);
        zk.setData(r, b("x"), -1);
        List<String> seen = new ArrayList<>();
        Thread.sleep(QUIET);
        seen.addAll(w.drain());
        eq("removal of the child part NOWATCHER, of the data part NOWATCHER, then [NodeChildrenChanged " + r + ", NodeDataChanged " + r + "]",
                "removal of the child part " + children + ", of the data part " + data + ", then " + seen, "partial removal");
        Events rw = new Events("rw");
        zk.addWatch(r, rw, AddWatchMode.PERSISTENT_RECURSIVE);
        KeeperException.Code rc = code(() -> zk.removeAllWatches(r, WatcherType.Children, false));
        zk.setData(r + "/c", b("y"), -1);
        Thread.sleep(QUIET);
        eq("NOWATCHER [NodeDataChanged " + r + "/c]", rc + " " + rw.drain(), "child removal of a recursive watch");
    }

    /**
     * A request frame of jute.maxbuffer (1 MiB - 1) bytes is served; one
     * byte more and the server drops the connection.
     */
    static void requestSizeLimit() throws Exception {
        String r = "/size";
        zk.create(r, null, OPEN, PERSISTENT);
        // setData frame: xid, type, path (4 + 5), data (4 + n), version.
        int fits = 0xfffff - (4 + 4 + 4 + r.length() + 4 + 4);
        Events ev = new Events("big");
        ZooKeeper h = connect("", ev);
        try {
            h.setData(r, new byte[fits - 100], -1);
            eq(fits - 100, h.exists(r, false).getDataLength(), "data length just under the limit");
            fails(Code.CONNECTIONLOSS, "a frame over the limit", () -> h.setData(r, new byte[fits + 1], -1));
            ev.waitState(KeeperState.SyncConnected, WAIT);
            eq(fits - 100, h.exists(r, false).getDataLength(), "data after the refused frame");
        } finally {
            h.close();
        }
    }

    // --- sessions ---

    static void ephemeralsOnClose() throws Exception {
        String r = "/ephemerals-on-close";
        mk(r);
        ZooKeeper h = connect("", new Events("h"));
        h.create(r + "/e", null, OPEN, EPHEMERAL);
        Events w = new Events("w");
        zk.exists(r + "/e", w);
        zk.getChildren(r, w);
        h.close();
        w.expectAnyOrder("NodeDeleted " + r + "/e", "NodeChildrenChanged " + r);
        eq(null, zk.exists(r + "/e", false), "ephemeral after close");
        eq(list(), zk.getChildren(r, false), "children after close");
    }

    static void containerTtlReaped() throws Exception {
        String r = "/reaped";
        mk(r);
        zk.create(r + "/k", null, OPEN, CONTAINER);
        zk.create(r + "/k/c", null, OPEN, PERSISTENT);
        zk.create(r + "/empty", null, OPEN, CONTAINER);
        zk.create(r + "/ttl", null, OPEN, PERSISTENT_WITH_TTL, null, 500);
        zk.create(r + "/ttlkid", null, OPEN, PERSISTENT_WITH_TTL, null, 500);
        zk.create(r + "/ttlkid/c", null, OPEN, PERSISTENT);
        Events w = new Events("w");
        zk.exists(r + "/k", w);
        zk.exists(r + "/ttl", w);
        zk.delete(r + "/k/c", -1);
        w.expectAnyOrder("NodeDeleted " + r + "/k", "NodeDeleted " + r + "/ttl");
        // A container that never had a child stays; so does a TTL node with children.
        check(zk.exists(r + "/empty", false) != null, "an empty container that never had a child was reaped");
        check(zk.exists(r + "/ttlkid", false) != null, "a TTL node with a child was reaped");
    }

    /**
     * A TTL node's time runs from its last change (mtime): kept alive by
     * setData, then reaped once left alone; a child keeps it, and it goes
     * once the child is gone and its TTL has passed.
     */
    static void ttlTouch() throws Exception {
        String r = "/ttl-touch";
        mk(r);
        zk.create(r + "/t", null, OPEN, PERSISTENT_WITH_TTL, null, 2000);
        zk.create(r + "/k", null, OPEN, PERSISTENT_WITH_TTL, null, 2000);
        zk.create(r + "/k/c", null, OPEN, PERSISTENT);
        for (int i = 0; i < 8; i++) {
            Thread.sleep(300);
            zk.setData(r + "/t", b("touch" + i), -1);
        }
        check(zk.exists(r + "/t", false) != null, "a TTL node changed every 300 ms was reaped");
        check(zk.exists(r + "/k", false) != null, "a TTL node with a child was reaped");
        Events w = new Events("w");
        zk.exists(r + "/t", w);
        zk.exists(r + "/k", w);
        long t0 = System.nanoTime();
        zk.delete(r + "/k/c", -1);
        w.expectAnyOrder("NodeDeleted " + r + "/t", "NodeDeleted " + r + "/k");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        check(ms < 10_000, "reaped after %d ms", ms);
    }

    static void readonlyHandshake() throws Exception {
        Events ev = new Events("ro");
        ZooKeeper h = new ZooKeeper(hosts, TIMEOUT, ev, true);
        try {
            eq("None SyncConnected", ev.next(WAIT), "first event of a canBeReadOnly handle");
            eq(ZooKeeper.States.CONNECTED, h.getState(), "state");
            h.create("/readonly-handshake", null, OPEN, EPHEMERAL);
            check(h.exists("/readonly-handshake", false) != null, "write through a canBeReadOnly handle");
        } finally {
            h.close();
        }
    }

    /**
     * A second handle with the first one's session id and password takes
     * the session over: the server drops the first handle's connection.
     * Closing the second handle closes the session, which the first one
     * then learns as Expired.
     */
    static void sessionMove() throws Exception {
        String r = "/session-move";
        mk(r);
        Events ea = new Events("first");
        ZooKeeper first = connect("", ea);
        first.create(r + "/e", null, OPEN, EPHEMERAL);
        Events eb = new Events("second");
        ZooKeeper second = new ZooKeeper(hosts, TIMEOUT, eb, first.getSessionId(), first.getSessionPasswd());
        try {
            eb.waitState(KeeperState.SyncConnected, WAIT);
            eq(first.getSessionId(), second.getSessionId(), "session id of the second handle");
            eq("None Disconnected", ea.next(WAIT), "the first handle's event");
            check(zk.exists(r + "/e", false) != null, "the session's ephemeral survives the move");
            second.close();
            List<String> skipped = ea.waitState(KeeperState.Expired, WAIT);
            for (String s : skipped) {
                check(s.equals("None SyncConnected") || s.equals("None Disconnected"), "first handle saw %s before Expired", s);
            }
            eq(null, zk.exists(r + "/e", false), "the ephemeral after the session closed");
            eq(ZooKeeper.States.CLOSED, first.getState(), "the first handle's state");
        } finally {
            first.close();
            second.close();
        }
        // A wrong password: the new handle's session is expired at once, but
        // the server has already dropped the owner's connection (3.8.0 closes
        // it before it checks the password); the owner reconnects.
        Events ec = new Events("wrong");
        Events ek = new Events("keeper");
        ZooKeeper keeper = connect("", ek);
        byte[] pw = keeper.getSessionPasswd().clone();
        pw[0] ^= 1;
        ZooKeeper wrong = new ZooKeeper(hosts, TIMEOUT, ec, keeper.getSessionId(), pw);
        try {
            eq("None Expired", ec.next(WAIT), "resuming with a wrong password");
            eq("None Disconnected", ek.next(WAIT), "the owner's event");
            eq("None SyncConnected", ek.next(WAIT), "the owner's next event");
            check(keeper.exists("/", false) != null, "the session survives a wrong password");
        } finally {
            wrong.close();
            keeper.close();
        }
    }

    /**
     * Gate is a HostProvider the check can shut: while shut, the handle is
     * sent to a closed port and stays disconnected.
     */
    static final class Gate implements HostProvider {
        volatile boolean shut;
        final InetSocketAddress open, closed;

        Gate() {
            String[] hp = hosts.split(":");
            open = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
            closed = new InetSocketAddress(hp[0], 1);
        }

        @Override
        public int size() {
            return 1;
        }

        @Override
        public InetSocketAddress next(long spinDelay) {
            if (shut) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return closed;
            }
            return open;
        }

        @Override
        public void onConnected() {
        }

        @Override
        public boolean updateServerList(Collection<InetSocketAddress> servers, InetSocketAddress current) {
            return false;
        }
    }

    /**
     * A handle is kept away from the server while others change what it
     * watches; when it comes back, its setWatches tells the server the last
     * zxid it saw and the server answers at once for what changed since.
     * The handle is kept away by taking its session over with a second
     * handle (the server drops its connection) whose own gate is then shut.
     */
    static void setWatchesCatchUp() throws Exception {
        String r = "/set-watches-catch-up";
        mk(r);
        for (String p : list("/data", "/gone", "/kids", "/same", "/kids-gone", "/pdata", "/rkids")) {
            zk.create(r + p, null, OPEN, PERSISTENT);
        }
        zk.create(r + "/kids-gone/c", null, OPEN, PERSISTENT);
        Gate ga = new Gate(), gb = new Gate();
        Events ea = new Events("away");
        ZooKeeper away = new ZooKeeper(hosts, 8000, ea, false, ga);
        ea.waitState(KeeperState.SyncConnected, WAIT);
        Events wd = new Events("data"), wg = new Events("gone"), we = new Events("exists"), wk = new Events("kids"),
                ws = new Events("same"), wkg = new Events("kids-gone"), wp = new Events("persistent"), wr = new Events("recursive");
        away.getData(r + "/data", wd, null);
        away.getData(r + "/gone", wg, null);
        away.exists(r + "/new", we);
        away.getChildren(r + "/kids", wk);
        away.getData(r + "/same", ws, null);
        away.getChildren(r + "/kids-gone/c", wkg);
        away.addWatch(r + "/pdata", wp, AddWatchMode.PERSISTENT);
        away.addWatch(r + "/rkids", wr, AddWatchMode.PERSISTENT_RECURSIVE);
        Events wboth = new Events("persistent-beside-one-shot");
        away.addWatch(r + "/data", wboth, AddWatchMode.PERSISTENT);
        ga.shut = true;
        Events eb = new Events("taker");
        ZooKeeper taker = new ZooKeeper(hosts, 8000, eb, away.getSessionId(), away.getSessionPasswd(), false, gb);
        try {
            eb.waitState(KeeperState.SyncConnected, WAIT);
            gb.shut = true;
            ea.waitState(KeeperState.Disconnected, WAIT);
            // Changes while the handle is away.
            zk.setData(r + "/data", b("x"), -1);
            zk.delete(r + "/gone", -1);
            zk.create(r + "/new", null, OPEN, PERSISTENT);
            zk.create(r + "/kids/k", null, OPEN, PERSISTENT);
            zk.delete(r + "/kids-gone/c", -1);
            zk.setData(r + "/pdata", b("x"), -1);
            zk.create(r + "/rkids/k", null, OPEN, PERSISTENT);
            // Back: the taker's connection is dropped in turn and cannot return.
            ga.shut = false;
            ea.waitState(KeeperState.SyncConnected, WAIT);
            // Each watcher is told of the disconnection, the reconnection and
            // what changed while away; an unchanged node fires nothing.
            wd.expect("None Disconnected", "None SyncConnected", "NodeDataChanged " + r + "/data");
            wg.expect("None Disconnected", "None SyncConnected", "NodeDeleted " + r + "/gone");
            we.expect("None Disconnected", "None SyncConnected", "NodeCreated " + r + "/new");
            wk.expect("None Disconnected", "None SyncConnected", "NodeChildrenChanged " + r + "/kids");
            wkg.expect("None Disconnected", "None SyncConnected", "NodeDeleted " + r + "/kids-gone/c");
            ws.expect("None Disconnected", "None SyncConnected");
            // Persistent watches are put back but not caught up...
            wp.expect("None Disconnected", "None SyncConnected");
            wr.expect("None Disconnected", "None SyncConnected");
            // ... though the client hands a catch-up event to every watcher
            // at its path, a persistent one included.
            wboth.expect("None Disconnected", "None SyncConnected", "NodeDataChanged " + r + "/data");
            ws.none(QUIET);
            wp.none(0);
            wr.none(0);
            zk.setData(r + "/same", b("y"), -1);
            ws.expect("NodeDataChanged " + r + "/same");
            zk.setData(r + "/pdata", b("z"), -1);
            wp.expect("NodeDataChanged " + r + "/pdata");
            zk.create(r + "/rkids/k2", null, OPEN, PERSISTENT);
            wr.expect("NodeCreated " + r + "/rkids/k2");
            zk.setData(r + "/data", b("z"), -1);
            wboth.expect("NodeDataChanged " + r + "/data");
            wd.none(0);
        } finally {
            // With its gate shut the taker cannot reach the server to close
            // the session it shares with away.
            taker.close();
            away.close();
        }
    }

    /**
     * A session whose client goes silent without closing it expires after
     * its timeout (2 s, with a 500 ms tick), and not before; a session
     * that only pings stays.
     */
    static void sessionTimeoutExpiry() throws Exception {
        String r = "/session-timeout-expiry";
        mk(r);
        ZooKeeper idle = connect("", new Events("idle"), 2000);
        ZooKeeper silent = connect("", new Events("silent"), 2000);
        try {
            eq(2000, silent.getSessionTimeout(), "negotiated timeout");
            idle.create(r + "/idle", null, OPEN, EPHEMERAL);
            silent.create(r + "/silent", null, OPEN, EPHEMERAL);
            Events w = new Events("w");
            zk.exists(r + "/silent", w);
            long t0 = System.nanoTime();
            // Drops the connection without a closeSession.
            silent.getTestable().injectSessionExpiration();
            eq("NodeDeleted " + r + "/silent", w.next(WAIT), "the silent session's ephemeral");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            check(ms >= 1500 && ms <= 10_000, "the silent session ended after %d ms, want about 2000 to 2500", ms);
            check(zk.exists(r + "/idle", false) != null, "the idle session, which pings, lost its ephemeral");
        } finally {
            idle.close();
            silent.close();
        }
    }

    /** The classic expiry: a second handle on the session, then closed. */
    static void sessionExpiry() throws Exception {
        String r = "/session-expiry";
        mk(r);
        Events ev = new Events("victim");
        ZooKeeper victim = connect("", ev);
        victim.create(r + "/e", null, OPEN, EPHEMERAL);
        Events wd = new Events("data");
        victim.getData(r, wd, null);
        Events outside = new Events("outside");
        zk.exists(r + "/e", outside);
        ZooKeeper killer = new ZooKeeper(hosts, TIMEOUT, new Events("killer"), victim.getSessionId(), victim.getSessionPasswd());
        try {
            // Wait for the killer to hold the session, then close it.
            long deadline = System.currentTimeMillis() + WAIT;
            while (killer.getState() != ZooKeeper.States.CONNECTED && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            check(killer.getState() == ZooKeeper.States.CONNECTED, "the killer did not connect");
        } finally {
            killer.close();
        }
        outside.expect("NodeDeleted " + r + "/e");
        for (Events e : new Events[] {ev, wd}) {
            // Every watcher is told of every state change.
            for (String s : e.waitState(KeeperState.Expired, WAIT)) {
                check(s.equals("None SyncConnected") || s.equals("None Disconnected"), "%s saw %s before Expired", e.name, s);
            }
        }
        fails(Code.SESSIONEXPIRED, "a request on the expired handle", () -> victim.exists("/", false));
        eq(ZooKeeper.States.CLOSED, victim.getState(), "state after expiry");
        victim.close();
    }

    /**
     * The server restarts under a connected handle (the Go side does it on
     * SIGNAL restart): the handle sees Disconnected, then SyncConnected
     * with the same session, whose ephemeral and watches survive.
     */
    static void restartRecovery() throws Exception {
        String r = "/restart-recovery";
        mk(r);
        zk.create(r + "/d", null, OPEN, PERSISTENT);
        zk.create(r + "/p", null, OPEN, PERSISTENT);
        Events ev = new Events("survivor");
        ZooKeeper h = connect("", ev, 15_000);
        long session = h.getSessionId();
        h.create(r + "/e", null, OPEN, EPHEMERAL);
        Events wd = new Events("data"), we = new Events("exists"), wc = new Events("children"), wp = new Events("recursive");
        h.getData(r + "/d", wd, null);
        h.exists(r + "/new", we);
        h.getChildren(r, wc);
        h.addWatch(r + "/p", wp, AddWatchMode.PERSISTENT_RECURSIVE);
        try {
            signal("restart");
            ev.waitState(KeeperState.Disconnected, WAIT);
            ev.waitState(KeeperState.SyncConnected, 60_000);
            eq(session, h.getSessionId(), "session id after the restart");
            check(h.exists(r + "/e", false) != null, "the ephemeral survived the restart");
            ZooKeeper other = connect("", new Events("other"));
            try {
                other.setData(r + "/d", b("x"), -1);
                // Every watcher is told of the disconnection and the reconnection.
                wd.expect("None Disconnected", "None SyncConnected", "NodeDataChanged " + r + "/d");
                other.create(r + "/new", null, OPEN, PERSISTENT);
                we.expect("None Disconnected", "None SyncConnected", "NodeCreated " + r + "/new");
                wc.expect("None Disconnected", "None SyncConnected", "NodeChildrenChanged " + r);
                other.create(r + "/p/x", null, OPEN, PERSISTENT);
                wp.expect("None Disconnected", "None SyncConnected", "NodeCreated " + r + "/p/x");
                other.setData(r + "/p/x", b("y"), -1);
                wp.expect("NodeDataChanged " + r + "/p/x");
            } finally {
                other.close();
            }
            // The main handle reconnected too.
            check(zk.exists(r + "/e", false) != null, "the main handle works after the restart");
        } finally {
            h.close();
        }
    }
}
