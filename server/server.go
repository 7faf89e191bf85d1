package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/rs/zerolog"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/internal/ratelog"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/netio"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/sasl"
	"github.com/gozk/gozk/watches"
)

// Config is what a standalone server needs; conf turns a zoo.cfg into it.
type Config struct {
	ClientAddr             string        // clientPortAddress:clientPort
	DataDir                string        // dataDir
	DataLogDir             string        // dataLogDir ("" = DataDir)
	TickTime               time.Duration // tickTime
	MinSessionTimeout      int32         // ms; 0 = 2 x tickTime
	MaxSessionTimeout      int32         // ms; 0 = 20 x tickTime
	MaxClientCnxns         int           // per IP, 0 = unlimited
	MaxCnxns               int           // zookeeper.maxCnxns, 0 = unlimited
	GlobalOutstandingLimit int           // default 1000
	EventLoops             int           // network event loops; 0 = netio.DefaultLoops()
	SessionlessTimeout     time.Duration // zookeeper.nio.sessionlessCnxnTimeout; 0 = 10 s
	SnapCount              int           // zookeeper.snapCount
	SnapRetainCount        int           // autopurge.snapRetainCount (at least 3)
	PurgeInterval          time.Duration // autopurge.purgeInterval; 0 = off
	JuteMaxBuffer          int           // jute.maxbuffer
	JuteMaxBufferExtra     int           // zookeeper.jute.maxbuffer.extrasize, -1 = same as JuteMaxBuffer
	ExtendedTypesEnabled   bool          // zookeeper.extendedTypesEnabled
	ContainerCheckInterval time.Duration // znode.container.checkIntervalMs
	ContainerMaxPerMinute  int           // znode.container.maxPerMinute
	ContainerMaxNeverUsed  time.Duration // znode.container.maxNeverUsedIntervalMs
	EnforceQuota           bool          // zookeeper.enforceQuota
	DigestEnabled          bool          // zookeeper.digest.enabled
	ReconfigEnabled        bool          // reconfigEnabled
	ForceSync              bool          // zookeeper.forceSync
	FsyncWarning           time.Duration // fsync.warningthresholdms
	ACL                    acl.Config    // skipACL, superDigest, providers
	SASL                   SASLConfig    // SASL on the client port (sasl.go)
	Logger                 zerolog.Logger
	// The secure client port. ClientTLS is the server side of the ssl.*
	// keys (tlsconf's ServerConfig); with it, SecureClientAddr
	// (secureClientPortAddress:secureClientPort, "" for none) is served,
	// and with PortUnification (client.portUnification) TLS clients of
	// ClientAddr too. ClientAddr may be "" when SecureClientAddr is set.
	// A verified client certificate gives its connection the x509
	// identities (acl.Checker.X509Identities) at once.
	ClientTLS                 *tls.Config
	SecureClientAddr          string
	PortUnification           bool
	HandshakeDetectionTimeout time.Duration // ssl.handshakeDetectionTimeoutMillis
	TLSHandshakeLimit         int           // zookeeper.netty.server.outstandingHandshake.limit (a unified port only); 0 or below = none
	// EarlyDropSecureHandshakes is
	// zookeeper.netty.server.earlyDropSecureConnectionHandshakes: while
	// the server does not serve (an ensemble member electing or
	// syncing), a connection to the secure port is closed before its TLS
	// handshake, not after it at the ConnectRequest.
	EarlyDropSecureHandshakes bool
	// ConnThrottle is Java's connection throttle (connthrottle.go); its
	// zero value lets every connection through.
	ConnThrottle ConnThrottle
	// Ensemble makes the server an ensemble member: Open loads the data
	// but serves no client, prepares no write and expires no session
	// until its peer starts a role (StartLearning, StartLeading).
	Ensemble bool
	// ServerID is myid: an ensemble member's session ids carry it in
	// their top byte. A standalone server uses 1, as Java's does.
	ServerID int64
	// QuorumConfig is an ensemble member's configuration as Java writes
	// it into /zookeeper/config (server.N lines, then version=), and
	// QuorumConfigVersion its version.
	QuorumConfig        string
	QuorumConfigVersion int64
	// FourLetterWhitelist is 4lw.commands.whitelist (default "srvr").
	FourLetterWhitelist string
	// FourLetterWords answers whitelisted 4lw commands; nil answers only
	// ruok and isro.
	FourLetterWords func(cmd string) []byte
	// StatsDisabled stops recording per-request statistics (packets,
	// latencies, per-connection stats); gozk.stats.disabled=true, a gozk
	// extension for measuring what recording costs.
	StatsDisabled bool
	// FS is the file system of dataDir and dataLogDir; nil means the
	// operating system's. Tests put Pebble's crashable in-memory file
	// system here, or a wrapper that injects disk faults.
	FS vfs.FS
}

