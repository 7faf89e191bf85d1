import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.jute.BinaryInputArchive;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.StatPersisted;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.ZKDatabase;

/**
 * Loads a SNAP stream from the file named by the first argument the way a
 * ZooKeeper 3.8 learner loads it from its leader (ZKDatabase
 * .deserializeSnapshot, then the "signature" string), and prints what it
 * loaded: the node count, the tree digest, the sessions, and every node
 * (path, persisted stat, data length and ACL) in depth-first order.
 */
public class SnapStreamLearner {
    public static void main(String[] args) throws Exception {
        ZKDatabase db = new ZKDatabase(null);
        try (InputStream in = new BufferedInputStream(new FileInputStream(args[0]))) {
            BinaryInputArchive ia = BinaryInputArchive.getArchive(in);
            db.deserializeSnapshot(ia);
            String signature = ia.readString("signature");
            if (!"BenWasHere".equals(signature)) {
                System.out.println("error signature " + signature);
                System.exit(2);
            }
            if (in.read() != -1) {
                System.out.println("error bytes after the signature");
                System.exit(3);
            }
        }
        DataTree dt = db.getDataTree();
        PrintStream out = System.out;
        out.println("nodecount " + dt.getNodeCount());
        out.println("digest " + dt.getTreeDigest());
        out.println("sessions " + db.getSessionWithTimeOuts().size());
        print(out, dt, "");
    }

    private static void print(PrintStream out, DataTree dt, String path) {
        DataNode node = dt.getNode(path);
        StatPersisted s = node.stat;
        byte[] data = node.getData();
        List<ACL> acl = dt.getACL(node);
        StringBuilder acls = new StringBuilder();
        for (ACL a : acl) {
            acls.append(' ').append(a.getPerms()).append(':').append(a.getId().getScheme()).append(':').append(a.getId().getId());
        }
        out.println("node " + (path.isEmpty() ? "/" : path) + " " + s.getCzxid() + " " + s.getMzxid() + " " + s.getPzxid()
            + " " + s.getCtime() + " " + s.getMtime() + " " + s.getVersion() + " " + s.getCversion() + " " + s.getAversion()
            + " " + s.getEphemeralOwner() + " " + (data == null ? -1 : data.length) + acls);
        Set<String> children = node.getChildren();
        List<String> names = new ArrayList<>(children);
        java.util.Collections.sort(names);
        for (String name : names) {
            print(out, dt, path + "/" + name);
        }
    }
}
