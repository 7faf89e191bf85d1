package sasl

import "errors"

// DigestServerConfig configures the DIGEST-MD5 server side.
type DigestServerConfig struct {
	// Protocol and ServerName make the digest-uri the server expects,
	// protocol/serverName: "zookeeper" and "zk-sasl-md5" on the client
	// port (the defaults when empty); the quorum uses "zookeeper-quorum"
	// and "zk-quorum-sasl-md5". ServerName is also the realm offered.
	Protocol   string
	ServerName string
	// Users maps user names to passwords (the JAAS user_NAME options).
	Users map[string]string
	// SuperPassword, when HasSuperPassword, is the password of "super".
	SuperPassword    string
	HasSuperPassword bool
	// RemoveHostFromPrincipal, RemoveRealmFromPrincipal shape the
	// authorization id as Java's SaslServerCallbackHandler does.
	RemoveHostFromPrincipal  bool
	RemoveRealmFromPrincipal bool
	// Property answers javax.security.sasl.qop and similar settings.
	Property func(name string) (string, bool)
	Logf     func(level, format string, args ...any)
}

// NewDigestServerFactory returns a factory of DIGEST-MD5 server exchanges.
func NewDigestServerFactory(cfg DigestServerConfig) (ServerFactory, error) {
	return nil, errors.New("sasl: DIGEST-MD5 not built yet")
}

// DigestClientConfig configures the DIGEST-MD5 client side.
type DigestClientConfig struct {
	Username string
	Password string
	// AuthorizationID is sent as authzid when not empty (Java's
	// ZooKeeper client sends none on the client port).
	AuthorizationID string
	// Protocol and ServerName as in DigestServerConfig (defaults
	// "zookeeper" and "zk-sasl-md5").
	Protocol   string
	ServerName string
	// QOP lists the qops the client accepts, strongest first as in
	// javax.security.sasl.qop ("auth" when empty).
	QOP []string
}

// NewDigestClient starts the client side of one DIGEST-MD5 exchange.
func NewDigestClient(cfg DigestClientConfig) (Client, error) {
	return nil, errors.New("sasl: DIGEST-MD5 not built yet")
}
