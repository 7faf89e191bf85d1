// X509Peer makes one TLS connection with ZooKeeper 3.8.0's own
// X509Util (QuorumX509Util or ClientX509Util, configured by the
// zookeeper.ssl.* system properties), for tlsconf_test.go:
//
//	java -cp zookeeper.jar:slf4j-api.jar:. X509Peer quorum|client connect HOST PORT
//	java -cp zookeeper.jar:slf4j-api.jar:. X509Peer quorum|client accept
//
// "accept" prints "port N" once listening on an ephemeral loopback port.
// After the handshake each side writes one byte and reads one. The last
// line is "ok PEER-DN" (the peer's X500Principal.getName(), "none"
// without a peer certificate) or "error EXCEPTION".
import java.net.InetAddress;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.QuorumX509Util;
import org.apache.zookeeper.common.X509Util;

public class X509Peer {
    public static void main(String[] args) throws Exception {
        X509Util util = args[0].equals("quorum") ? new QuorumX509Util() : new ClientX509Util();
        try {
            SSLSocket socket;
            if (args[1].equals("connect")) {
                socket = util.createSSLSocket();
                socket.connect(new InetSocketAddress(args[2], Integer.parseInt(args[3])), 30000);
            } else {
                SSLServerSocket server = util.createSSLServerSocket();
                server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
                System.out.println("port " + server.getLocalPort());
                System.out.flush();
                socket = (SSLSocket) server.accept();
            }
            socket.setSoTimeout(30000);
            socket.startHandshake();
            String peer;
            try {
                peer = socket.getSession().getPeerPrincipal().getName();
            } catch (SSLPeerUnverifiedException e) {
                peer = "none";
            }
            socket.getOutputStream().write(1);
            socket.getOutputStream().flush();
            if (socket.getInputStream().read() < 0) {
                throw new java.io.EOFException("peer closed");
            }
            System.out.println("ok " + peer);
        } catch (Exception e) {
            System.out.println("error " + e);
        }
    }
}
