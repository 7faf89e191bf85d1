package conf

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Config is a parsed zoo.cfg plus the -D system properties in effect.
// Each field names the zoo.cfg key it comes from; keys that Java takes as
// system properties are also read from -Dzookeeper.<key> flags.
type Config struct {
	File string // the zoo.cfg path, "" for the built-in defaults

	ClientPort              int    // clientPort (0: none)
	ClientPortAddress       string // clientPortAddress ("": all interfaces)
	SecureClientPort        int    // secureClientPort (0: none)
	SecureClientPortAddress string // secureClientPortAddress
	ClientPortListenBacklog int    // clientPortListenBacklog (-1: the OS default)
	DataDir                 string // dataDir
	DataLogDir              string // dataLogDir ("": dataDir)
	TickTime                time.Duration
	MinSessionTimeout       int32         // minSessionTimeout, ms (defaults to 2 x tickTime)
	MaxSessionTimeout       int32         // maxSessionTimeout, ms (defaults to 20 x tickTime)
	MaxClientCnxns          int           // maxClientCnxns, per client IP; 0 unlimited
	MaxCnxns                int           // maxCnxns, in all; 0 unlimited
	GlobalOutstandingLimit  int           // globalOutstandingLimit
	NumSelectorThreads      int           // zookeeper.nio.numSelectorThreads: event loops; 0 = sqrt(CPUs/2), at least 1
	SessionlessCnxnTimeout  time.Duration // zookeeper.nio.sessionlessCnxnTimeout (ms): time to send the ConnectRequest
	// TLSHandshakeLimit is zookeeper.netty.server.outstandingHandshake.limit:
	// above 0, with client.portUnification, a connection arriving while
	// that many are being told TLS or plain or are in their handshakes is
	// closed at once (Java 3.8 throttles a unified port so, never its
	// secure port); -1 by default, no limit.
	TLSHandshakeLimit int
	// EarlyDropSecureHandshakes is
	// zookeeper.netty.server.earlyDropSecureConnectionHandshakes: while
	// an ensemble member does not serve, connections to the secure
	// client port are closed before their TLS handshake.
	EarlyDropSecureHandshakes bool
	// ConnectionThrottle is the zookeeper.connection_throttle_* family
	// (connthrottle.go); off unless its Tokens is set.
	ConnectionThrottle ConnectionThrottle
	SnapCount          int // snapCount
	// A leader's sync decision (Java's ZKDatabase and LearnerHandler):
	// zookeeper.commitLogCount committed txns kept in memory for DIFFs,
	// zookeeper.snapshotSizeFactor (a DIFF from the txn log may be this
	// share of the snapshot's size; negative: never),
	// zookeeper.forceSnapshotSync (always SNAP).
	CommitLogCount     int
	SnapshotSizeFactor float64
	ForceSnapshotSync  bool
	// An observer's pauses (Java's Observer): before electing again once
	// its leader or observer master is lost, a random wait below
	// zookeeper.observer.election.DelayMs; before dialling the leader, or
	// once every observer master has been tried, one below
	// zookeeper.observer.reconnectDelayMs. Both spread observers' returns
	// so that they do not all load the leader at once.
	ObserverElectionDelay  time.Duration
	ObserverReconnectDelay time.Duration
	// InitialZxid is zookeeper.testingonly.initialZxid: the counter a
	// new leader's zxids start from (-1: 0), for testing the counter's
	// rollover as Java allows.
	InitialZxid            int64
	SkipACL                bool          // skipACL=yes
	ForceSync              bool          // forceSync (not "no")
	FsyncWarning           time.Duration // fsync.warningthresholdms
	JuteMaxBuffer          int           // -Djute.maxbuffer (also accepted in zoo.cfg)
	JuteMaxBufferExtra     int           // jute.maxbuffer.extrasize; -1 = same as JuteMaxBuffer
	ExtendedTypesEnabled   bool          // extendedTypesEnabled
	ContainerCheckInterval time.Duration // -Dznode.container.checkIntervalMs
	ContainerMaxPerMinute  int           // -Dznode.container.maxPerMinute
	ContainerMaxNeverUsed  time.Duration // -Dznode.container.maxNeverUsedIntervalMs
	EnforceQuota           bool          // enforceQuota
	SuperDigest            string        // DigestAuthenticationProvider.superDigest
	DigestAuthEnabled      bool          // DigestAuthenticationProvider.enabled
	DigestAlg              string        // DigestAuthenticationProvider.digestAlg
	DigestEnabled          bool          // digest.enabled
	ReconfigEnabled        bool          // reconfigEnabled
	StandaloneEnabled      bool          // standaloneEnabled
	FourLetterWhitelist    string        // 4lw.commands.whitelist
	AuthProviders          []string      // authProvider.<x>
	EnforceAuthEnabled     bool          // zookeeper.enforce.auth.enabled
	EnforceAuthSchemes     []string      // zookeeper.enforce.auth.schemes
	RequireClientSASLAuth  bool          // zookeeper.sessionRequireClientSASLAuth
	SASL                   SASLConfig    // client-port SASL properties (saslprops.go)
	LocalSessionsEnabled   bool          // localSessionsEnabled
	// DataDirAutocreate is datadir.autocreate: when false the server
	// refuses to start if dataDir or dataLogDir does not exist.
	DataDirAutocreate             bool
	LocalSessionsUpgradingEnabled bool // localSessionsUpgradingEnabled

	// AdminEnableServer is admin.enableServer: the AdminServer runs unless
	// it is exactly "false" (Java 3.8).
	AdminEnableServer bool
	// AdminServerAddress is admin.serverAddress, the AdminServer's bind
	// address (default 0.0.0.0).
	AdminServerAddress string
	// AdminServerPort is admin.serverPort (default 8080).
	AdminServerPort int
	// AdminCommandURL is admin.commandURL, the URL prefix of the commands
	// (default /commands).
	AdminCommandURL string
	// AdminIdleTimeout is admin.idleTimeout (ms in zoo.cfg, default 30000).
	AdminIdleTimeout time.Duration
	// AdminPortUnification is admin.portUnification: the AdminServer
	// takes HTTPS and HTTP on its port; AdminForceHTTPS is
	// admin.forceHttps: HTTPS only (it wins). Both use the ssl.quorum.*
	// stores.
	AdminPortUnification bool
	AdminForceHTTPS      bool

	// MetricsProviderClassName is metricsProvider.className; the Prometheus
	// provider is PrometheusMetricsProviderClass.
	MetricsProviderClassName string
	// MetricsHTTPHost is metricsProvider.httpHost, the Prometheus endpoint's
	// bind address (default 0.0.0.0).
	MetricsHTTPHost string
	// MetricsHTTPPort is metricsProvider.httpPort (default 7000).
	MetricsHTTPPort int
	// MetricsExportJVMInfo is metricsProvider.exportJvmInfo (default true;
	// gozk exports Go runtime metrics in its place).
	MetricsExportJVMInfo bool
	// MetricsProviderConfig holds every metricsProvider.<x> key but the
	// class name, keyed by <x>, as Java hands them to the provider.
	MetricsProviderConfig map[string]string

	// AutopurgeSnapRetainCount is autopurge.snapRetainCount: snapshots (and
	// the logs needed to replay them) to keep; at least 3.
	AutopurgeSnapRetainCount int
	// AutopurgeInterval is autopurge.purgeInterval (hours in zoo.cfg); 0
	// (or negative) turns autopurge off.
	AutopurgeInterval time.Duration

	// ClientTLS holds the ssl.* keys, QuorumTLS the ssl.quorum.* keys (TLS
	// between servers and for the AdminServer).
	ClientTLS TLSConfig
	QuorumTLS TLSConfig
	// ClientPortUnification is client.portUnification: the plain client
	// port also accepts TLS.
	ClientPortUnification bool
	// ClientCertReload is client.certReload.
	ClientCertReload bool

	Quorum QuorumConfig

	// Warnings are settings Java accepts with a warning (a value raised to
	// its minimum, ...), each "file:line: key: message".
	Warnings []string

	// Properties holds every key as given (zoo.cfg keys and -D flags; a
	// zoo.cfg key overrides a -D flag of the same name), for the conf and
	// envi commands and for later features.
	Properties map[string]Property
	// System holds the system properties in effect as Java would have
	// them: the -D flags, then every zoo.cfg key the config parser does not
	// know as zookeeper.<key>.
	System map[string]Property
}

