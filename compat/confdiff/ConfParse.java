// ConfParse runs Apache ZooKeeper's own config parser
// (QuorumPeerConfig.parse, as QuorumPeerMain and ZooKeeperServerMain call
// it) over each zoo.cfg named on the command line and prints one line per
// file: "OK <distributed> <serverId> <servers>" followed by "QV <the
// quorum verifier's text>", "NEXT <the last seen verifier's text>" (each
// on one line, newlines written as \n; "null" when there is none) and
// "CFG <key=value ...>" (the ensemble settings as the parser kept them),
// or "ERR <messages>".
// When <file>.jvmflags exists, its -Dkey=value words are set as system
// properties first, as SERVER_JVMFLAGS would. Static state that the parser
// keeps between calls (standaloneEnabled, reconfigEnabled, the
// zookeeper.* properties set from zoo.cfg) is reset for every file.
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Properties;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.flexible.QuorumVerifier;

public class ConfParse {
    public static void main(String[] args) throws Exception {
        Properties base = new Properties();
        base.putAll(System.getProperties());
        for (String path : args) {
            Properties fresh = new Properties();
            fresh.putAll(base);
            System.setProperties(fresh);
            QuorumPeerConfig.setStandaloneEnabled(true);
            QuorumPeerConfig.setReconfigEnabled(false);
            if (Files.exists(Paths.get(path + ".jvmflags"))) {
                for (String w : new String(Files.readAllBytes(Paths.get(path + ".jvmflags"))).trim().split("\\s+")) {
                    if (w.startsWith("-D")) {
                        int eq = w.indexOf('=');
                        if (eq < 0) {
                            System.setProperty(w.substring(2), "");
                        } else {
                            System.setProperty(w.substring(2, eq), w.substring(eq + 1));
                        }
                    }
                }
            }
            try {
                QuorumPeerConfig c = new QuorumPeerConfig();
                c.parse(path);
                int servers = c.getQuorumVerifier() == null ? 0 : c.getQuorumVerifier().getAllMembers().size();
                System.out.println("OK " + c.isDistributed() + " " + c.getServerId() + " " + servers);
                System.out.println("QV " + oneLine(c.getQuorumVerifier()));
                System.out.println("NEXT " + oneLine(c.getLastSeenQuorumVerifier()));
                System.out.println("CFG peerType=" + c.getPeerType().name().toLowerCase()
                    + " initLimit=" + c.getInitLimit() + " syncLimit=" + c.getSyncLimit()
                    + " connectToLearnerMasterLimit=" + c.getConnectToLearnerMasterLimit()
                    + " observerMasterPort=" + c.getObserverMasterPort()
                    + " quorumListenOnAllIPs=" + c.getQuorumListenOnAllIPs()
                    + " syncEnabled=" + c.getSyncEnabled()
                    + " reconfigEnabled=" + QuorumPeerConfig.isReconfigEnabled()
                    + " standaloneEnabled=" + QuorumPeerConfig.isStandaloneEnabled()
                    + " clientPort=" + (c.getClientPortAddress() == null ? 0 : c.getClientPortAddress().getPort()));
            } catch (Throwable e) {
                StringBuilder sb = new StringBuilder("ERR");
                for (Throwable t = e; t != null; t = t.getCause()) {
                    sb.append(" | ").append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
                }
                System.out.println(sb.toString().replace('\n', ' '));
            }
        }
    }

    static String oneLine(QuorumVerifier qv) {
        return qv == null ? "null" : qv.toString().replace("\n", "\\n");
    }
}