// Defaults returns the configuration of `gozk server` without a zoo.cfg.
func Defaults() Config {
	return Config{
		ClientAddr:             "127.0.0.1:2181",
		DataDir:                "data",
		TickTime:               2000 * time.Millisecond,
		MaxClientCnxns:         60,
		GlobalOutstandingLimit: 1000,
		SnapCount:              100000,
		SnapRetainCount:        persistence.MinSnapRetainCount,
		JuteMaxBuffer:          jute.DefaultMaxBuffer,
		JuteMaxBufferExtra:     -1,
		ContainerCheckInterval: time.Minute,
		ContainerMaxPerMinute:  10000,
		FourLetterWhitelist:    "srvr",
		DigestEnabled:          true,
		ForceSync:              true,
		FsyncWarning:           time.Second,
		ACL:                    acl.Config{DigestEnabled: true, DigestAlg: "SHA1"},
		Logger:                 zerolog.Nop(),
	}
}

// Server is a running standalone gozk.
type Server struct {
	cfg        Config
	logger     zerolog.Logger
	fieldLimit int

	tree    *db.Tree
	watches *watches.Manager
	acl     *acl.Checker
	sasl    sasl.ServerFactory // nil: SASL packets get a null token
	store   *persistence.Store
	txnLog  *persistence.TxnLog // store.Log()
	tracker *sessionTracker
	net     *netio.Server

	throttle    *connThrottle // zookeeper.connection_throttle_*
	throttleLog ratelog.Every

	prep      *prepStage
	prepQueue *requestQueue // writes waiting for writeLoop
	finalDone chan struct{} // closed when writeLoop has finished

	// Owned by writeLoop: the connections whose output the current batch
	// holds, and the encoding buffer of its watch notifications.
	held        []*connection
	releasing   []*netio.Conn
	notifyFrame jute.Writer

	// applyMu orders "apply a txn and fire its watches" against "read and
	// register a watch" (see the package comment).
	applyMu sync.RWMutex

	// Snapshots: the sync stage counts logged txns (sinceSnap, snapAfter
	// are its own) and pokes snapTrigger unless a snapshot is being
	// written (snapping); snapMu admits one snapshot at a time.
	sinceSnap, snapAfter int
	snapTrigger          chan struct{}
	snapMu               sync.Mutex
	snapping             atomic.Bool

	outstanding atomic.Int64
	roles       roleState // an ensemble member's role (role.go)

	// Ensemble members only (learner.go, leader.go): the learner's
	// pipeline while following or observing, the leader's term while
	// leading, the log of what a leader sends, and the zxid of a
	// snapshot a SNAP put in place of the tree, until it is written.
	learner         atomic.Pointer[learnerState]
	leading         atomic.Pointer[leaderRun]
	ens             *learnerLog
	ensembleDone    chan struct{}
	snapReplaced    int64
	fourLetterWords func(cmd string) []byte
	mon             *monitor // statistics for the monitoring commands (monitor.go)

	// fuzzy: the tree may hold effects of txns after its last zxid, so
	// its digest is not yet the leader's. A SNAP's stream is walked by
	// the leader while it keeps applying, and a tree recovered from a
	// snapshot that recorded no digest may be such a stream's. Meanwhile
	// a learner reports no digest mismatch and its snapshots record no
	// digest (recovery could not match it). It ends at the first txn
	// after which the digests match, when this server leads, or at the
	// first PING of the broadcast (endFuzzyWindow). fuzzyMu guards
	// fuzzyDigest: the leader's digest after the last txn applied while
	// fuzzy, compared when the window ends.
	fuzzy       atomic.Bool
	fuzzyMu     sync.Mutex
	fuzzyDigest zxidDigest

	stop      chan struct{}
	bg        sync.WaitGroup
	closeOnce sync.Once
	fatalErr  atomic.Pointer[error]
	failed    chan struct{}
	failOnce  sync.Once
}