// QuorumConfig is the part of zoo.cfg that concerns an ensemble.
type QuorumConfig struct {
	// ServerID is the number in <dataDir>/myid, -1 when there is none.
	ServerID int64
	// Ensemble is the server.N/group.N/weight.N description (from zoo.cfg
	// or from dynamicConfigFile); it has no servers in a plain standalone
	// config.
	Ensemble *Ensemble
	// Next is the proposed configuration in <zoo.cfg>.dynamic.next, when
	// that file exists next to a dynamicConfigFile.
	Next *Ensemble
	// Distributed is Java's isDistributed: more than one participant, or
	// standaloneEnabled=false.
	Distributed bool

	InitLimit                   int         // initLimit, ticks
	SyncLimit                   int         // syncLimit, ticks
	ConnectToLearnerMasterLimit int         // connectToLearnerMasterLimit, ticks (0: initLimit)
	ElectionAlg                 int         // electionAlg (only 3)
	ElectionPortBindRetry       int         // electionPortBindRetry (0: forever)
	PeerType                    LearnerType // peerType; the server list wins
	QuorumListenOnAllIPs        bool        // quorumListenOnAllIPs
	SyncEnabled                 bool        // syncEnabled (observers log and snapshot)
	DynamicConfigFile           string      // dynamicConfigFile
	ObserverMasterPort          int         // observerMasterPort (0: none)
	SSLQuorum                   bool        // sslQuorum
	PortUnification             bool        // portUnification
	SSLQuorumReloadCertFiles    bool        // sslQuorumReloadCertFiles
	CnxnThreads                 int         // quorum.cnxn.threads.size
	OraclePath                  string      // oraclePath

	// The quorum.auth.* keys (SASL between servers).
	AuthEnableSASL          bool   // quorum.auth.enableSasl
	AuthServerRequireSASL   bool   // quorum.auth.serverRequireSasl
	AuthLearnerRequireSASL  bool   // quorum.auth.learnerRequireSasl
	AuthLearnerLoginContext string // quorum.auth.learner.saslLoginContext
	AuthServerLoginContext  string // quorum.auth.server.saslLoginContext
	AuthServicePrincipal    string // quorum.auth.kerberos.servicePrincipal

	// MultiAddressEnabled is multiAddress.enabled. Java 3.8 parses server
	// lines with pipes only when -Dzookeeper.multiAddress.enabled=true is
	// set, whatever this key says; gozk does the same.
	MultiAddressEnabled                  bool
	MultiAddressReachabilityCheckTimeout time.Duration // multiAddress.reachabilityCheckTimeoutMs
	MultiAddressReachabilityCheckEnabled bool          // multiAddress.reachabilityCheckEnabled

	// The election port's system properties.
	CnxTimeout              time.Duration // zookeeper.cnxTimeout: a dial to a peer's election port (5 s)
	QuorumCnxnTimeout       time.Duration // zookeeper.quorumCnxnTimeoutMs: the handshake's read timeout; 0 = tickTime x syncLimit
	MinNotificationInterval time.Duration // zookeeper.fastleader.minNotificationInterval (200 ms)
	MaxNotificationInterval time.Duration // zookeeper.fastleader.maxNotificationInterval (60 s)
}

