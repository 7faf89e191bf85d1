import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.zookeeper.server.quorum.flexible.QuorumHierarchical;
import org.apache.zookeeper.server.quorum.flexible.QuorumMaj;
import org.apache.zookeeper.server.quorum.flexible.QuorumVerifier;

/**
 * Asks Apache ZooKeeper's own quorum verifiers about random ensembles and
 * prints their answers: the fixture (testdata/java-verdicts.txt) that the
 * quorum package's tests hold gozk to. Usage: QuorumOracle SEED CASES.
 *
 * Each case is its configuration lines as they would stand in zoo.cfg,
 * the weight Java gives each server, then sets of server ids with Java's
 * verdict on each.
 */
public class QuorumOracle {
    public static void main(String[] args) throws Exception {
        Random rnd = new Random(Long.parseLong(args[0]));
        int cases = Integer.parseInt(args[1]);
        StringBuilder out = new StringBuilder();
        for (int c = 0; c < cases; c++) {
            writeCase(rnd, out);
        }
        System.out.print(out);
    }

    private static void writeCase(Random rnd, StringBuilder out) throws Exception {
        boolean hierarchical = rnd.nextBoolean();
        TreeSet<Long> ids = new TreeSet<>();
        int size = 1 + rnd.nextInt(9);
        while (ids.size() < size) {
            ids.add(1L + rnd.nextInt(40));
        }
        Map<Long, Boolean> observer = new TreeMap<>();
        for (long id : ids) {
            observer.put(id, rnd.nextInt(5) == 0);
        }
        if (!observer.containsValue(false)) {
            observer.put(ids.first(), false);
        }

        // The lines in the order they are written; Properties has none.
        Map<String, String> lines = new LinkedHashMap<>();
        for (long id : ids) {
            lines.put("server." + id, "127.0.0.1:" + (20000 + id) + ":" + (30000 + id) + ":"
                + (observer.get(id) ? "observer" : "participant"));
        }
        if (hierarchical) {
            int groups = 1 + rnd.nextInt(4);
            Map<Long, List<Long>> members = new TreeMap<>();
            for (long id : ids) {
                long gid = 1L + rnd.nextInt(groups);
                if (observer.get(id)) {
                    // An observer may sit in a group, with a weight.
                    if (rnd.nextInt(4) == 0) {
                        members.computeIfAbsent(gid, k -> new ArrayList<>()).add(id);
                        lines.put("weight." + id, Integer.toString(rnd.nextInt(3)));
                    }
                    continue;
                }
                members.computeIfAbsent(gid, k -> new ArrayList<>()).add(id);
                switch (rnd.nextInt(6)) {
                    case 0:
                        lines.put("weight." + id, "0");
                        break;
                    case 1:
                        lines.put("weight." + id, Integer.toString(2 + rnd.nextInt(4)));
                        break;
                    case 2:
                        lines.put("weight." + id, "1");
                        break;
                    default:
                        break; // Java's default weight, 1
                }
            }
            for (Map.Entry<Long, List<Long>> g : members.entrySet()) {
                StringJoiner sids = new StringJoiner(":");
                for (long id : g.getValue()) {
                    sids.add(Long.toString(id));
                }
                lines.put("group." + g.getKey(), sids.toString());
            }
        }

        Properties props = new Properties();
        props.putAll(lines);
        QuorumVerifier qv = hierarchical ? new QuorumHierarchical(props) : new QuorumMaj(props);

        out.append("case ").append(hierarchical ? "hierarchical" : "majority").append('\n');
        for (Map.Entry<String, String> l : lines.entrySet()) {
            out.append(l.getKey()).append('=').append(l.getValue()).append('\n');
        }
        for (long id : ids) {
            long weight;
            try {
                weight = qv.getWeight(id);
            } catch (NullPointerException unweighed) {
                continue; // QuorumHierarchical has no weight for this server
            }
            out.append("weight ").append(id).append(' ').append(weight).append('\n');
        }

        // Java's majority verifier counts whatever set it is given: its
        // callers give it voters only, so only voters are drawn for it.
        List<Long> pool = new ArrayList<>();
        for (long id : ids) {
            if (hierarchical || !observer.get(id)) {
                pool.add(id);
            }
        }
        if (hierarchical) {
            pool.add(99L); // in no group
        }
        List<TreeSet<Long>> sets = new ArrayList<>();
        sets.add(new TreeSet<>());
        TreeSet<Long> voters = new TreeSet<>();
        for (long id : ids) {
            if (!observer.get(id)) {
                voters.add(id);
            }
        }
        sets.add(voters);
        for (int s = 0; s < 14; s++) {
            TreeSet<Long> set = new TreeSet<>();
            for (long id : pool) {
                if (rnd.nextBoolean()) {
                    set.add(id);
                }
            }
            sets.add(set);
        }
        for (TreeSet<Long> set : sets) {
            StringJoiner members = new StringJoiner(",");
            for (long id : set) {
                members.add(Long.toString(id));
            }
            out.append("set ").append(members.toString().isEmpty() ? "-" : members.toString())
                .append(' ').append(qv.containsQuorum(set) ? "quorum" : "none").append('\n');
        }
        out.append("end\n");
    }
}
