// DigestRecorder runs one DIGEST-MD5 exchange between the JDK's own
// SaslClient and SaslServer, set up as Apache ZooKeeper sets them up on the
// client port, and prints every token so that gozk's implementation can be
// checked against it byte for byte.
//
// Usage: java DigestRecorder.java USER PASSWORD SERVER_PASSWORD AUTHZID|- SERVER_QOP|- CLIENT_QOP|-
//
// Output lines: "challenge BASE64", "response BASE64", "complete AUTHZID QOP",
// "server-error MESSAGE", "client-error MESSAGE".
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.RealmCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

public class DigestRecorder {
    public static void main(String[] args) throws Exception {
        String user = args[0], password = args[1], serverPassword = args[2];
        String authzid = args[3].equals("-") ? null : args[3];
        Map<String, String> serverProps = new HashMap<>();
        if (!args[4].equals("-")) serverProps.put(Sasl.QOP, args[4]);
        Map<String, String> clientProps = new HashMap<>();
        if (!args[5].equals("-")) clientProps.put(Sasl.QOP, args[5]);

        SaslServer server = Sasl.createSaslServer("DIGEST-MD5", "zookeeper", "zk-sasl-md5", serverProps, callbacks -> {
            for (Callback cb : callbacks) {
                if (cb instanceof NameCallback) {
                    NameCallback nc = (NameCallback) cb;
                    nc.setName(nc.getDefaultName());
                } else if (cb instanceof PasswordCallback) {
                    ((PasswordCallback) cb).setPassword(serverPassword.toCharArray());
                } else if (cb instanceof RealmCallback) {
                    RealmCallback rc = (RealmCallback) cb;
                    rc.setText(rc.getDefaultText());
                } else if (cb instanceof AuthorizeCallback) {
                    AuthorizeCallback ac = (AuthorizeCallback) cb;
                    ac.setAuthorized(true);
                    ac.setAuthorizedID(ac.getAuthenticationID());
                }
            }
        });
        SaslClient client = Sasl.createSaslClient(new String[] {"DIGEST-MD5"}, authzid, "zookeeper", "zk-sasl-md5", clientProps, callbacks -> {
            for (Callback cb : callbacks) {
                if (cb instanceof NameCallback) {
                    ((NameCallback) cb).setName(user);
                } else if (cb instanceof PasswordCallback) {
                    ((PasswordCallback) cb).setPassword(password.toCharArray());
                } else if (cb instanceof RealmCallback) {
                    RealmCallback rc = (RealmCallback) cb;
                    rc.setText(rc.getDefaultText());
                }
            }
        });
        Base64.Encoder b64 = Base64.getEncoder();
        byte[] response = new byte[0];
        while (true) {
            byte[] challenge;
            try {
                challenge = server.evaluateResponse(response);
            } catch (SaslException e) {
                System.out.println("server-error " + e.getMessage());
                return;
            }
            System.out.println("challenge " + b64.encodeToString(challenge == null ? new byte[0] : challenge));
            if (server.isComplete()) {
                try {
                    client.evaluateChallenge(challenge);
                } catch (SaslException e) {
                    System.out.println("client-error " + e.getMessage());
                    return;
                }
                System.out.println("complete " + server.getAuthorizationID() + " " + server.getNegotiatedProperty(Sasl.QOP) + " " + client.isComplete());
                return;
            }
            try {
                response = client.evaluateChallenge(challenge);
            } catch (SaslException e) {
                System.out.println("client-error " + e.getMessage());
                return;
            }
            System.out.println("response " + b64.encodeToString(response));
        }
    }
}