// Self returns this server's line (the one whose id is myid). Java's
// parser accepts a myid that has no line; its QuorumPeer then fails to
// start with "My id N not in the peer list", which an ensemble must
// match.
func (q *QuorumConfig) Self() (*ServerSpec, bool) {
	if q.Ensemble == nil || q.ServerID < 0 {
		return nil, false
	}
	s, ok := q.Ensemble.Servers[q.ServerID]
	return s, ok
}

// ReconfigWarning is the line a server logs as it starts with an
// ensemble's zoo.cfg that sets reconfigEnabled=true, "" otherwise: gozk
// runs the membership it reads (server lines of zoo.cfg, or of its
// dynamicConfigFile) and does not change it. Unlike Java, it neither
// moves server lines out of zoo.cfg into a zoo.cfg.dynamic.<version>
// file nor rewrites zoo.cfg.
func (c *Config) ReconfigWarning() string {
	if !c.ReconfigEnabled || !c.Quorum.Distributed || c.Quorum.Ensemble == nil {
		return ""
	}
	file := c.Quorum.Ensemble.File
	if file == "" {
		file = c.File
	}
	return "dynamic reconfiguration is not supported by this gozk; the ensemble's membership is the static one in " + file
}

// TLSConfig is the ssl.* (or ssl.quorum.*) keys.
type TLSConfig struct {
	KeyStoreLocation           string        // ssl.keyStore.location
	KeyStorePassword           string        // ssl.keyStore.password
	KeyStorePasswordPath       string        // ssl.keyStore.passwordPath
	KeyStoreType               string        // ssl.keyStore.type ("": by extension)
	TrustStoreLocation         string        // ssl.trustStore.location
	TrustStorePassword         string        // ssl.trustStore.password
	TrustStorePasswordPath     string        // ssl.trustStore.passwordPath
	TrustStoreType             string        // ssl.trustStore.type
	Protocol                   string        // ssl.protocol
	EnabledProtocols           []string      // ssl.enabledProtocols
	CipherSuites               []string      // ssl.ciphersuites
	ClientAuth                 string        // ssl.clientAuth: none, want or need (default need)
	HostnameVerification       bool          // ssl.hostnameVerification (default true)
	ClientHostnameVerification bool          // ssl.clientHostnameVerification
	CRL                        bool          // ssl.crl
	OCSP                       bool          // ssl.ocsp
	HandshakeDetectionTimeout  time.Duration // ssl.handshakeDetectionTimeoutMillis
	AuthProvider               string        // ssl.authProvider (default x509)
}

