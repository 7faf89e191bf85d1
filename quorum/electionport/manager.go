package electionport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/fle"
	"github.com/gozk/gozk/quorum/quorumtls"
)

// RecvCapacity is the size of the receive queue (Java's RECV_CAPACITY):
// when it is full, the oldest message is dropped for the newest.
const RecvCapacity = 100

// Defaults of Java 3.8.0.
const (
	DefaultConnectTimeout    = 5 * time.Second // zookeeper.cnxTimeout
	DefaultBindRetry         = 3               // zookeeper.electionPortBindRetry
	DefaultBindRetryInterval = time.Second
)

// Config is what a Manager needs to know of its server and ensemble.
type Config struct {
	// ID is this server's id (myid).
	ID int64
	// ListenAddrs are the addresses the election port binds, host:port
	// each: this server's election addresses, or the wildcard address
	// with their port under quorumListenOnAllIPs.
	ListenAddrs []string
	// Advertise are this server's election addresses as its initial
	// message names them; peers dial back to them.
	Advertise []string
	// Peers are the election addresses of the other servers, by id
	// (voters and observers: a voter answers an observer's votes).
	Peers map[int64][]string
	// MultiAddress sends protocol version 2 with every advertised
	// address (zookeeper.multiAddress.enabled); otherwise version 1 with
	// the first, as Java does unless told otherwise.
	MultiAddress bool
	// ConnectTimeout bounds a dial (zookeeper.cnxTimeout).
	ConnectTimeout time.Duration
	// HandshakeTimeout bounds the initial message on a new connection and
	// each write (zookeeper.quorumCnxnTimeoutMs, else tickTime x
	// syncLimit, as Java's socket timeout).
	HandshakeTimeout time.Duration
	// BindRetry is how many times binding the election port is tried
	// before Start gives up (zookeeper.electionPortBindRetry; 0 = no
	// limit), BindRetryInterval the pause between tries.
	BindRetry         int
	BindRetryInterval time.Duration
	// AuthLearner, when set, authenticates this server on each connection
	// it opens, right after its initial message and before the ids decide
	// whether the connection is kept (Java's authLearner, package
	// quorumauth); an error closes the connection.
	AuthLearner func(conn net.Conn, sid int64) error
	// AuthServer, when set, authenticates the server at the other end of
	// each connection accepted, right after its initial message (Java's
	// authServer); what the peer sends after the exchange, or instead of
	// it, stays in r. An error closes the connection, and a smaller id is
	// then not dialled back.
	AuthServer func(conn net.Conn, r *bufio.Reader, sid int64) error
	// TLS is sslQuorum and portUnification on this port; nil is plain.
	TLS    *quorumtls.Config
	Logger zerolog.Logger
}

// Message is one frame received from a server.
type Message struct {
	From    int64
	Payload []byte
}

// Manager keeps this server's election connections. Its methods are safe
// for concurrent use.
type Manager struct {
	cfg       Config
	log       zerolog.Logger
	listeners []net.Listener
	recv      chan Message
	recvMu    sync.Mutex // serialises deliver's drop-the-oldest
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	mu              sync.Mutex
	peers           map[int64]*peerState
	observerCounter int64  // ids given to observers without one, from -1 down
	connSeq         uint64 // orders connections by when they were made
	closed          bool
	dropped         uint64 // messages dropped from a full receive queue
}

// peerState is what the Manager keeps of one server: its send slot, the
// last message sent to it and the connection, if any.
type peerState struct {
	addrs   []string // configured election addresses
	pending []byte   // the send slot: the newest message not yet sent
	queued  bool     // a message was ever queued for it (Java's queueSendMap)
	last    []byte   // the last message written to it
	link    *link
	dialing bool
}

// ErrBind is wrapped by Start's error when the election port cannot be
// bound (Java then exits with status 14).
var ErrBind = errors.New("unable to bind the election port")