// Start opens the data directory, replays the txn log, and serves clients
// on cfg.ClientAddr: Open, then a client port wired to the server
// (netio.Listen with ClientPortConfig), then Serve.
func Start(cfg Config) (*Server, error) {
	s, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := netio.Listen(s.ClientPortConfig(), s)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("listening on %s: %w", cfg.ClientAddr, err)
	}
	s.Serve(ln)
	return s, nil
}

// Open opens the data directory, replays the txn log and starts the
// request pipeline and the session, container, snapshot and purge loops.
// It serves no client: the owner wires a client port to the server (the
// server is its netio.Handler) and hands it over with Serve. An ensemble
// member keeps the data and the pipeline while it stops serving clients
// (electing, syncing), which is why the two are apart.
func Open(cfg Config) (*Server, error) {
	if cfg.TickTime <= 0 {
		return nil, errors.New("tickTime must be positive")
	}
	tick := int32(cfg.TickTime.Milliseconds())
	if cfg.MinSessionTimeout <= 0 {
		cfg.MinSessionTimeout = 2 * tick
	}
	if cfg.MaxSessionTimeout <= 0 {
		cfg.MaxSessionTimeout = 20 * tick
	}
	if cfg.MinSessionTimeout > cfg.MaxSessionTimeout {
		return nil, fmt.Errorf("minSessionTimeout %d is larger than maxSessionTimeout %d", cfg.MinSessionTimeout, cfg.MaxSessionTimeout)
	}
	if cfg.GlobalOutstandingLimit <= 0 {
		cfg.GlobalOutstandingLimit = 1000
	}
	if cfg.JuteMaxBuffer <= 0 {
		cfg.JuteMaxBuffer = jute.DefaultMaxBuffer
	}
	if cfg.DataLogDir == "" {
		cfg.DataLogDir = cfg.DataDir
	}
	checker, err := acl.NewChecker(cfg.ACL)
	if err != nil {
		return nil, err
	}
	// Java sets up its SASL login before it loads any data, and a JAAS
	// file it cannot read stops it there.
	saslFactory, err := setupSASL(cfg.SASL, cfg.Logger)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:             cfg,
		logger:          cfg.Logger,
		fieldLimit:      jute.FieldLimit(cfg.JuteMaxBuffer, cfg.JuteMaxBufferExtra),
		watches:         watches.NewManager(),
		acl:             checker,
		sasl:            saslFactory,
		tracker:         newSessionTracker(cfg.TickTime, serverIDOf(cfg)),
		prepQueue:       newRequestQueue(),
		finalDone:       make(chan struct{}),
		fourLetterWords: cfg.FourLetterWords,
		stop:            make(chan struct{}),
		failed:          make(chan struct{}),
		snapTrigger:     make(chan struct{}, 1),
		snapAfter:       snapThreshold(cfg.SnapCount),
		throttle:        newConnThrottle(cfg.ConnThrottle, throttleNow(), nil),
	}
	s.mon = newMonitor(s, cfg.StatsDisabled)
	s.watches.SetDelivery(s.notifyWatchers)
	logger := cfg.Logger
	began := time.Now()
	s.store, err = persistence.OpenStore(persistence.StoreOptions{
		DataDir:       cfg.DataDir,    // snapshots: <dataDir>/gozk-snap
		DataLogDir:    cfg.DataLogDir, // txn log: <dataLogDir>/gozk, apart from any Java version-2/
		ForceSync:     cfg.ForceSync,
		SlowFsyncWarn: cfg.FsyncWarning,
		Logger:        &logger,
		FS:            cfg.FS,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the data directory: %w", err)
	}
	s.txnLog = s.store.Log()
	var rec Recovery
	s.tree, rec, err = Recover(s.store, db.Options{
		ExtendedTypesEnabled: cfg.ExtendedTypesEnabled,
		DigestEnabled:        cfg.DigestEnabled,
		Logger:               func(msg string) { logger.Warn().Msg(msg) },
	}, s.fieldLimit)
	if err != nil {
		s.store.Close()
		return nil, fmt.Errorf("recovering the data tree: %w", err)
	}
	if len(rec.Skipped) > 0 {
		s.logger.Warn().Str("damaged", describeSkipped(rec.Skipped)).Msg("recovered from an older snapshot; newer ones are damaged")
	}
	// Before the start-up snapshot, which must not record the digest of
	// a tree that may still be a SNAP's fuzzy one.
	s.fuzzy.Store(cfg.Ensemble && rec.DigestUnverified(cfg.DigestEnabled))
	s.initConfigNode(s.tree)
	s.prep = &prepStage{srv: s, changes: newOutstandingChanges(s.tree)}
	s.prep.lastZxid = s.tree.LastProcessedZxid()
	for id, timeout := range s.tree.Sessions() {
		s.tracker.add(id, timeout)
	}
	snapZxid := "none"
	if rec.Snapshot != nil {
		snapZxid = fmt.Sprintf("0x%x", rec.Snapshot.Zxid)
	}
	s.logger.Info().Str("snapshot", snapZxid).Int("txns", rec.Txns).Str("zxid", fmt.Sprintf("0x%x", rec.Zxid)).
		Int("sessions", s.tracker.count()).Int("znodes", s.tree.NodeCount()).
		Dur("tookMs", time.Since(began)).Msg("data loaded")
	if rec.Txns > 0 {
		// Java snapshots the tree it loaded before serving. Beyond sparing
		// the next recovery the replay, that fixes the order clients see
		// children in after the next restart: a load rebuilds every
		// parent's children set from the snapshot's order (see db's
		// childList), so it depends on where the newest snapshot is.
		if _, err := s.TakeSnapshot(); err != nil {
			s.store.Close()
			return nil, fmt.Errorf("taking the start-up snapshot: %w", err)
		}
	}
	s.RecordStartup(time.Since(began), rec.Txns, time.Since(began))

	if cfg.Ensemble {
		// The peer starts a role; until then nothing is served. Writes
		// have no prep here until this server leads.
		s.SetRole(RoleLooking)
		s.ens = newLearnerLog()
		s.ensembleDone = make(chan struct{})
		go s.waitDurable(s.ens)
		close(s.finalDone)
		s.bg.Add(1)
	} else {
		go s.writeLoop(nil, s.finalDone)
		s.bg.Add(3)
		go s.expiryLoop()
		go s.containerLoop()
	}
	go s.snapshotLoop()
	if cfg.PurgeInterval > 0 {
		s.bg.Add(1)
		go s.purgeLoop()
	}

	return s, nil
}

