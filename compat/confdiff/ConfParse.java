// ConfParse runs Apache ZooKeeper's own config parser
// (QuorumPeerConfig.parse, as QuorumPeerMain and ZooKeeperServerMain call
// it) over each zoo.cfg named on the command line and prints one line per
// file: "OK <distributed> <serverId> <servers>" or "ERR <messages>".
// When <file>.jvmflags exists, its -Dkey=value words are set as system
// properties first, as SERVER_JVMFLAGS would. Static state that the parser
// keeps between calls (standaloneEnabled, reconfigEnabled, the
// zookeeper.* properties set from zoo.cfg) is reset for every file.
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Properties;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;

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
            } catch (Throwable e) {
                StringBuilder sb = new StringBuilder("ERR");
                for (Throwable t = e; t != null; t = t.getCause()) {
                    sb.append(" | ").append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
                }
                System.out.println(sb.toString().replace('\n', ' '));
            }
        }
    }
}