// Start binds the election port and starts accepting connections.
func Start(cfg Config) (*Manager, error) {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = cfg.ConnectTimeout
	}
	if cfg.BindRetry < 0 {
		cfg.BindRetry = DefaultBindRetry
	}
	if cfg.BindRetryInterval <= 0 {
		cfg.BindRetryInterval = DefaultBindRetryInterval
	}
	if len(cfg.ListenAddrs) == 0 {
		return nil, fmt.Errorf("%w: no election address for server %d", ErrBind, cfg.ID)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		cfg:             cfg,
		log:             cfg.Logger,
		recv:            make(chan Message, RecvCapacity),
		ctx:             ctx,
		cancel:          cancel,
		peers:           map[int64]*peerState{},
		observerCounter: -1,
	}
	for id, addrs := range cfg.Peers {
		if id != cfg.ID {
			m.peers[id] = &peerState{addrs: addrs}
		}
	}
	for _, addr := range cfg.ListenAddrs {
		ln, err := m.bind(addr)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.listeners = append(m.listeners, ln)
	}
	for _, ln := range m.listeners {
		m.wg.Add(1)
		go m.acceptLoop(ln)
	}
	return m, nil
}

// bind listens on addr, trying BindRetry times as Java's listener does.
func (m *Manager) bind(addr string) (net.Listener, error) {
	var lc net.ListenConfig
	for try := 1; ; try++ {
		ln, err := lc.Listen(m.ctx, "tcp", addr)
		if err == nil {
			m.log.Info().Int64("myid", m.cfg.ID).Str("address", ln.Addr().String()).Msg("election port accepting connections")
			return ln, nil
		}
		if m.cfg.BindRetry > 0 && try >= m.cfg.BindRetry {
			return nil, fmt.Errorf("%w %s after %d tries (zookeeper.electionPortBindRetry): %w", ErrBind, addr, try, err)
		}
		m.log.Error().Err(err).Str("address", addr).Int("try", try).Msg("binding the election port failed; trying again")
		select {
		case <-time.After(m.cfg.BindRetryInterval):
		case <-m.ctx.Done():
			return nil, fmt.Errorf("%w %s: stopped", ErrBind, addr)
		}
	}
}

// Addrs returns the addresses the election port listens on.
func (m *Manager) Addrs() []net.Addr {
	out := make([]net.Addr, len(m.listeners))
	for i, ln := range m.listeners {
		out[i] = ln.Addr()
	}
	return out
}

// Messages delivers the frames received from every server, and those this
// server sent itself.
func (m *Manager) Messages() <-chan Message { return m.recv }

// Dropped returns how many received messages a full queue dropped.
func (m *Manager) Dropped() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dropped
}

// Send queues payload for server to, replacing whatever waits for it, and
// connects to it when there is no connection. A payload for this server
// itself is delivered to Messages at once. The Manager keeps payload: the
// caller must not change it afterwards.
func (m *Manager) Send(to int64, payload []byte) {
	if to == m.cfg.ID {
		m.deliver(Message{From: to, Payload: payload})
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	p := m.peer(to)
	p.pending = payload
	p.queued = true
	l := p.link
	m.mu.Unlock()
	if l != nil {
		l.poke()
		return
	}
	m.connectOne(to, nil)
}

// HaveDelivered is Java's haveDelivered: whether some server's send slot
// is empty (Java's election then resends its vote; otherwise it
// reconnects to everyone, see ConnectAll).
func (m *Manager) HaveDelivered() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.peers {
		if p.queued && p.pending == nil {
			return true
		}
	}
	return false
}

// ConnectAll connects to every server a message was ever queued for and
// that has no connection now.
func (m *Manager) ConnectAll() {
	m.mu.Lock()
	ids := make([]int64, 0, len(m.peers))
	for id, p := range m.peers {
		if p.queued {
			ids = append(ids, id)
		}
	}
	m.mu.Unlock()
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		m.connectOne(id, nil)
	}
}

// Connected reports whether there is a connection to server sid.
func (m *Manager) Connected(sid int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.peers[sid]
	return p != nil && p.link != nil
}

