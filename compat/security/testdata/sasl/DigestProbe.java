// DigestProbe connects with the ZooKeeper Java client, which logs in with
// the JAAS section named by zookeeper.sasl.clientconfig (DIGEST-MD5 from a
// DigestLoginModule section), and prints what the client saw:
//
//   EVENT <the first SaslAuthenticated/AuthFailed/Expired/Closed state>
//   WHOAMI <scheme:id> ...       (sorted; only when authenticated)
//   CREATE ok|<code>             (when ACL_ID is not "-": create PATH with sasl:ACL_ID:cdrwa)
//   READ ok|<code>               (when ACL_ID is "-": getData PATH)
//
// Usage: java DigestProbe HOST:PORT PATH ACL_ID|-
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;

public class DigestProbe {
    public static void main(String[] args) throws Exception {
        String addr = args[0], path = args[1], aclId = args[2];
        LinkedBlockingQueue<KeeperState> states = new LinkedBlockingQueue<>();
        ZooKeeper zk = new ZooKeeper(addr, 30000, e -> {
            if (e.getType() == org.apache.zookeeper.Watcher.Event.EventType.None) {
                states.add(e.getState());
            }
        });
        KeeperState state = null;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            KeeperState s = states.poll(1, TimeUnit.SECONDS);
            if (s == KeeperState.SaslAuthenticated || s == KeeperState.AuthFailed
                || s == KeeperState.Expired || s == KeeperState.Closed) {
                state = s;
                break;
            }
        }
        System.out.println("EVENT " + state);
        if (state != KeeperState.SaslAuthenticated) {
            zk.close();
            return;
        }
        List<String> ids = new ArrayList<>();
        for (ClientInfo ci : zk.whoAmI()) {
            ids.add(ci.getAuthScheme() + ":" + ci.getUser());
        }
        Collections.sort(ids);
        System.out.println("WHOAMI " + String.join(" ", ids));
        try {
            if (aclId.equals("-")) {
                zk.getData(path, false, null);
                System.out.println("READ ok");
            } else {
                List<ACL> acl = Collections.singletonList(new ACL(31, new Id("sasl", aclId)));
                zk.create(path, new byte[] {1}, acl, CreateMode.PERSISTENT);
                System.out.println("CREATE ok");
            }
        } catch (KeeperException e) {
            System.out.println((aclId.equals("-") ? "READ " : "CREATE ") + e.code());
        }
        zk.close();
    }
}
