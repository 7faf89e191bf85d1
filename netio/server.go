package netio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/rs/zerolog"
)

// Server listens on the client port and serves connections on gnet event
// loops.
type Server struct {
	cfg        Config
	handler    Handler
	log        zerolog.Logger
	hardOutput int

	engine     gnet.Engine
	ln         *net.TCPListener
	addr       net.Addr
	done       chan struct{} // closed when gnet.Run has returned
	runErr     error
	acceptDone chan struct{} // closed when the accept loop has returned
	stopAccept chan struct{} // closed by Close
	failed     chan struct{} // closed when serving stopped without Close
	failErr    error
	stopping   atomic.Bool
	accepting  acceptState

	closeOnce sync.Once
	closeErr  error

	nextID  atomic.Uint64
	flushes atomic.Uint64

	limitsMu sync.Mutex
	open     int                  // both ports: the global limit's count
	perIP    map[netip.Addr]*peer // the plain port (TLS clients of a unified one too)

	// The secure port and the TLS transport (tlsconn.go, unify.go).
	secureLn          *net.TCPListener
	secureAddr        net.Addr
	secureAcceptDone  chan struct{}
	secureAccepting   acceptState
	securePerIP       map[netip.Addr]*peer
	secureMu          sync.Mutex
	secureClosed      bool                      // Close has begun: no new TLS connection
	secureConns       map[*Conn]struct{}        // TLS connections, for Close
	routing           map[*net.TCPConn]struct{} // connections a unified port is peeking at
	secureWG          sync.WaitGroup            // their goroutines
	handshakes        atomic.Int64              // TLS handshakes in progress
	handshakeFailures atomic.Uint64
	handshakesRefused atomic.Uint64 // TLS connections closed over MaxTLSHandshakes
	handshakeLog      handshakeLog

	// Connections whose four-letter-word answer did not fit the socket
	// and is being finished by a goroutine of its own.
	backgroundMu     sync.Mutex
	background       map[net.Conn]struct{}
	backgroundClosed bool
	backgroundWG     sync.WaitGroup
}

// Listen binds cfg.Addr and starts serving in the background. It returns
// once the port is bound, so clients can dial at once.
func Listen(cfg Config, h Handler) (*Server, error) {
	if h == nil {
		return nil, errors.New("netio: nil Handler")
	}
	if cfg.TLS == nil && (cfg.SecureAddr != "" || cfg.PortUnification) {
		return nil, errors.New("netio: a secure port or port unification needs a TLS configuration")
	}
	if cfg.Addr == "" && cfg.SecureAddr == "" {
		return nil, errors.New("netio: no address to listen on")
	}
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:        cfg,
		handler:    h,
		log:        cfg.Logger,
		hardOutput: hardOutputFactor * cfg.MaxPendingOutput,
		done:       make(chan struct{}),
		acceptDone: make(chan struct{}),
		stopAccept: make(chan struct{}),
		failed:     make(chan struct{}),
		perIP:      make(map[netip.Addr]*peer),
		background: make(map[net.Conn]struct{}),

		secureAcceptDone: make(chan struct{}),
		securePerIP:      make(map[netip.Addr]*peer),
		secureConns:      make(map[*Conn]struct{}),
		routing:          make(map[*net.TCPConn]struct{}),
	}
	// As Java's: SO_REUSEADDR on the listener (Go sets it), TCP_NODELAY
	// on every accepted socket (Go sets it) and no SO_KEEPALIVE (-1).
	// Go's backlog is the kernel's maximum (net.core.somaxconn), not
	// Java's 50.
	lc := net.ListenConfig{KeepAlive: -1}
	if cfg.SecureAddr != "" {
		ln, err := lc.Listen(context.Background(), "tcp", cfg.SecureAddr)
		if err != nil {
			return nil, fmt.Errorf("netio: listen on %s (secure client port): %w", cfg.SecureAddr, err)
		}
		s.secureLn = ln.(*net.TCPListener)
		s.secureAddr = s.secureLn.Addr()
	}
	if cfg.Addr == "" {
		// A secure port only: no event loops.
		close(s.done)
		close(s.acceptDone)
		go s.secureAcceptLoop()
		return s, nil
	}
	if err := s.listenPlain(lc); err != nil {
		if s.secureLn != nil {
			_ = s.secureLn.Close()
		}
		return nil, err
	}
	if s.secureLn != nil {
		go s.secureAcceptLoop()
	} else {
		close(s.secureAcceptDone)
	}
	return s, nil
}

