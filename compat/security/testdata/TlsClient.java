import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;

// TlsClient connects to a ZooKeeper server with the Java client (or
// Curator) over TLS, as an operator configures it with zookeeper.* system
// properties, runs a few operations and prints what happened as FACT
// lines, which the test compares between servers.
//
// Arguments: address api(zk|curator|plain) keyStore(- for none)
// trustStore password connectSeconds op...
// ops: create:<path>[:<x509 DN>]  get:<path>  addauth  whoami
public class TlsClient {
    public static void main(String[] a) throws Exception {
        String addr = a[0], api = a[1], ks = a[2], ts = a[3], pw = a[4];
        int wait = Integer.parseInt(a[5]);
        if (!api.equals("plain")) {
            System.setProperty("zookeeper.client.secure", "true");
            System.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
            if (!ks.equals("-")) {
                System.setProperty("zookeeper.ssl.keyStore.location", ks);
                System.setProperty("zookeeper.ssl.keyStore.password", pw);
            }
            System.setProperty("zookeeper.ssl.trustStore.location", ts);
            System.setProperty("zookeeper.ssl.trustStore.password", pw);
        }
        List<String> ops = new ArrayList<>();
        for (int i = 6; i < a.length; i++) {
            ops.add(a[i]);
        }
        if (api.equals("curator")) {
            curator(addr, wait, ops);
        } else {
            zookeeper(addr, wait, ops);
        }
        System.exit(0);
    }

    static void zookeeper(String addr, int wait, List<String> ops) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(addr, 10000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        boolean ok = connected.await(wait, TimeUnit.SECONDS);
        System.out.println("FACT connected " + ok);
        if (ok) {
            for (String op : ops) {
                System.out.println("FACT " + op + " " + run(zk, op));
            }
        }
        zk.close();
    }

    static String run(ZooKeeper zk, String op) {
        String[] p = op.split(":", 3);
        try {
            switch (p[0]) {
            case "create":
                List<ACL> acl = ZooDefs.Ids.OPEN_ACL_UNSAFE;
                if (p.length > 2) {
                    acl = Collections.singletonList(new ACL(ZooDefs.Perms.ALL, new Id("x509", p[2])));
                }
                return zk.create(p[1], "v".getBytes(StandardCharsets.UTF_8), acl, CreateMode.PERSISTENT);
            case "get":
                return new String(zk.getData(p[1], false, null), StandardCharsets.UTF_8);
            case "addauth":
                zk.addAuthInfo("x509", new byte[0]);
                zk.exists("/", false);
                return "ok";
            case "whoami":
                List<String> ids = new ArrayList<>();
                for (ClientInfo ci : zk.whoAmI()) {
                    ids.add(ci.getAuthScheme() + ":" + ci.getUser());
                }
                Collections.sort(ids);
                return ids.toString();
            default:
                return "unknown op";
            }
        } catch (KeeperException e) {
            return e.code().toString();
        } catch (Exception e) {
            return e.getClass().getSimpleName();
        }
    }

    static void curator(String addr, int wait, List<String> ops) throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.newClient(addr, 10000, 5000, new RetryOneTime(500));
        c.start();
        boolean ok = c.blockUntilConnected(wait, TimeUnit.SECONDS);
        System.out.println("FACT connected " + ok);
        if (ok) {
            for (String op : ops) {
                System.out.println("FACT " + op + " " + run(c.getZookeeperClient().getZooKeeper(), op));
            }
        }
        c.close();
    }
}