// initConfigNode writes an ensemble member's configuration into tree's
// /zookeeper/config, as Java's members do whenever they load a tree.
func (s *Server) initConfigNode(tree *db.Tree) {
	if s.cfg.Ensemble && s.cfg.QuorumConfig != "" {
		tree.SetConfigNode([]byte(s.cfg.QuorumConfig), s.cfg.QuorumConfigVersion, time.Now().UnixMilli())
	}
}

// serverIDOf is the server id in the session ids the server makes.
func serverIDOf(cfg Config) int64 {
	if cfg.Ensemble {
		return cfg.ServerID
	}
	return 1
}

// ClientPortConfig is the client port the configuration describes:
// address, connection limits, frame bound, event loops, sessionless
// timeout, and the secure port and TLS.
func (s *Server) ClientPortConfig() netio.Config {
	return netio.Config{
		Addr:               s.cfg.ClientAddr,
		MaxClientCnxns:     s.cfg.MaxClientCnxns,
		MaxCnxns:           s.cfg.MaxCnxns,
		MaxFrame:           s.cfg.JuteMaxBuffer,
		Loops:              s.cfg.EventLoops,
		SessionlessTimeout: s.cfg.SessionlessTimeout,
		Logger:             s.cfg.Logger,

		TLS:                       s.cfg.ClientTLS,
		SecureAddr:                s.cfg.SecureClientAddr,
		PortUnification:           s.cfg.PortUnification,
		HandshakeDetectionTimeout: s.cfg.HandshakeDetectionTimeout,
		MaxTLSHandshakes:          s.cfg.TLSHandshakeLimit,
		DropSecureBeforeHandshake: s.dropSecureBeforeHandshake(),
	}
}

