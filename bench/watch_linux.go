package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// On Linux the watchers' sockets leave Go's network poller for epoll
// instances of the load generator's own, one per receiver goroutine (one
// per CPU). A receiver reads every socket epoll reports ready in turn, so
// a notification costs the load generator one read system call and its
// share of an epoll_wait, where a goroutine per watcher also paid for
// Go's poller, a goroutine wake-up and a park per notification: about as
// much again. That cost, paid while the server is still writing
// notifications on the same cores, is part of every fan-out measured, for
// Java as for gozk. The setter keeps its ordinary conn.

// epollFleet is the Linux watchFleet.
type epollFleet struct {
	parts []*epollPart
	wg    sync.WaitGroup
	alive atomic.Int64
	round *epollRound
}

// epollRound is one fan-out: each part is done arming, then done with
// its notifications, once.
type epollRound struct {
	armed    sync.WaitGroup
	notified sync.WaitGroup
	measured bool
	fired    atomic.Pointer[time.Time]

	mu   sync.Mutex
	last time.Time
	lost bool
}

// rawWatcher is one watcher session on a socket of its own.
type rawWatcher struct {
	fd    int
	xid   int32
	want  int32 // xid of the outstanding request
	state watcherState
	in    []byte // the start of a frame not yet complete
	t     tally
}

type watcherState uint8

const (
	watcherIdle    watcherState = iota
	watcherArming               // getData sent
	watcherWaiting              // armed, waiting for the notification
	watcherClosing              // closeSession sent
	watcherGone
)

// partCmd is what the fleet asks of a part.
type partCmd struct {
	round *epollRound // arm for this round
	abort bool        // drop every watcher
	close bool        // close every session, then stop
}

// epollPart is one receiver goroutine with its watchers and epoll
// instance. Everything in it belongs to that goroutine.
type epollPart struct {
	fleet   *epollFleet
	node    string
	timeout time.Duration
	epfd    int
	wakeFd  int // eventfd: a command is waiting
	cmds    chan partCmd
	ws      []*rawWatcher
	buf     []byte
	out     jute.Writer

	round         *epollRound
	reportedArmed bool
	arming        int // watchers of the round still arming
	waiting       int // watchers of the round still waiting for the notification
	closing       int
	closed        bool // close was asked for
	last          time.Time
	lost          bool
	deadline      time.Time // no progress by then: the watchers still waiting are lost
}

func newWatchFleet(conns []*conn, node string, timeout time.Duration) (watchFleet, error) {
	f := &epollFleet{}
	nparts := min(runtime.GOMAXPROCS(0), len(conns))
	for range nparts {
		p, err := newEpollPart(f, node, timeout)
		if err != nil {
			// No epoll to be had (a sandbox): the sessions are still
			// in Go's hands.
			for _, p := range f.parts {
				p.release()
			}
			return newGoFleet(conns, node), nil
		}
		f.parts = append(f.parts, p)
	}
	for i, p := range f.parts {
		for j := i; j < len(conns); j += nparts {
			w, err := detach(conns[j])
			if err == nil {
				err = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, w.fd,
					&unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(len(p.ws))})
				if err != nil {
					unix.Close(w.fd)
				}
			}
			if err != nil {
				// The sessions already detached are left to expire.
				for _, p := range f.parts {
					for _, w := range p.ws {
						unix.Close(w.fd)
					}
					p.release()
				}
				return nil, fmt.Errorf("watcher socket: %w", err)
			}
			p.ws = append(p.ws, w)
		}
	}
	f.alive.Store(int64(len(conns)))
	for _, p := range f.parts {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			p.run()
		}()
	}
	return f, nil
}

