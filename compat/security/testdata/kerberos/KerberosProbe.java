import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.security.PrivilegedExceptionAction;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.login.LoginContext;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslServer;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;

/**
 * The JDK's side of the Kerberos interop tests.
 *
 *   saslclient SECTION SERVICE HOST   the JDK's GSSAPI SaslClient, logged in
 *                                     with the JAAS section, exchanging
 *                                     "TOKEN <base64>" lines on stdin/stdout
 *   saslserver SECTION SERVICE HOST   the JDK's GSSAPI SaslServer, the same way;
 *                                     ends with "DONE <authorization id>"
 *   zk CONNECT PATH ACLID|-           the ZooKeeper client (JAAS section
 *                                     "Client"): waits for the SASL outcome,
 *                                     prints WHOAMI, then creates PATH with
 *                                     the ACL sasl:ACLID:cdrwa, or reads it
 *                                     when ACLID is "-"
 */
public class KerberosProbe {
    static final BufferedReader IN = new BufferedReader(new InputStreamReader(System.in));

    static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b == null ? new byte[0] : b);
    }

    static byte[] readToken() throws Exception {
        String line = IN.readLine();
        if (line == null || !line.startsWith("TOKEN")) {
            throw new IllegalStateException("expected a TOKEN line, got " + line);
        }
        return Base64.getDecoder().decode(line.substring(5).trim());
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "saslclient": saslClient(args[1], args[2], args[3]); break;
            case "saslserver": saslServer(args[1], args[2], args[3]); break;
            case "zk": zk(args[1], args[2], args[3]); break;
            default: throw new IllegalArgumentException(args[0]);
        }
    }

    static Subject login(String section) throws Exception {
        LoginContext lc = new LoginContext(section);
        lc.login();
        return lc.getSubject();
    }

    static void saslClient(String section, String service, String host) throws Exception {
        Subject subject = login(section);
        String authz = subject.getPrincipals().iterator().next().getName();
        CallbackHandler none = (Callback[] cbs) -> { };
        SaslClient c = Subject.doAs(subject, (PrivilegedExceptionAction<SaslClient>) () ->
            Sasl.createSaslClient(new String[] {"GSSAPI"}, authz, service, host, null, none));
        byte[] tok = c.hasInitialResponse()
            ? Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () -> c.evaluateChallenge(new byte[0]))
            : new byte[0];
        System.out.println("TOKEN " + b64(tok));
        while (!c.isComplete()) {
            byte[] chal = readToken();
            byte[] resp = Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () -> c.evaluateChallenge(chal));
            System.out.println("TOKEN " + b64(resp));
        }
        System.out.println("DONE");
    }

    static void saslServer(String section, String service, String host) throws Exception {
        Subject subject = login(section);
        CallbackHandler authorize = (Callback[] cbs) -> {
            for (Callback cb : cbs) {
                if (cb instanceof AuthorizeCallback) {
                    AuthorizeCallback ac = (AuthorizeCallback) cb;
                    System.out.println("AUTHENTICATED " + ac.getAuthenticationID() + " AS " + ac.getAuthorizationID());
                    ac.setAuthorized(true);
                }
            }
        };
        SaslServer s = Subject.doAs(subject, (PrivilegedExceptionAction<SaslServer>) () ->
            Sasl.createSaslServer("GSSAPI", service, host, null, authorize));
        while (!s.isComplete()) {
            byte[] resp = readToken();
            byte[] chal = Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () -> s.evaluateResponse(resp));
            if (s.isComplete()) {
                break;
            }
            System.out.println("TOKEN " + b64(chal));
        }
        System.out.println("DONE " + s.getAuthorizationID());
    }

    static void zk(String connect, String path, String aclId) throws Exception {
        CountDownLatch outcome = new CountDownLatch(1);
        boolean[] authenticated = new boolean[1];
        Watcher w = e -> {
            Watcher.Event.KeeperState st = e.getState();
            if (st == Watcher.Event.KeeperState.SaslAuthenticated || st == Watcher.Event.KeeperState.AuthFailed) {
                System.out.println("EVENT " + st);
                authenticated[0] = st == Watcher.Event.KeeperState.SaslAuthenticated;
                outcome.countDown();
            }
        };
        ZooKeeper zk = new ZooKeeper(connect, 30000, w);
        try {
            if (!outcome.await(60, TimeUnit.SECONDS)) {
                System.out.println("EVENT none");
                return;
            }
            if (!authenticated[0]) {
                return;
            }
            try {
                List<ClientInfo> who = zk.whoAmI();
                StringBuilder sb = new StringBuilder("WHOAMI");
                for (ClientInfo ci : who) {
                    sb.append(' ').append(ci.getAuthScheme()).append(':').append(ci.getUser());
                }
                System.out.println(sb);
            } catch (Exception e) {
                System.out.println("WHOAMI " + e);
            }
            try {
                if (aclId.equals("-")) {
                    zk.getData(path, false, null);
                    System.out.println("READ ok");
                } else {
                    List<ACL> acl = Collections.singletonList(new ACL(ZooDefsPerms.ALL, new Id("sasl", aclId)));
                    zk.create(path, new byte[] {1}, acl, CreateMode.PERSISTENT);
                    System.out.println("CREATE ok");
                }
            } catch (KeeperException e) {
                System.out.println((aclId.equals("-") ? "READ " : "CREATE ") + e.code());
            }
        } finally {
            zk.close();
        }
    }

    static final class ZooDefsPerms {
        static final int ALL = org.apache.zookeeper.ZooDefs.Perms.ALL;
    }
}