// Serve makes ln, a client port whose handler is this server, the
// server's own: Addr reports it, Close closes it, a server that fails
// stops serving it, and a port that stops on its own fails the server.
// It is called once, after Open.
func (s *Server) Serve(ln *netio.Server) {
	s.net = ln
	s.bg.Add(2)
	go s.stopServingOnFailure()
	go s.watchClientPort()
	ev := s.logger.Info()
	if s.cfg.ClientAddr != "" {
		ev = ev.Str("address", s.net.Addr().String())
	}
	if a := s.net.SecureAddr(); a != nil {
		ev = ev.Str("secureAddress", a.String())
	}
	if s.cfg.PortUnification {
		ev = ev.Bool("portUnification", true)
	}
	ev.Str("dataDir", s.cfg.DataDir).Dur("tickTimeMs", s.cfg.TickTime).Msg("serving clients")
}

// Addr returns the address clients connect to, nil before Serve.
func (s *Server) Addr() net.Addr {
	if s.net == nil {
		return nil
	}
	return s.net.Addr()
}

// SecureAddr returns the secure client port's address, nil before Serve
// and without one.
func (s *Server) SecureAddr() net.Addr {
	if s.net == nil {
		return nil
	}
	return s.net.SecureAddr()
}

// Failed is closed when the server stopped on an unrecoverable error, such
// as a txn log that can no longer be written. The server has then dropped
// every client and stopped listening; what is left for its owner is Close
// (and, for `gozk server`, exiting with Err).
func (s *Server) Failed() <-chan struct{} { return s.failed }

// Err returns the error that stopped the server, if any.
func (s *Server) Err() error {
	if p := s.fatalErr.Load(); p != nil {
		return *p
	}
	return nil
}

// fatal stops the server on an error of the txn log, as Java's server
// stops when its sync thread dies (counted in unrecoverable_error_count
// too): the write loop answers nothing more, and the clients are dropped
// (stopServingOnFailure) rather than left waiting.
func (s *Server) fatal(err error) {
	s.fail(err, func(ev *zerolog.Event) {
		ev.Str("lastAppliedZxid", fmt.Sprintf("0x%x", s.tree.LastProcessedZxid())).
			Msg("the txn log failed; the server stops, and acknowledges nothing after the last durable txn")
	})
}

// fail stops the server on err, once: it is counted as an unrecoverable
// error, logged by log, and Failed closes.
func (s *Server) fail(err error, log func(*zerolog.Event)) {
	s.failOnce.Do(func() {
		s.fatalErr.Store(&err)
		s.mon.metrics.UnrecoverableErrors.Add(1)
		log(s.logger.Error().Err(err))
		close(s.failed)
	})
}

// stopServingOnFailure drops every client and stops listening once the
// server has failed. A client then learns at once that its pending
// requests have no answer and looks for another server, as with Java.
func (s *Server) stopServingOnFailure() {
	defer s.bg.Done()
	select {
	case <-s.failed:
		if err := s.net.Close(); err != nil {
			s.logger.Error().Err(err).Msg("closing the client port")
		}
	case <-s.stop:
	}
}