// Defaults is what `gozk server` runs with when no zoo.cfg is given:
// standalone on 127.0.0.1:2181 with its data in ./data.
func Defaults() *Config {
	return &Config{
		ClientPort:              2181,
		ClientPortAddress:       "127.0.0.1",
		DataDir:                 "data",
		TickTime:                2000 * time.Millisecond,
		MinSessionTimeout:       4000,  // 2 x tickTime
		MaxSessionTimeout:       40000, // 20 x tickTime
		DataDirAutocreate:       true,
		MaxClientCnxns:          60,
		GlobalOutstandingLimit:  1000,
		SessionlessCnxnTimeout:  10 * time.Second,
		TLSHandshakeLimit:       -1,
		ConnectionThrottle:      defaultConnectionThrottle(),
		SnapCount:               100000,
		CommitLogCount:          500,
		InitialZxid:             -1,
		SnapshotSizeFactor:      0.33,
		ObserverElectionDelay:   200 * time.Millisecond,
		ForceSync:               true,
		FsyncWarning:            time.Second,
		JuteMaxBuffer:           0xfffff,
		JuteMaxBufferExtra:      -1,
		ContainerCheckInterval:  time.Minute,
		ContainerMaxPerMinute:   10000,
		DigestAuthEnabled:       true,
		DigestAlg:               "SHA1",
		DigestEnabled:           true,
		StandaloneEnabled:       true,
		FourLetterWhitelist:     "srvr",
		Properties:              map[string]Property{},
		System:                  map[string]Property{},
		ClientPortListenBacklog: -1,
		MetricsProviderConfig:   map[string]string{},
		ClientTLS:               defaultTLS(),
		QuorumTLS:               defaultTLS(),
		Quorum: QuorumConfig{
			ServerID:                             -1,
			Ensemble:                             &Ensemble{Servers: map[int64]*ServerSpec{}},
			ElectionAlg:                          3,
			ElectionPortBindRetry:                3,
			SyncEnabled:                          true,
			CnxnThreads:                          20,
			AuthLearnerLoginContext:              "QuorumLearner",
			AuthServerLoginContext:               "QuorumServer",
			AuthServicePrincipal:                 "zkquorum/localhost",
			MultiAddressReachabilityCheckTimeout: time.Second,
			MultiAddressReachabilityCheckEnabled: true,
			CnxTimeout:                           5 * time.Second,
			MinNotificationInterval:              200 * time.Millisecond,
			MaxNotificationInterval:              60 * time.Second,
		},

		AdminEnableServer:        true,
		AdminServerAddress:       "0.0.0.0",
		AdminServerPort:          8080,
		AdminCommandURL:          "/commands",
		AdminIdleTimeout:         30 * time.Second,
		MetricsProviderClassName: DefaultMetricsProviderClass,
		MetricsHTTPHost:          "0.0.0.0",
		MetricsHTTPPort:          7000,
		MetricsExportJVMInfo:     true,
		AutopurgeSnapRetainCount: 3,
	}
}

func defaultTLS() TLSConfig {
	return TLSConfig{ClientAuth: "need", HostnameVerification: true, HandshakeDetectionTimeout: 5 * time.Second, AuthProvider: "x509"}
}

// The metricsProvider.className values Java 3.8 ships.
const (
	DefaultMetricsProviderClass    = "org.apache.zookeeper.metrics.impl.DefaultMetricsProvider"
	PrometheusMetricsProviderClass = "org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider"
)

// PrometheusEnabled reports whether metricsProvider.className selects the
// Prometheus provider (the /metrics endpoint on MetricsHTTPHost:Port).
func (c *Config) PrometheusEnabled() bool {
	return c.MetricsProviderClassName == PrometheusMetricsProviderClass
}

// Error is a configuration mistake with its place.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
	case e.Key != "":
		return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ClientAddr returns clientPortAddress:clientPort (all interfaces when no
// address is set, as Java binds).
func (c *Config) ClientAddr() string {
	host := c.ClientPortAddress
	if host == "" {
		host = "0.0.0.0"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(c.ClientPort))
}
