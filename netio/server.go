package netio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// Server listens on the client port and serves connections on gnet event
// loops.
type Server struct {
	cfg        Config
	handler    Handler
	log        zerolog.Logger
	hardOutput int

	engine   gnet.Engine
	addr     net.Addr
	done     chan struct{} // closed when gnet.Run has returned
	runErr   error
	stopping atomic.Bool

	closeOnce sync.Once
	closeErr  error

	nextID  atomic.Uint64
	flushes atomic.Uint64

	limitsMu sync.Mutex
	open     int
	perIP    map[netip.Addr]*peer

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
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:        cfg,
		handler:    h,
		log:        cfg.Logger,
		hardOutput: hardOutputFactor * cfg.MaxPendingOutput,
		done:       make(chan struct{}),
		perIP:      make(map[netip.Addr]*peer),
		background: make(map[net.Conn]struct{}),
	}
	listenAddr, reusePort, release, err := claimAddr(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("netio: listen on %s: %w", cfg.Addr, err)
	}
	events := &loopEvents{server: s, booted: make(chan struct{})}
	go func() {
		s.runErr = gnet.Run(events, "tcp://"+listenAddr,
			gnet.WithMulticore(true),
			gnet.WithNumEventLoop(cfg.Loops),
			gnet.WithLoadBalancing(gnet.RoundRobin),
			gnet.WithReusePort(reusePort),
			// Java sets SO_REUSEADDR on the listening socket and
			// TCP_NODELAY on every accepted one.
			gnet.WithReuseAddr(true),
			gnet.WithTCPNoDelay(gnet.TCPNoDelay),
			gnet.WithLogger(gnetLogger{cfg.Logger}),
		)
		close(s.done)
	}()
	select {
	case <-events.booted:
		// The first listener is bound: it holds the port now.
		release()
	case <-s.done:
		release()
		return nil, fmt.Errorf("netio: listen on %s: %w", cfg.Addr, s.runErr)
	}
	addr, err := boundAddr(s.engine)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("netio: listen on %s: %w", cfg.Addr, err)
	}
	s.addr = addr
	return s, nil
}

// Addr is the bound address, with the actual port when cfg.Addr asked for
// port 0.
func (s *Server) Addr() net.Addr { return s.addr }

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
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_ = s.engine.Stop(ctx)
		<-s.done
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

// admit applies the global and per-IP limits to a new connection, as Java
// does at accept time, and returns the connection's peer, or nil when it
// is refused.
func (s *Server) admit(addr netip.Addr) *peer {
	key := peerKey(addr)
	s.limitsMu.Lock()
	defer s.limitsMu.Unlock()
	p := s.perIP[key]
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
		s.perIP[key] = p
	}
	s.open++
	p.conns++
	return p
}

func (s *Server) release(addr netip.Addr) {
	key := peerKey(addr)
	s.limitsMu.Lock()
	defer s.limitsMu.Unlock()
	s.open--
	if p := s.perIP[key]; p != nil {
		if p.conns--; p.conns <= 0 {
			delete(s.perIP, key)
		}
	}
}

// writeRestInBackground finishes writing a four-letter-word answer the
// socket could not take at once. It keeps a duplicate of the socket, so
// that gnet can close its own descriptor and forget the connection while
// the client reads at its own pace; the socket closes when the duplicate
// does.
func (s *Server) writeRestInBackground(gc gnet.Conn, rest []byte) {
	fd, err := gc.Dup()
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "four-letter-word")
	nc, err := net.FileConn(f)
	_ = f.Close()
	if err != nil {
		return
	}
	s.backgroundMu.Lock()
	if s.backgroundClosed {
		s.backgroundMu.Unlock()
		_ = nc.Close()
		return
	}
	s.background[nc] = struct{}{}
	s.backgroundWG.Add(1)
	s.backgroundMu.Unlock()
	go func() {
		defer s.backgroundWG.Done()
		_ = nc.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
		_, _ = nc.Write(rest)
		_ = nc.Close()
		s.backgroundMu.Lock()
		delete(s.background, nc)
		s.backgroundMu.Unlock()
	}()
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

// boundAddr asks the kernel which address the listener got.
func boundAddr(eng gnet.Engine) (net.Addr, error) {
	fd, err := eng.Dup()
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return nil, os.NewSyscallError("getsockname", err)
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(slices.Clone(a.Addr[:])), Port: a.Port}, nil
	case *unix.SockaddrInet6:
		addr := &net.TCPAddr{IP: net.IP(slices.Clone(a.Addr[:])), Port: a.Port}
		if a.ZoneId != 0 {
			if ifi, err := net.InterfaceByIndex(int(a.ZoneId)); err == nil {
				addr.Zone = ifi.Name
			}
		}
		return addr, nil
	}
	return nil, fmt.Errorf("unexpected listener address %T", sa)
}

// loopEvents adapts gnet's callbacks to Conn and Handler.
type loopEvents struct {
	gnet.BuiltinEventEngine
	server *Server
	booted chan struct{}
}

func (e *loopEvents) OnBoot(eng gnet.Engine) gnet.Action {
	e.server.engine = eng
	close(e.booted)
	return gnet.None
}

func (e *loopEvents) OnOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	s := e.server
	remote := remoteAddrPort(gc.RemoteAddr())
	p := s.admit(remote.Addr())
	if p == nil {
		return nil, gnet.Close
	}
	// Linux copies TCP_NODELAY from the listener, where gnet sets it;
	// elsewhere it has to be set on every connection. Skipping it saves
	// a system call per connection.
	if runtime.GOOS != "linux" {
		_ = gc.SetNoDelay(true)
	}
	c := &Conn{
		server:   s,
		gc:       gc,
		id:       s.nextID.Add(1),
		remote:   remote,
		remoteIP: p.ip,
	}
	gc.SetContext(c)
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
	e.server.release(c.remote.Addr())
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