// listenPlain binds the plain client port and starts the event loops and
// the accept loop.
func (s *Server) listenPlain(lc net.ListenConfig) error {
	cfg := s.cfg
	ln, err := lc.Listen(context.Background(), "tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("netio: listen on %s: %w", cfg.Addr, err)
	}
	s.ln = ln.(*net.TCPListener)
	s.addr = s.ln.Addr()
	loopAddr, cleanup := loopListenAddr()
	events := &loopEvents{server: s, started: make(chan struct{})}
	go func() {
		s.runErr = gnet.Run(events, loopAddr,
			gnet.WithMulticore(true),
			gnet.WithNumEventLoop(cfg.Loops),
			// Spreads connections by a hash of the client's address and
			// port, with no state: gnet's own accepts (a stray connection
			// to a loopback fallback, see loopListenAddr) pick loops
			// too, which round robin's unsynchronised counter would not
			// survive.
			gnet.WithLoadBalancing(gnet.SourceAddrHash),
			gnet.WithLogger(gnetLogger{cfg.Logger}),
			// The first tick says that the loops are running.
			gnet.WithTicker(true),
		)
		close(s.done)
	}()
	select {
	case <-events.started:
		// gnet's own socket is bound; with its path removed nothing can
		// connect to it (see loopListenAddr).
		cleanup()
	case <-s.done:
		cleanup()
		_ = s.ln.Close()
		return fmt.Errorf("netio: listen on %s: %w", cfg.Addr, s.runErr)
	}
	go s.acceptLoop()
	go s.watchEngine()
	return nil
}

// loopListenAddr names the socket gnet is given to listen on. gnet must
// listen somewhere, but it never accepts a client: a connection gnet
// accepted could fail with EMFILE, and gnet ends every event loop, and so
// every connection, on any accept error. The client port is accepted by
// acceptLoop instead. The socket is a Unix socket in a private directory
// that is removed as soon as gnet has bound it, so that nothing can reach
// it. Without a usable temporary directory (a read-only file system) it
// is an ephemeral loopback port; a stray connection to that is closed at
// once (OnOpen).
func loopListenAddr() (addr string, cleanup func()) {
	dir, err := os.MkdirTemp("", "gozk-netio-")
	if err != nil {
		return "tcp://127.0.0.1:0", func() {}
	}
	// A socket address holds 108 bytes on Linux.
	if len(dir) > 90 {
		_ = os.Remove(dir)
		return "tcp://127.0.0.1:0", func() {}
	}
	return "unix://" + filepath.Join(dir, "loops"), func() { _ = os.RemoveAll(dir) }
}

// acceptLoop accepts client connections and hands each to an event loop.
// An accept error, above all running out of file descriptors (EMFILE,
// ENFILE), is logged and retried after a short pause, as Java's accept
// thread does: connections already open are served meanwhile, and new
// ones wait in the listen backlog until descriptors are free.
func (s *Server) acceptLoop() {
	s.acceptOn(s.ln, &s.accepting, s.acceptDone, func(nc *net.TCPConn) {
		if s.cfg.PortUnification {
			s.startRoute(nc)
			return
		}
		s.enroll(nc)
	})
}

// acceptOn is the loop of one client listener: each connection goes to
// take; a failed accept is logged (once, through state) and retried after
// acceptRetryDelay; done is closed when the listener is closed.
func (s *Server) acceptOn(ln *net.TCPListener, state *acceptState, done chan struct{}, take func(*net.TCPConn)) {
	defer close(done)
	for {
		nc, err := ln.AcceptTCP()
		if err != nil {
			if s.stopping.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			state.failed(s.log, err)
			select {
			case <-time.After(acceptRetryDelay):
			case <-s.stopAccept:
				return
			}
			continue
		}
		state.succeeded(s.log)
		take(nc)
	}
}