// detach takes the socket of an established session out of Go's poller:
// a duplicate descriptor (non-blocking, like the original) outlives the
// net.Conn, whose Close only deregisters and closes the original.
func detach(c *conn) (*rawWatcher, error) {
	if c.br.Buffered() > 0 {
		return nil, errors.New("data after the handshake")
	}
	sc, ok := c.nc.(syscall.Conn)
	if !ok {
		return nil, errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, dupErr := -1, error(nil)
	if err := rc.Control(func(orig uintptr) { fd, dupErr = unix.FcntlInt(orig, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	c.nc.Close()
	return &rawWatcher{fd: fd, xid: c.xid}, nil
}

func newEpollPart(f *epollFleet, node string, timeout time.Duration) (*epollPart, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create: %w", err)
	}
	wakeFd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakeFd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}); err != nil {
		unix.Close(epfd)
		unix.Close(wakeFd)
		return nil, fmt.Errorf("epoll_ctl: %w", err)
	}
	return &epollPart{
		fleet: f, node: node, timeout: timeout, epfd: epfd, wakeFd: wakeFd,
		cmds: make(chan partCmd, 1), buf: make([]byte, 64<<10),
	}, nil
}

func (f *epollFleet) live() int { return int(f.alive.Load()) }

func (f *epollFleet) send(cmd partCmd) {
	for _, p := range f.parts {
		p.cmds <- cmd
		var one [8]byte
		one[7] = 1
		_, _ = unix.Write(p.wakeFd, one[:])
	}
}

func (f *epollFleet) arm(measured bool) {
	f.round = &epollRound{measured: measured}
	f.round.armed.Add(len(f.parts))
	f.round.notified.Add(len(f.parts))
	f.send(partCmd{round: f.round})
	f.round.armed.Wait()
}

func (f *epollFleet) firing(at time.Time) { f.round.fired.Store(&at) }

func (f *epollFleet) await() (last time.Time, all bool) {
	f.round.notified.Wait()
	f.round.mu.Lock()
	defer f.round.mu.Unlock()
	return f.round.last, !f.round.lost
}

func (f *epollFleet) abort() {
	f.send(partCmd{abort: true})
	f.round.notified.Wait()
}

func (f *epollFleet) close() []*tally {
	f.send(partCmd{close: true})
	f.wg.Wait()
	var tallies []*tally
	for _, p := range f.parts {
		for _, w := range p.ws {
			tallies = append(tallies, &w.t)
		}
		p.release()
	}
	return tallies
}

func (p *epollPart) release() {
	unix.Close(p.epfd)
	unix.Close(p.wakeFd)
}

// run serves commands and socket events until the sessions are closed.
func (p *epollPart) run() {
	events := make([]unix.EpollEvent, 256)
	for {
		select {
		case cmd := <-p.cmds:
			p.command(cmd)
		default:
		}
		if p.closed && p.closing == 0 {
			return
		}
		msec := -1
		if !p.deadline.IsZero() {
			msec = max(0, int(time.Until(p.deadline).Milliseconds())+1)
		}
		n, err := unix.EpollWait(p.epfd, events, msec)
		if err != nil && err != unix.EINTR {
			p.loseAll("epoll_wait: "+err.Error(), true)
			continue
		}
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd < 0 {
				var b [8]byte
				_, _ = unix.Read(p.wakeFd, b[:])
				continue
			}
			p.readFrom(p.ws[ev.Fd])
		}
		if !p.deadline.IsZero() && time.Now().After(p.deadline) {
			p.loseAll("connection: timeout", false)
		}
	}
}

// command starts what cmd asks.
func (p *epollPart) command(cmd partCmd) {
	switch {
	case cmd.round != nil:
		p.round, p.last, p.lost = cmd.round, time.Time{}, false
		get := proto.GetDataRequest{Path: p.node, Watch: true}
		for _, w := range p.ws {
			if w.state != watcherIdle {
				continue
			}
			if err := p.send(w, proto.OpGetData, &get); err != nil {
				p.lose(w, "arm: "+err.Error())
				continue
			}
			w.state = watcherArming
			p.arming++
		}
		p.progress()
		p.roundStep()
	case cmd.abort:
		p.loseAll("", true)
	case cmd.close:
		p.closed = true
		for _, w := range p.ws {
			if w.state != watcherIdle {
				continue
			}
			if err := p.send(w, proto.OpCloseSession, nil); err != nil {
				p.lose(w, "")
				continue
			}
			w.state = watcherClosing
			p.closing++
		}
		p.progress()
	}
}

// send writes one request; the socket is empty between rounds, so a
// request this small always fits.
func (p *epollPart) send(w *rawWatcher, op proto.OpCode, rec jute.Record) error {
	w.xid = nextXid(w.xid)
	p.out.Reset()
	appendRequest(&p.out, w.xid, op, rec)
	b := p.out.Bytes()
	n, err := unix.Write(w.fd, b)
	if err == nil && n < len(b) {
		err = errors.New("short write")
	}
	w.want = w.xid
	return err
}

