// JavaOracle prints what Java says, for the expectations in this
// directory. It is not built by go; run it with a JDK and the Netty jar
// ZooKeeper ships:
//
//	javac -d /tmp/oracle JavaOracle.java -cp netty-handler.jar:netty-buffer.jar:netty-common.jar:netty-transport.jar:netty-codec.jar
//	java -cp /tmp/oracle:netty-handler.jar:netty-buffer.jar:netty-common.jar:netty-transport.jar:netty-codec.jar JavaOracle dn cert.pem...   # subject DNs
//	java -cp /tmp/oracle:netty-handler.jar:netty-buffer.jar:netty-common.jar:netty-transport.jar:netty-codec.jar JavaOracle suites          # supported cipher suites
//	java -cp /tmp/oracle:netty-handler.jar:netty-buffer.jar:netty-common.jar:netty-transport.jar:netty-codec.jar JavaOracle detect HEX...    # SslHandler.isEncrypted
//	java -cp /tmp/oracle:zookeeper.jar:slf4j-api.jar JavaOracle keystore|truststore PATH PASSWORD TYPE|-   # X509Util
//	java -cp /tmp/oracle JavaOracle protocols CONTEXT-PROTOCOL ENABLED,...   # SSLEngine.setEnabledProtocols
import java.io.FileInputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;

public class JavaOracle {
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
        case "dn":
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            for (int i = 1; i < args.length; i++) {
                try (FileInputStream in = new FileInputStream(args[i])) {
                    X509Certificate c = (X509Certificate) cf.generateCertificate(in);
                    System.out.println(c.getSubjectX500Principal().getName());
                }
            }
            break;
        case "suites":
            for (String s : SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites()) {
                System.out.println(s);
            }
            break;
        case "detect":
            for (int i = 1; i < args.length; i++) {
                byte[] b = new byte[args[i].length() / 2];
                for (int j = 0; j < b.length; j++) {
                    b[j] = (byte) Integer.parseInt(args[i].substring(2 * j, 2 * j + 2), 16);
                }
                try {
                    boolean tls = io.netty.handler.ssl.SslHandler.isEncrypted(io.netty.buffer.Unpooled.wrappedBuffer(b));
                    System.out.println(args[i] + " " + tls);
                } catch (IllegalArgumentException e) {
                    System.out.println(args[i] + " short"); // fewer than 5 bytes
                }
            }
            break;
        case "keystore": // path password type ("-": none); needs zookeeper.jar
        case "truststore":
            try {
                String type = args[3].equals("-") ? null : args[3];
                if (args[0].equals("keystore")) {
                    org.apache.zookeeper.common.X509Util.createKeyManager(args[1], args[2], type);
                } else {
                    org.apache.zookeeper.common.X509Util.createTrustManager(args[1], args[2], type, false, false, true, true);
                }
                System.out.println("ok");
            } catch (Exception e) {
                Throwable c = e;
                while (c.getCause() != null) {
                    c = c.getCause();
                }
                System.out.println("error: " + c);
            }
            break;
        case "protocols": // context-protocol enabled,protocols
            SSLContext ctx = SSLContext.getInstance(args[1]);
            ctx.init(null, null, null);
            javax.net.ssl.SSLEngine engine = ctx.createSSLEngine();
            try {
                engine.setEnabledProtocols(args[2].split(","));
                System.out.println("ok " + String.join(",", engine.getEnabledProtocols()));
            } catch (IllegalArgumentException e) {
                System.out.println("error: " + e.getMessage());
            }
            break;
        default:
            throw new IllegalArgumentException(args[0]);
        }
    }
}
