package peer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/internal/failpoint"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/quorum/quorumauth"
	"github.com/gozk/gozk/quorum/quorumtls"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// LearnerStore carries out what zab.Learner asks of a learner's data:
// epochs, the log, the tree, snapshots and the start of serving. Each
// call returns once done, except LogTxn, whose durability is reported
// later on Logged (a group commit makes many txns durable at once).
type LearnerStore interface {
	PersistAcceptedEpoch(epoch int64) error
	PersistCurrentEpoch(epoch int64) error
	// TruncateLog drops every logged txn after zxid, and every snapshot
	// newer than it, and reloads the tree.
	TruncateLog(zxid int64) error
	// LoadSnapshot reads the tree the leader streams after SNAP
	// (zkfiles.DecodeSnapStream) from r, which it must not read past the
	// stream's signature, and makes it the tree, at zxid.
	LoadSnapshot(r *bufio.Reader, zxid int64) error
	TakeSnapshot(sync bool) error
	ApplyTxn(txn zab.Txn) error
	LogTxn(txn zab.Txn) error
	// FlushLog returns once every txn logged so far is durable.
	FlushLog() error
	CommitTxn(zxid int64) error
	// StartServing serves clients; their writes, syncs and reconnects
	// reach the leader through link.
	StartServing(link server.LeaderLink) error
	// Logged delivers the zxid up to which logged txns are durable,
	// rising, as group commits complete.
	Logged() <-chan int64
}

// LearnerHooks are the parts of a learner's work outside its data: the
// election vote, the session tables and pending syncs.
type LearnerHooks struct {
	// UpdateElectionVote is Elector.UpdatePeerEpoch.
	UpdateElectionVote func(epoch int64)
	// TouchTable returns the sessions seen since the last ping, for the
	// PING reply (zab.AppendTouchTable).
	TouchTable func() []zab.SessionTouch
	// Revalidated and SyncDone answer a client waiting on this server.
	Revalidated func(session int64, valid bool)
	SyncDone    func(p proto.QuorumPacket)
	// Synced, when set, hears the sync mode once the leader has chosen
	// it (DIFF, SNAP, TRUNC) and again when the learner serves.
	Synced func(mode zab.SyncMode, serving bool)
	// Received, when set, hears the type of every packet from the
	// leader, for the learner's statistics.
	Received func(t zab.PacketType)
	// StartRelay, when set, is called once a follower serves, after
	// the packets of its sync are taken, with the last zxid it was
	// proposed and its way to the leader: the observer master
	// (observerMasterPort) starts there, as Java's follower starts its
	// ObserverMaster after its sync. From then on Proposed and
	// Committed hear every proposal and commit, in order.
	StartRelay func(epoch, lastProposed int64, up server.LeaderLink)
	Proposed   func(zxid int64, data []byte)
	Committed  func(zxid int64)
}

// LearnerConn is how a learner reaches its leader.
type LearnerConn struct {
	// LeaderAddrs are the leader's quorum addresses: one, or several
	// from a multi-address server line. Each is dialled at once, as
	// Java's LeaderConnectors do, and the first to connect is kept.
	LeaderAddrs []string
	// InitTimeout bounds connecting and every read until NEWLEADER
	// (initLimit x tickTime); SyncTimeout bounds every read after it
	// (syncLimit x tickTime): a leader silent that long is lost.
	InitTimeout time.Duration
	SyncTimeout time.Duration
	// MaxPacket bounds a packet's data (jute.maxbuffer plus its extra
	// size).
	MaxPacket int
	// TLS is sslQuorum: with it the learner speaks TLS to its leader and
	// verifies the leader's certificate; nil is plain.
	TLS    *quorumtls.Config
	Logger zerolog.Logger
	// Auth, when set, authenticates this learner to the leader with
	// quorum SASL before anything else is said (over TLS when TLS is
	// set); LeaderHost is the leader's host name as configured
	// (Kerberos' _HOST).
	Auth       *quorumauth.Learner
	LeaderHost string
}

// ErrLeaderLost is wrapped by FollowLeader's error when the connection to
// the leader ends (closed, or silent past its timeout): the server goes
// back to electing.
var ErrLeaderLost = errors.New("peer: leader lost")

