package org.apache.zookeeper.server.quorum;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.FileReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.StringJoiner;

/**
 * Answers testdata/java-wire-cases.txt with Apache ZooKeeper's own election
 * code (hence its package: buildMsg is package-private): the bytes
 * FastLeaderElection sends for each notification, and what
 * QuorumCnxManager.InitialMessage makes of each initial message. The
 * output is testdata/java-wire.txt, which the fle package's tests read.
 */
public class FleOracle {
    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new FileReader(args[0]))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("#") || line.isEmpty()) {
                    continue;
                }
                String[] f = line.split(" ");
                if (f[0].equals("notification")) {
                    byte[] config = f[6].equals("-") ? new byte[0] : unhex(f[6]);
                    ByteBuffer b = FastLeaderElection.buildMsg(Integer.parseInt(f[1]), Long.parseLong(f[2]),
                        Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), config);
                    out.append(line).append(" -> ").append(hex(b.array())).append('\n');
                } else {
                    out.append(line).append(" -> ").append(initial(unhex(f[1]))).append('\n');
                }
            }
        }
        System.out.print(out);
    }

    /** What the receiving side of QuorumCnxManager makes of an initial message. */
    private static String initial(byte[] msg) {
        DataInputStream din = new DataInputStream(new ByteArrayInputStream(msg));
        try {
            long first = din.readLong();
            if (first >= 0) {
                return "sid " + first;
            }
            QuorumCnxManager.InitialMessage m = QuorumCnxManager.InitialMessage.parse(first, din);
            StringJoiner addrs = new StringJoiner("|");
            for (InetSocketAddress a : m.electionAddr) {
                addrs.add(a.getHostString() + ":" + a.getPort());
            }
            return "sid " + m.sid + " addrs " + (addrs.length() == 0 ? "-" : addrs.toString());
        } catch (Exception e) {
            return "refused";
        }
    }

    private static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }
}