// Close stops the listeners, the dials and every connection.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	var links []*link
	for _, p := range m.peers {
		if p.link != nil {
			links = append(links, p.link)
		}
	}
	m.mu.Unlock()
	m.cancel()
	for _, ln := range m.listeners {
		ln.Close()
	}
	for _, l := range links {
		l.finish()
	}
	m.wg.Wait()
}

// peer returns the state of server sid, made on first use. m.mu is held.
func (m *Manager) peer(sid int64) *peerState {
	p := m.peers[sid]
	if p == nil {
		p = &peerState{}
		m.peers[sid] = p
	}
	return p
}

// deliver puts msg on the receive queue, dropping the oldest message when
// the queue is full.
func (m *Manager) deliver(msg Message) {
	m.recvMu.Lock()
	defer m.recvMu.Unlock()
	for {
		select {
		case m.recv <- msg:
			return
		default:
		}
		select {
		case <-m.recv:
			m.mu.Lock()
			m.dropped++
			m.mu.Unlock()
		default:
		}
	}
}

// connectOne dials server sid unless it is connected or being dialled:
// at addrs when given (the addresses its own initial message named),
// else at its configured addresses.
func (m *Manager) connectOne(sid int64, addrs []string) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	p := m.peer(sid)
	if p.link != nil || p.dialing {
		m.mu.Unlock()
		return
	}
	if len(addrs) == 0 {
		addrs = p.addrs
	}
	if len(addrs) == 0 {
		m.mu.Unlock()
		m.log.Warn().Int64("server", sid).Msg("no election address known for server; not connecting")
		return
	}
	p.dialing = true
	m.wg.Add(1)
	m.mu.Unlock()
	go m.dial(sid, addrs)
}

// dial opens a connection to server sid and sends the initial message;
// it keeps the connection only when this server has the larger id.
func (m *Manager) dial(sid int64, addrs []string) {
	defer m.wg.Done()
	defer func() {
		m.mu.Lock()
		m.peer(sid).dialing = false
		m.mu.Unlock()
	}()
	d := net.Dialer{Timeout: m.cfg.ConnectTimeout}
	var conn net.Conn
	var err error
	var dialed string
	for _, addr := range addrs {
		conn, err = d.DialContext(m.ctx, "tcp", addr)
		if err == nil {
			dialed = addr
			break
		}
		if m.ctx.Err() != nil {
			return
		}
		m.log.Warn().Err(err).Int64("server", sid).Str("address", addr).Msg("cannot open election connection")
	}
	if conn == nil {
		return
	}
	seq := m.nextSeq()
	raw := conn
	defer context.AfterFunc(m.ctx, func() { raw.Close() })()
	// The server's certificate is checked against the address as
	// configured (a name or an IP address).
	conn, err = m.cfg.TLS.Dial(m.ctx, conn, dialed, time.Now().Add(m.cfg.HandshakeTimeout))
	if err != nil {
		// The election goes on with the others; this server is tried
		// again on the next round, as after any failed dial.
		if m.ctx.Err() == nil {
			m.log.Warn().Err(err).Int64("server", sid).Str("address", dialed).Msg("cannot open election connection")
		}
		return
	}
	if v, c, ok := quorumtls.Describe(conn); ok {
		m.log.Info().Int64("server", sid).Str("address", dialed).Str("protocol", v).Str("cipher", c).Msg("election connection: TLS handshake complete")
	}
	proto := fle.ProtocolV1
	advertise := m.cfg.Advertise
	if m.cfg.MultiAddress {
		proto = fle.ProtocolV2
	} else if len(advertise) > 1 {
		advertise = advertise[:1]
	}
	hello := (&fle.InitialMessage{Protocol: proto, SID: m.cfg.ID, Addrs: advertise}).AppendTo(nil)
	// Java reads the address string with one read: the whole message goes
	// in one write.
	conn.SetWriteDeadline(time.Now().Add(m.cfg.HandshakeTimeout))
	if _, err := conn.Write(hello); err != nil {
		m.log.Warn().Err(err).Int64("server", sid).Str("address", conn.RemoteAddr().String()).Msg("sending the initial message failed")
		conn.Close()
		return
	}
	if m.cfg.AuthLearner != nil {
		conn.SetDeadline(time.Now().Add(m.cfg.HandshakeTimeout))
		if err := m.cfg.AuthLearner(conn, sid); err != nil {
			m.log.Error().Err(err).Int64("server", sid).Str("address", conn.RemoteAddr().String()).Msg("closing an election connection: quorum authentication failed")
			conn.Close()
			return
		}
		conn.SetReadDeadline(time.Time{})
	}
	if !fle.KeepsConnection(m.cfg.ID, sid) {
		// The larger id dials back; this connection only told it to.
		m.log.Debug().Int64("server", sid).Msg("smaller id: closing the connection for the server to dial back")
		conn.Close()
		return
	}
	conn.SetWriteDeadline(time.Time{})
	m.keep(sid, conn, bufio.NewReader(conn), seq)
}