// FollowLeader connects to the leader and runs learner l (fresh, not
// started) with it until the connection ends or ctx is done. It returns
// an error wrapping ErrLeaderLost when the leader goes away, a
// *zab.FatalError when the server must stop, or another error for a
// leader that broke the protocol; in each case the caller goes back to
// electing, except for a FatalError.
func FollowLeader(ctx context.Context, c LearnerConn, l *zab.Learner, store LearnerStore, hooks LearnerHooks) error {
	conn, addr, err := dialLeader(ctx, c)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	dc := &deadlineConn{Conn: conn}
	dc.timeout.Store(int64(c.InitTimeout))
	if err := c.Auth.Authenticate(dc, c.LeaderHost, addr); err != nil {
		return fmt.Errorf("peer: connecting to the leader: %w", err)
	}
	r := &learnerRun{c: c, addr: addr, l: l, store: store, hooks: hooks, conn: dc, br: bufio.NewReaderSize(dc, 64<<10)}
	return r.run(ctx)
}

// Java's connectToLeader: up to five tries within initLimit, 100 ms apart
// (zookeeper.leaderConnectDelayDuringRetryMs), since a follower often
// decides before its new leader listens.
const (
	leaderConnectTries      = 5
	leaderConnectRetryDelay = 100 * time.Millisecond
)

// dialLeader connects to one of the leader's addresses and returns the
// connection and the address it reached. With several addresses every
// one is dialled at once; the first connection (after its TLS handshake)
// wins, the others are stopped and closed, and only when all fail is
// the leader lost, with every address's error.
func dialLeader(ctx context.Context, c LearnerConn) (net.Conn, string, error) {
	if len(c.LeaderAddrs) == 0 {
		return nil, "", fmt.Errorf("%w: no address to reach the leader at", ErrLeaderLost)
	}
	if len(c.LeaderAddrs) == 1 {
		conn, err := dialLeaderAt(ctx, c, c.LeaderAddrs[0])
		return conn, c.LeaderAddrs[0], err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type dialed struct {
		conn net.Conn
		addr string
		err  error
	}
	results := make(chan dialed, len(c.LeaderAddrs))
	for _, addr := range c.LeaderAddrs {
		go func() {
			conn, err := dialLeaderAt(ctx, c, addr)
			results <- dialed{conn, addr, err}
		}()
	}
	var won dialed
	var errs []error
	for range c.LeaderAddrs {
		d := <-results
		switch {
		case d.err != nil:
			errs = append(errs, d.err)
		case won.conn == nil:
			won = d
			cancel()
		default:
			c.Logger.Info().Str("leader", d.addr).Msg("connected to the leader at another address already; closing this one")
			d.conn.Close()
		}
	}
	if won.conn == nil {
		return nil, "", errors.Join(errs...)
	}
	c.Logger.Info().Str("leader", won.addr).Int("addresses", len(c.LeaderAddrs)).Msg("connected to the leader")
	return won.conn, won.addr, nil
}

// dialLeaderAt is Java's connectToLeader for one address: up to five
// tries within initLimit, 100 ms apart.
func dialLeaderAt(ctx context.Context, c LearnerConn, addr string) (net.Conn, error) {
	start := time.Now()
	for try := 1; ; try++ {
		timeout := c.InitTimeout
		if timeout > 0 {
			timeout -= time.Since(start)
		}
		d := net.Dialer{Timeout: timeout}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			// A failed handshake counts as a failed try, as in Java.
			var by time.Time
			if c.InitTimeout > 0 {
				by = start.Add(c.InitTimeout)
			}
			conn, err = c.TLS.Dial(ctx, conn, addr, by)
		}
		if err == nil {
			if v, cs, ok := quorumtls.Describe(conn); ok {
				c.Logger.Info().Str("leader", addr).Str("protocol", v).Str("cipher", cs).Msg("connected to the leader: TLS handshake complete")
			}
			return conn, nil
		}
		left := c.InitTimeout - time.Since(start)
		if try >= leaderConnectTries || ctx.Err() != nil || c.InitTimeout > 0 && left <= leaderConnectRetryDelay {
			return nil, fmt.Errorf("%w: connecting to %s (%d tries): %w", ErrLeaderLost, addr, try, err)
		}
		c.Logger.Warn().Err(err).Str("leader", addr).Int("try", try).Msg("cannot connect to the leader; trying again")
		select {
		case <-time.After(leaderConnectRetryDelay):
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: connecting to %s: %w", ErrLeaderLost, addr, ctx.Err())
		}
	}
}

// deadlineConn bounds each read by the current timeout, as Java's socket
// timeout does: a SNAP's tree may take longer than initLimit in all, as
// long as no single read waits that long.
type deadlineConn struct {
	net.Conn
	timeout atomic.Int64 // time.Duration; 0 = none
}

func (c *deadlineConn) Read(p []byte) (int, error) {
	if t := time.Duration(c.timeout.Load()); t > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(t))
	}
	return c.Conn.Read(p)
}