// watchClientPort fails the server if the client port stops being served
// on its own: a server nobody can reach must stop, not look alive.
func (s *Server) watchClientPort() {
	defer s.bg.Done()
	select {
	case <-s.net.Failed():
		s.fail(s.net.Err(), func(ev *zerolog.Event) { ev.Msg("the client port is no longer served; the server stops") })
	case <-s.stop:
	}
}

// Close stops accepting connections, finishes and logs the writes already
// received, and closes the data directory.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.net != nil {
			err = s.net.Close()
		}
		s.shutdownPipeline()
		s.logger.Info().Msg("stopped")
	})
	return err
}

func (s *Server) shutdownPipeline() {
	close(s.stop)
	s.bg.Wait()
	s.prepQueue.close()
	<-s.finalDone
	if s.cfg.Ensemble {
		s.stopLeading()
		if ls := s.learner.Swap(nil); ls != nil {
			close(ls.stop)
			<-ls.done
		}
		close(s.ens.waits)
		<-s.ensembleDone
	}
	if err := s.store.Close(); err != nil {
		s.logger.Error().Err(err).Msg("closing the data directory")
	}
}

// submitInternal sends a server-made write (expiry, container reaping)
// through the pipeline.
func (s *Server) submitInternal(r *request) bool {
	s.outstanding.Add(1)
	if !s.prepQueue.push(r) {
		s.outstanding.Add(-1)
		return false
	}
	return true
}

// expiryLoop closes sessions whose deadline passed, on the tick
// boundaries where their buckets lie.
func (s *Server) expiryLoop() {
	defer s.bg.Done()
	s.tracker.expireLoop(s.stop, time.After, s.expireSession)
}

// expireSession closes a session whose deadline passed, through a
// closeSession txn.
func (s *Server) expireSession(sess *session) {
	s.logger.Info().Str("session", fmt.Sprintf("0x%x", sess.id)).Int32("timeout", s.tracker.timeoutOf(sess)).Msg("session expired")
	s.mon.metrics.StaleSessionsExpired.Add(1)
	s.submitInternal(&request{sid: sess.id, op: proto.OpCloseSession})
}

// containerLoop deletes empty containers and expired TTL nodes through
// deleteContainer txns, at most ContainerMaxPerMinute a minute.
func (s *Server) containerLoop() {
	defer s.bg.Done()
	s.reapContainers(s.stop)
}

// reapContainers is containerLoop's work until stop is closed.
func (s *Server) reapContainers(stop <-chan struct{}) {
	interval := s.cfg.ContainerCheckInterval
	if interval <= 0 {
		interval = time.Minute
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
		}
		limit := s.cfg.ContainerMaxPerMinute
		if limit <= 0 {
			limit = 10000
		}
		// Spread the per-minute budget over the check interval.
		perRun := int(int64(limit) * int64(interval) / int64(time.Minute))
		if perRun < 1 {
			perRun = 1
		}
		s.applyMu.RLock()
		paths := s.tree.ContainerCandidates(time.Now().UnixMilli(), s.cfg.ContainerMaxNeverUsed.Milliseconds(), perRun)
		s.applyMu.RUnlock()
		for _, p := range paths {
			s.submitInternal(&request{sid: 0, op: proto.OpDeleteContainer, body: []byte(p)})
		}
	}
}

// Stats for monitoring.

// SessionCount returns the number of live sessions.
func (s *Server) SessionCount() int { return s.tracker.count() }

// LastZxid returns the zxid of the last applied txn.
func (s *Server) LastZxid() int64 { return s.tree.LastProcessedZxid() }

// Tree exposes the data tree for monitoring commands.
func (s *Server) Tree() *db.Tree { return s.tree }

// Watches exposes the watch registry for monitoring commands.
func (s *Server) Watches() *watches.Manager { return s.watches }

// Outstanding returns the number of requests in the pipeline.
func (s *Server) Outstanding() int64 { return s.outstanding.Load() }