// acceptLoop takes connections until the listener is closed. A resource
// shortage (descriptors, buffers) is waited out rather than fatal: the
// port serves again once the resource is back.
func (m *Manager) acceptLoop(ln net.Listener) {
	defer m.wg.Done()
	var lastWarn time.Time
	for {
		conn, err := ln.Accept()
		if err != nil {
			if m.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			if time.Since(lastWarn) > 10*time.Second {
				lastWarn = time.Now()
				msg := "accepting an election connection failed; retrying"
				if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
					msg = "accepting an election connection failed: out of file descriptors; retrying"
				}
				m.log.Error().Err(err).Str("address", ln.Addr().String()).Msg(msg)
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-m.ctx.Done():
				return
			}
			continue
		}
		m.wg.Add(1)
		go m.handshake(conn, m.nextSeq())
	}
}

// nextSeq numbers a connection when it is made (accepted or dialled), so
// that of two connections to one server the newer is kept even when their
// handshakes finish in the other order.
func (m *Manager) nextSeq() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.connSeq++
	return m.connSeq
}

// handshake reads the initial message of a connection another server
// opened and keeps it, or hangs up and dials back, as the ids decide.
func (m *Manager) handshake(conn net.Conn, seq uint64) {
	defer m.wg.Done()
	// Close ends a handshake still waiting for its initial message (or
	// for TLS): closing the TCP connection ends the TLS one on it too.
	raw := conn
	defer context.AfterFunc(m.ctx, func() { raw.Close() })()
	remote := conn.RemoteAddr().String()
	deadline := time.Now().Add(m.cfg.HandshakeTimeout)
	conn, err := m.cfg.TLS.Accept(m.ctx, conn, deadline)
	if err != nil {
		if m.ctx.Err() == nil {
			m.log.Warn().Err(err).Str("remote", remote).Msg("closing an election connection: refused by TLS")
		}
		return
	}
	if v, c, ok := quorumtls.Describe(conn); ok {
		m.log.Info().Str("remote", remote).Str("protocol", v).Str("cipher", c).Msg("election connection accepted: TLS handshake complete")
	}
	conn.SetReadDeadline(deadline)
	r := bufio.NewReader(conn)
	hello, err := fle.ReadInitialMessage(r)
	if err != nil {
		m.log.Warn().Err(err).Str("remote", remote).Msg("closing an election connection: bad initial message")
		conn.Close()
		return
	}
	sid := hello.SID
	if sid == fle.ObserverID {
		m.mu.Lock()
		sid = m.observerCounter
		m.observerCounter--
		m.mu.Unlock()
		m.log.Info().Int64("server", sid).Str("remote", remote).Msg("observer without an id: giving it a negative one")
	}
	if m.cfg.AuthServer != nil {
		conn.SetWriteDeadline(time.Now().Add(m.cfg.HandshakeTimeout))
		if err := m.cfg.AuthServer(conn, r, sid); err != nil {
			m.log.Error().Err(err).Int64("server", sid).Str("remote", remote).Msg("closing an election connection: quorum authentication failed")
			conn.Close()
			return
		}
	}
	switch {
	case sid == m.cfg.ID:
		m.log.Warn().Int64("server", sid).Str("remote", remote).Msg("election connection from a server with this server's own id: a configuration error; closing it")
		conn.Close()
	case sid < m.cfg.ID:
		// This server has the larger id: it opens the connection that is
		// kept. Whatever connection it had to sid is stale now.
		m.dropLink(sid)
		conn.Close()
		m.connectOne(sid, hello.Addrs)
	default:
		conn.SetReadDeadline(time.Time{})
		m.keep(sid, conn, r, seq)
	}
}