// acceptRetryDelay is the pause after a failed accept (Java's is 10 ms).
const acceptRetryDelay = 10 * time.Millisecond

// enroll hands an accepted connection to an event loop. gnet duplicates
// the descriptor and closes nc; if it cannot (no descriptor left), the
// client is disconnected. The limits are applied by OnOpen, on the loop.
func (s *Server) enroll(nc *net.TCPConn) {
	ctx := gnet.NewContext(gnet.NewNetConnContext(context.Background(), nc), acceptedHere)
	if _, err := s.engine.Register(ctx); err != nil {
		_ = nc.Close()
	}
}

// enrollAdmitted hands an event loop a plain connection of a unified port,
// already admitted under the limits as p (see startRoute).
func (s *Server) enrollAdmitted(nc *net.TCPConn, p *peer) {
	ctx := gnet.NewContext(gnet.NewNetConnContext(context.Background(), nc), admitted{p})
	if _, err := s.engine.Register(ctx); err != nil {
		s.release(remoteAddrPort(nc.RemoteAddr()).Addr())
		_ = nc.Close()
	}
}

// acceptedMarker is the gnet context of the connections acceptLoop hands
// over; any other connection (to gnet's own socket) is closed at once.
type acceptedMarker struct{}

var acceptedHere any = acceptedMarker{}

// admitted is the gnet context of a connection admitted before the hand
// over (a plain client of a unified port).
type admitted struct{ p *peer }

// watchEngine notices gnet stopping on its own. It never should, but if
// it does the port must not stay open with nothing serving it: the
// listener is closed and Failed reports the error, so that the process can
// stop rather than look alive.
func (s *Server) watchEngine() {
	<-s.done
	if s.stopping.Load() {
		return
	}
	err := s.runErr
	if err == nil {
		err = errors.New("event loops stopped")
	}
	s.failErr = fmt.Errorf("netio: serving %s stopped: %w", s.addr, err)
	s.log.Error().Err(s.failErr).Msg("client port no longer served")
	_ = s.ln.Close()
	close(s.failed)
}

// Failed is closed when the server stopped serving without Close being
// called (the event loops ended on an error); Err then says why.
func (s *Server) Failed() <-chan struct{} { return s.failed }

// Err is the error that stopped the server, once Failed is closed.
func (s *Server) Err() error {
	select {
	case <-s.failed:
		return s.failErr
	default:
		return nil
	}
}

// Addr is the bound address, with the actual port when cfg.Addr asked for
// port 0; the secure port's when there is no plain one.
func (s *Server) Addr() net.Addr {
	if s.addr == nil {
		return s.secureAddr
	}
	return s.addr
}

// SecureAddr is the secure client port's bound address, nil without one.
func (s *Server) SecureAddr() net.Addr { return s.secureAddr }

// TLSHandshakesInProgress counts the TLS handshakes under way.
func (s *Server) TLSHandshakesInProgress() int64 { return s.handshakes.Load() }

// TLSHandshakesRefused counts the TLS connections closed before their
// handshake because MaxTLSHandshakes were in progress (Java's
// tls_handshake_exceeded).
func (s *Server) TLSHandshakesRefused() uint64 { return s.handshakesRefused.Load() }

// TLSHandshakeFailures counts the TLS handshakes that failed (and whose
// connection was closed) since the server started.
func (s *Server) TLSHandshakeFailures() uint64 { return s.handshakeFailures.Load() }

// ConnCount is the number of open connections that passed the limits.
func (s *Server) ConnCount() int {
	s.limitsMu.Lock()
	defer s.limitsMu.Unlock()
	return s.open
}

// Flushes counts the writes that handed queued output to sockets, one per
// flush however many frames it carried: with ConnCount and the frames
// sent, it shows how well writes coalesce.
func (s *Server) Flushes() uint64 { return s.flushes.Load() }

