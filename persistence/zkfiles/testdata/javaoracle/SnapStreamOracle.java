import java.io.BufferedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.jute.BinaryOutputArchive;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.util.SerializeUtils;

/**
 * Writes to stdout the bytes a ZooKeeper 3.8 leader sends a learner after
 * SNAP (LearnerHandler: ZKDatabase.serializeSnapshot, then the signature
 * string), for a small tree with sessions, ephemerals, two ACLs, null and
 * empty data. gozk's test decodes the fixture and checks each part.
 *
 * With the argument "many": 300 sessions of three servers and an ACL map
 * whose ids, after most lists were deleted, run past the size of the
 * table Java copies the map into, so that both are written in an order
 * of HashMap buckets that is not the order of their ids.
 */
public class SnapStreamOracle {
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("many")) {
            many();
            return;
        }
        DataTree dt = new DataTree();
        List<ACL> digest = new ArrayList<>();
        digest.add(new ACL(ZooDefs.Perms.ALL, new Id("digest", "u:ZR3ePjVK6cXXmU4yC8TUr8jYKmw=")));
        digest.add(new ACL(ZooDefs.Perms.READ, new Id("world", "anyone")));
        long zxid = 0x100000000L;
        dt.createNode("/app", "config".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, 0, 0, ++zxid, 1700000000000L);
        dt.createNode("/app/secret", "s3".getBytes(StandardCharsets.UTF_8), digest, 0, 1, ++zxid, 1700000000001L);
        dt.createNode("/app/empty", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, 0, 2, ++zxid, 1700000000002L);
        dt.createNode("/app/null", null, ZooDefs.Ids.READ_ACL_UNSAFE, 0, 3, ++zxid, 1700000000003L);
        dt.createNode("/lock", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, 0, 1, ++zxid, 1700000000004L);
        dt.createNode("/lock/owner", "me".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, 0x100000001L, 1, ++zxid, 1700000000005L);
        Map<Long, Integer> sessions = new HashMap<>();
        sessions.put(0x100000001L, 30000);
        sessions.put(0x100000002L, 4000);
        BufferedOutputStream out = new BufferedOutputStream(System.out);
        BinaryOutputArchive oa = BinaryOutputArchive.getArchive(out);
        SerializeUtils.serializeSnapshot(dt, oa, sessions);
        oa.writeString("BenWasHere", "signature");
        out.flush();
    }
    private static void many() throws Exception {
        DataTree dt = new DataTree();
        long zxid = 0x200000000L;
        dt.createNode("/acl", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, 0, 0, ++zxid, 1700000000000L);
        for (int i = 0; i < 600; i++) {
            List<ACL> acl = new ArrayList<>();
            acl.add(new ACL(ZooDefs.Perms.READ, new Id("digest", "user" + i + ":x")));
            dt.createNode("/acl/n" + i, ("d" + i).getBytes(StandardCharsets.UTF_8), acl, 0, i + 1, ++zxid, 1700000000000L + i);
        }
        // Every fifteenth list stays; the others go with their nodes.
        for (int i = 0; i < 600; i++) {
            if (i % 15 != 7) {
                dt.deleteNode("/acl/n" + i, ++zxid);
            }
        }
        // Session ids as servers 1, 2 and 3 make them: the server id in
        // the top byte, a time in the next five, then a counter; created
        // in the order of their ids.
        Map<Long, Integer> sessions = new HashMap<>();
        for (long sid = 1; sid <= 3; sid++) {
            long base = (sid << 56) | ((1700000000000L << 24) >>> 8);
            for (int i = 0; i < 100; i++) {
                sessions.put(base + i, 4000 + i);
            }
        }
        BufferedOutputStream out = new BufferedOutputStream(System.out);
        BinaryOutputArchive oa = BinaryOutputArchive.getArchive(out);
        SerializeUtils.serializeSnapshot(dt, oa, sessions);
        oa.writeString("BenWasHere", "signature");
        out.flush();
    }
}