func (p *epollPart) progress() {
	if p.arming+p.waiting+p.closing > 0 {
		p.deadline = time.Now().Add(p.timeout)
	} else {
		p.deadline = time.Time{}
	}
}

// readFrom reads what the socket has and handles every complete frame.
func (p *epollPart) readFrom(w *rawWatcher) {
	if w.state == watcherGone {
		return
	}
	n, err := unix.Read(w.fd, p.buf)
	switch {
	case err == unix.EAGAIN || err == unix.EINTR:
		return
	case err != nil:
		p.lose(w, connErrName(err))
		return
	case n == 0:
		p.lose(w, "connection: EOF")
		return
	}
	now := time.Now()
	data := p.buf[:n]
	if len(w.in) > 0 {
		w.in = append(w.in, data...)
		data = w.in
	}
	for len(data) >= 4 {
		size := int(int32(binary.BigEndian.Uint32(data)))
		if size < 16 || size > maxFrame {
			p.lose(w, fmt.Sprintf("reply frame of %d bytes", size))
			return
		}
		if len(data) < 4+size {
			break
		}
		if !p.frame(w, data[4:4+size], now) {
			return
		}
		data = data[4+size:]
	}
	w.in = append(w.in[:0:0], data...)
	p.progress()
	p.roundStep()
}

// frame handles one frame; false means the watcher is lost.
func (p *epollPart) frame(w *rawWatcher, f []byte, now time.Time) bool {
	xid := int32(binary.BigEndian.Uint32(f))
	switch {
	case xid == xidNotification:
		if w.state == watcherWaiting && isDataChanged(f[16:], p.node) {
			w.state = watcherIdle
			p.waiting--
			if fired := p.round.fired.Load(); fired != nil && p.round.measured {
				w.t.done(kindNotify, *fired, now)
			}
			if now.After(p.last) {
				p.last = now
			}
		}
		return true
	case xid == xidPing:
		return true
	case xid != w.want || w.want == 0:
		p.lose(w, fmt.Sprintf("reply xid %d, want %d", xid, w.want))
		return false
	}
	w.want = 0
	code := proto.ErrCode(int32(binary.BigEndian.Uint32(f[12:])))
	switch w.state {
	case watcherArming:
		p.arming--
		if code != proto.ErrOK {
			w.state = watcherIdle // counted out of arming already
			p.lose(w, "arm: "+code.Error())
			return false
		}
		w.state = watcherWaiting
		p.waiting++
	case watcherClosing:
		p.closing--
		p.drop(w)
		return false
	}
	return true
}

// roundStep reports the part's progress in the round to the fleet.
func (p *epollPart) roundStep() {
	r := p.round
	if r == nil || p.arming > 0 {
		return
	}
	if !p.reportedArmed {
		p.reportedArmed = true
		r.armed.Done()
	}
	if p.waiting > 0 {
		return
	}
	r.mu.Lock()
	if p.last.After(r.last) {
		r.last = p.last
	}
	r.lost = r.lost || p.lost
	r.mu.Unlock()
	p.round, p.reportedArmed = nil, false
	r.notified.Done()
}

// lose drops a watcher for good, counting why in its tally when the round
// is measured (why "" counts nothing).
func (p *epollPart) lose(w *rawWatcher, why string) {
	switch w.state {
	case watcherGone:
		return
	case watcherArming:
		p.arming--
	case watcherWaiting:
		p.waiting--
	case watcherClosing:
		p.closing--
	}
	if p.round != nil {
		p.lost = true
		if p.round.measured && why != "" {
			w.t.fail(why)
		}
	}
	p.drop(w)
	p.fleet.alive.Add(-1)
	p.roundStep()
}

// loseAll loses the watchers with a request or a notification
// outstanding, and with idle too the others.
func (p *epollPart) loseAll(why string, idle bool) {
	for _, w := range p.ws {
		if w.state != watcherGone && (idle || w.state != watcherIdle) {
			p.lose(w, why)
		}
	}
	p.progress()
}

// drop closes the watcher's socket.
func (p *epollPart) drop(w *rawWatcher) {
	_ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, w.fd, nil)
	unix.Close(w.fd)
	w.state, w.in = watcherGone, nil
}