// Close stops accepting, closes every connection (OnClose gets
// ErrServerClosed) and waits for the event loops to finish. It must not be
// called from a Handler method, which runs on one of those loops.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.stopping.Store(true)
		// Stop polls for completion twice a second; a cancelled context
		// makes it only start the shutdown, and gnet.Run returning says
		// when it is over.
		close(s.stopAccept)
		if s.ln != nil {
			_ = s.ln.Close()
		}
		if s.secureLn != nil {
			_ = s.secureLn.Close()
		}
		<-s.acceptDone
		<-s.secureAcceptDone
		// TLS connections first: a unified port may still hand a
		// plain one to the event loops.
		s.closeSecure()
		if s.ln != nil {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_ = s.engine.Stop(ctx)
			<-s.done
		}
		s.stopBackgroundWrites()
		s.closeErr = s.runErr
	})
	return s.closeErr
}

// peer is one remote IP address with open connections: the key of the
// per-IP limit. Its text is shared by all of them, so that a connection
// from an address already connected costs no string.
type peer struct {
	ip    string
	conns int
}

// peerKey is the address the per-IP limit counts by: an IPv4 client of a
// dual-stack listener counts as the IPv4 address (as Java's Inet4Address
// does), and the zone is not part of it.
func peerKey(addr netip.Addr) netip.Addr { return addr.Unmap().WithZone("") }

// admitIn applies the global and per-IP limits to a new connection, as
// Java does at accept time, and returns the connection's peer, or nil when
// it is refused. perIP is the port's count per IP (s.perIP or
// s.securePerIP); the global count is the server's.
func (s *Server) admitIn(addr netip.Addr, perIP map[netip.Addr]*peer) *peer {
	key := peerKey(addr)
	s.limitsMu.Lock()
	defer s.limitsMu.Unlock()
	p := perIP[key]
	if s.cfg.MaxCnxns > 0 && s.open >= s.cfg.MaxCnxns {
		s.log.Warn().Str("ip", key.String()).Str("limit", "maxCnxns").Int("max", s.cfg.MaxCnxns).Msg("Too many connections; connection refused")
		return nil
	}
	if p != nil && s.cfg.MaxClientCnxns > 0 && p.conns >= s.cfg.MaxClientCnxns {
		s.log.Warn().Str("ip", p.ip).Str("limit", "maxClientCnxns").Int("max", s.cfg.MaxClientCnxns).Msg("Too many connections from this IP; connection refused")
		return nil
	}
	if p == nil {
		p = &peer{ip: key.String()}
		perIP[key] = p
	}
	s.open++
	p.conns++
	return p
}

// release gives back a plain connection's place under the limits.
func (s *Server) release(addr netip.Addr) { s.releaseIn(addr, s.perIP) }

// releaseIn gives back the place admitIn gave.
func (s *Server) releaseIn(addr netip.Addr, perIP map[netip.Addr]*peer) {
	key := peerKey(addr)
	s.limitsMu.Lock()
	defer s.limitsMu.Unlock()
	s.open--
	if p := perIP[key]; p != nil {
		if p.conns--; p.conns <= 0 {
			delete(perIP, key)
		}
	}
}

// writeRestInBackground finishes writing a four-letter-word answer the
// socket could not take at once. It keeps a duplicate of the socket, so
// that gnet can close its own descriptor and forget the connection while
// the client reads at its own pace; the socket closes when the duplicate
// does. Until then the connection keeps its place under the per-IP and
// global limits, as Java's does, so that clients that do not read long
// answers cannot pile up descriptors past maxClientCnxns. It reports
// whether it took the connection's place over (OnClose then leaves it).
func (s *Server) writeRestInBackground(c *Conn, rest []byte) bool {
	fd, err := c.gc.Dup()
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), "four-letter-word")
	nc, err := net.FileConn(f)
	_ = f.Close()
	if err != nil {
		return false
	}
	s.backgroundMu.Lock()
	if s.backgroundClosed {
		s.backgroundMu.Unlock()
		_ = nc.Close()
		return false
	}
	s.background[nc] = struct{}{}
	s.backgroundWG.Add(1)
	s.backgroundMu.Unlock()
	addr := c.remote.Addr()
	go func() {
		defer s.backgroundWG.Done()
		_ = nc.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
		_, _ = nc.Write(rest)
		_ = nc.Close()
		s.backgroundMu.Lock()
		delete(s.background, nc)
		s.backgroundMu.Unlock()
		s.release(addr)
	}()
	return true
}