// dropLink closes the connection to sid, if any.
func (m *Manager) dropLink(sid int64) {
	m.mu.Lock()
	var l *link
	if p := m.peers[sid]; p != nil {
		l = p.link
	}
	m.mu.Unlock()
	if l != nil {
		l.finish()
	}
}

// keep makes conn the connection to sid, replacing an older one; a
// connection older than the one kept already is closed instead.
func (m *Manager) keep(sid int64, conn net.Conn, r *bufio.Reader, seq uint64) {
	l := &link{m: m, sid: sid, conn: conn, seq: seq, wake: make(chan struct{}, 1), done: make(chan struct{})}
	m.mu.Lock()
	p := m.peer(sid)
	if m.closed || p.link != nil && p.link.seq > seq {
		m.mu.Unlock()
		conn.Close()
		return
	}
	old := p.link
	p.link = l
	m.wg.Add(2)
	m.mu.Unlock()
	if old != nil {
		old.finish()
	}
	m.log.Info().Int64("server", sid).Str("remote", conn.RemoteAddr().String()).Msg("election connection up")
	l.poke()
	go l.sendLoop()
	go l.recvLoop(r)
}

// link is one kept connection: a goroutine writes the peer's send slot to
// it, another reads frames from it.
type link struct {
	m    *Manager
	sid  int64
	conn net.Conn
	seq  uint64
	wake chan struct{}
	done chan struct{}
	once sync.Once
}

func (l *link) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// finish closes the connection and forgets it; the next Send or
// ConnectAll dials again.
func (l *link) finish() {
	l.once.Do(func() {
		close(l.done)
		l.conn.Close()
		l.m.mu.Lock()
		if p := l.m.peers[l.sid]; p != nil && p.link == l {
			p.link = nil
		}
		l.m.mu.Unlock()
	})
}

func (l *link) sendLoop() {
	defer l.m.wg.Done()
	defer l.finish()
	var frame []byte
	first := true
	for {
		select {
		case <-l.done:
			return
		case <-l.wake:
		}
		l.m.mu.Lock()
		p := l.m.peers[l.sid]
		if p == nil || p.link != l {
			l.m.mu.Unlock()
			return
		}
		msg := p.pending
		p.pending = nil
		if msg == nil && first {
			// A new connection with nothing newer to send repeats the last
			// message: the peer may have missed it when the old one broke.
			msg = p.last
		}
		if msg != nil {
			p.last = msg
		}
		l.m.mu.Unlock()
		first = false
		if msg == nil {
			continue
		}
		frame = fle.AppendFrame(frame[:0], msg)
		l.conn.SetWriteDeadline(time.Now().Add(l.m.cfg.HandshakeTimeout))
		if _, err := l.conn.Write(frame); err != nil {
			l.m.log.Warn().Err(err).Int64("server", l.sid).Msg("election connection broken while sending")
			return
		}
	}
}

func (l *link) recvLoop(r *bufio.Reader) {
	defer l.m.wg.Done()
	defer l.finish()
	var buf []byte
	for {
		payload, err := fle.ReadFrame(r, buf)
		if err != nil {
			select {
			case <-l.done:
				return // closed here
			default:
			}
			if errors.Is(err, fle.ErrFrame) {
				l.m.log.Warn().Err(err).Int64("server", l.sid).Str("remote", l.conn.RemoteAddr().String()).Msg("closing an election connection: bad frame")
			} else {
				l.m.log.Info().Err(err).Int64("server", l.sid).Msg("election connection lost")
			}
			return
		}
		buf = payload
		l.m.deliver(Message{From: l.sid, Payload: append([]byte(nil), payload...)})
	}
}