type learnerRun struct {
	c     LearnerConn
	addr  string // the leader's address this learner reached
	l     *zab.Learner
	store LearnerStore
	hooks LearnerHooks
	conn  *deadlineConn
	br    *bufio.Reader

	modeReported bool
	// lastLogged is the last txn the learner logged; relaying says
	// whether StartRelay was called (the feed is on).
	lastLogged int64
	relaying   bool

	// Packets go out from the run's goroutine (ACKs, PING replies) and
	// from the server's (REQUEST, REVALIDATE): one at a time.
	sendMu sync.Mutex
	out    []byte
}

type readResult struct {
	p   proto.QuorumPacket
	err error
}

func (r *learnerRun) run(ctx context.Context) error {
	// The reader goroutine ends with run, whatever ends it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := r.do(r.l.Start()); err != nil {
		return err
	}
	// Packets are read on their own goroutine so that durability reports
	// (and the ACKs they release) are not held behind a read. A SNAP's
	// stream is read by LoadSnapshot in the middle of the packets, so the
	// reader waits for each packet's actions before reading the next.
	packets := make(chan readResult)
	// next tells the reader that the previous packet's actions are done
	// (and the reader's buffer is its own again).
	next := make(chan struct{})
	go func() {
		defer close(packets)
		for {
			p, err := zab.ReadPacket(r.br, r.c.MaxPacket)
			select {
			case packets <- readResult{p, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			select {
			case <-next:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case upTo := <-r.store.Logged():
			acks := r.l.Logged(upTo)
			if len(acks) > 0 {
				if err := failpoint.Hit(failpoint.LearnerLoggedBeforeAck); err != nil {
					return fmt.Errorf("peer: proposals logged up to 0x%x: %w", upTo, err)
				}
			}
			if err := r.do(acks); err != nil {
				return err
			}
		case res, ok := <-packets:
			if !ok {
				return ctx.Err()
			}
			if res.err != nil {
				return fmt.Errorf("%w: reading from %s: %w", ErrLeaderLost, r.addr, res.err)
			}
			if r.hooks.Received != nil {
				r.hooks.Received(zab.PacketType(res.p.Type))
			}
			actions, err := r.l.Receive(res.p)
			for _, w := range r.l.TakeWarnings() {
				r.c.Logger.Warn().Str("leader", r.addr).Msg(w)
			}
			if err != nil {
				return err
			}
			if m := r.l.SyncMode(); !r.modeReported && m != zab.SyncNone {
				// Known from the leader's first sync packet, before its
				// actions (a SNAP's stream) run.
				r.modeReported = true
				if r.hooks.Synced != nil {
					r.hooks.Synced(m, false)
				}
			}
			if err := r.do(actions); err != nil {
				return err
			}
			if zab.PacketType(res.p.Type) == zab.NewLeader && sendsAck(actions) {
				// The ACK is written (do flushes what it queued).
				if err := failpoint.Hit(failpoint.LearnerAfterNewLeaderAck); err != nil {
					return fmt.Errorf("peer: after acknowledging NEWLEADER: %w", err)
				}
			}
			if !r.relaying && r.l.Serving() && r.hooks.StartRelay != nil {
				r.relaying = true
				r.hooks.StartRelay(r.l.NewEpoch(), r.lastLogged, leaderLink{r})
			}
			// Reads wait up to syncLimit from NEWLEADER on, as Java's.
			if r.l.SawNewLeader() {
				r.conn.timeout.Store(int64(r.c.SyncTimeout))
			}
			select {
			case next <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// do carries out actions in order, each complete before the next. The
// packets it sends are written together once the actions are done (or
// before one that waits on the disk or reads the connection): a group
// commit acknowledges many proposals at once, in one write, as Java's
// follower flushes its ACKs.
func (r *learnerRun) do(actions []zab.Action) error {
	for _, a := range actions {
		var err error
		switch a.Kind {
		case zab.TruncateLog, zab.LoadSnapshot, zab.TakeSnapshot, zab.FlushLog:
			err = r.flush()
		}
		if err != nil {
			return fmt.Errorf("peer: %s: %w", a.Kind, err)
		}
		switch a.Kind {
		case zab.SendPacket:
			r.queue(a.Packet)
		case zab.PersistAcceptedEpoch:
			err = r.store.PersistAcceptedEpoch(a.Epoch)
		case zab.PersistCurrentEpoch:
			err = r.store.PersistCurrentEpoch(a.Epoch)
		case zab.TruncateLog:
			if err = r.store.TruncateLog(a.Zxid); err != nil {
				// A log that cannot be truncated cannot be trusted.
				return &zab.FatalError{Code: zab.ExitQuorumPacketError, Msg: fmt.Sprintf("peer: truncating the log to 0x%x: %v", a.Zxid, err)}
			}
		case zab.LoadSnapshot:
			err = r.store.LoadSnapshot(r.br, a.Zxid)
		case zab.TakeSnapshot:
			err = r.store.TakeSnapshot(a.Sync)
		case zab.ApplyTxn:
			err = r.store.ApplyTxn(a.Txn)
		case zab.LogTxn:
			err = r.store.LogTxn(a.Txn)
			r.lastLogged = max(r.lastLogged, a.Txn.Zxid)
			if r.relaying && err == nil {
				r.hooks.Proposed(a.Txn.Zxid, a.Txn.Data)
			}
		case zab.FlushLog:
			err = r.store.FlushLog()
		case zab.CommitTxn:
			err = r.store.CommitTxn(a.Zxid)
			if r.relaying && err == nil {
				r.hooks.Committed(a.Zxid)
			}
		case zab.StartServing:
			err = r.store.StartServing(leaderLink{r})
			if r.hooks.Synced != nil {
				r.hooks.Synced(zab.SyncNone, true)
			}
		case zab.UpdateElectionVote:
			if r.hooks.UpdateElectionVote != nil {
				r.hooks.UpdateElectionVote(a.Epoch)
			}
		case zab.ReplyPing:
			p := a.Packet
			var touches []zab.SessionTouch
			if r.hooks.TouchTable != nil {
				touches = r.hooks.TouchTable()
			}
			p.Data = zab.AppendTouchTable([]byte{}, touches)
			r.queue(p)
		case zab.Revalidated:
			if r.hooks.Revalidated != nil {
				r.hooks.Revalidated(a.Session, a.Valid)
			}
		case zab.SyncDone:
			if r.hooks.SyncDone != nil {
				r.hooks.SyncDone(a.Packet)
			}
		}
		if err != nil {
			return fmt.Errorf("peer: %s: %w", a.Kind, err)
		}
	}
	return r.flush()
}

// sendsAck reports whether actions send an ACK.
func sendsAck(actions []zab.Action) bool {
	for _, a := range actions {
		if a.Kind == zab.SendPacket && zab.PacketType(a.Packet.Type) == zab.Ack {
			return true
		}
	}
	return false
}

// queue adds p to the packets the next flush writes.
func (r *learnerRun) queue(p proto.QuorumPacket) {
	r.sendMu.Lock()
	r.out = zab.AppendPacket(r.out, &p)
	r.sendMu.Unlock()
}

// flush writes the queued packets in one write.
func (r *learnerRun) flush() error {
	r.sendMu.Lock()
	defer r.sendMu.Unlock()
	if len(r.out) == 0 {
		return nil
	}
	if r.c.SyncTimeout > 0 {
		r.conn.SetWriteDeadline(time.Now().Add(r.c.SyncTimeout))
	}
	_, err := r.conn.Write(r.out)
	if cap(r.out) > maxKeptSendBuffer {
		r.out = nil
	} else {
		r.out = r.out[:0]
	}
	if err != nil {
		return fmt.Errorf("%w: writing to %s: %w", ErrLeaderLost, r.addr, err)
	}
	return nil
}

// maxKeptSendBuffer bounds the send buffer kept between flushes.
const maxKeptSendBuffer = 1 << 20

// send writes p now (with whatever was queued before it).
func (r *learnerRun) send(p proto.QuorumPacket) error {
	r.queue(p)
	return r.flush()
}

// leaderLink is the server's way to the leader while this learner
// serves: REQUEST and REVALIDATE packets on the learner's connection.
type leaderLink struct{ r *learnerRun }

func (k leaderLink) Forward(sid int64, cxid int32, op proto.OpCode, body []byte, ids []proto.Id) error {
	data := zab.AppendRequest(make([]byte, 0, 16+len(body)), zab.ForwardedRequest{Session: sid, Cxid: cxid, Op: int32(op), Body: body})
	if ids == nil {
		ids = []proto.Id{}
	}
	return k.r.send(proto.QuorumPacket{Type: int32(zab.Request), Zxid: -1, Data: data, Authinfo: ids})
}

func (k leaderLink) Revalidate(sid int64, timeout int32) error {
	return k.r.send(proto.QuorumPacket{Type: int32(zab.Revalidate), Zxid: -1, Data: zab.AppendRevalidate(nil, sid, timeout)})
}