func (s *Server) stopBackgroundWrites() {
	s.backgroundMu.Lock()
	s.backgroundClosed = true
	for nc := range s.background {
		_ = nc.Close()
	}
	s.backgroundMu.Unlock()
	s.backgroundWG.Wait()
}

// loopEvents adapts gnet's callbacks to Conn and Handler.
type loopEvents struct {
	gnet.BuiltinEventEngine
	server  *Server
	started chan struct{}
	ticked  bool
}

func (e *loopEvents) OnBoot(eng gnet.Engine) gnet.Action {
	e.server.engine = eng
	return gnet.None
}

// OnTick is first called once the event loops have been created and
// started (OnBoot comes before): connections can be handed to them from
// then on. It has nothing to do afterwards.
func (e *loopEvents) OnTick() (time.Duration, gnet.Action) {
	if !e.ticked {
		e.ticked = true
		close(e.started)
	}
	return 24 * time.Hour, gnet.None
}

func (e *loopEvents) OnOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	s := e.server
	remote := remoteAddrPort(gc.RemoteAddr())
	var p *peer
	switch ctx := gc.Context().(type) {
	case acceptedMarker:
		p = s.admitIn(remote.Addr(), s.perIP)
	case admitted:
		p = ctx.p
	}
	gc.SetContext(nil)
	if p == nil {
		return nil, gnet.Close
	}
	c := &Conn{
		server:   s,
		gc:       gc,
		id:       s.nextID.Add(1),
		remote:   remote,
		remoteIP: p.ip,
	}
	gc.SetContext(c)
	c.startSessionlessTimer()
	s.handler.OnOpen(c)
	return nil, gnet.None
}

func (e *loopEvents) OnTraffic(gc gnet.Conn) gnet.Action {
	c, ok := gc.Context().(*Conn)
	if !ok {
		return gnet.Close
	}
	return c.service()
}

func (e *loopEvents) OnClose(gc gnet.Conn, err error) gnet.Action {
	c, ok := gc.Context().(*Conn)
	if !ok {
		return gnet.None // refused by the limits: OnOpen never saw it
	}
	reason := c.closedByGnet(err)
	if !c.placeHeldByAnswer {
		e.server.release(c.remote.Addr())
	}
	e.server.handler.OnClose(c, reason)
	return gnet.None
}

// remoteAddrPort copies gnet's address, whose parts gnet recycles when
// the connection closes, into a value that allocates nothing.
func remoteAddrPort(a net.Addr) netip.AddrPort {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.AddrPort{}
	}
	addr, _ := netip.AddrFromSlice(t.IP)
	if t.Zone != "" {
		addr = addr.WithZone(strings.Clone(t.Zone))
	}
	return netip.AddrPortFrom(addr, uint16(t.Port))
}

// gnetLogger routes gnet's own messages to zerolog. gnet's informational
// start-up lines are debug-level noise for gozk, and gnet never gets to
// end the process.
type gnetLogger struct{ log zerolog.Logger }

func (l gnetLogger) Debugf(format string, args ...any) { l.log.Debug().Msgf(format, args...) }
func (l gnetLogger) Infof(format string, args ...any)  { l.log.Debug().Msgf(format, args...) }
func (l gnetLogger) Warnf(format string, args ...any)  { l.log.Warn().Msgf(format, args...) }
func (l gnetLogger) Errorf(format string, args ...any) { l.log.Error().Msgf(format, args...) }
func (l gnetLogger) Fatalf(format string, args ...any) { l.log.Error().Msgf(format, args...) }
