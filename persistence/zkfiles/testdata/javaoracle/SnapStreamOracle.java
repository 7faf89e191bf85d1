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
 */
public class SnapStreamOracle {
    public static void main(String[] args) throws Exception {
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
}
