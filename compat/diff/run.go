package diff

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// DefaultWaitLimit bounds each wait for a frame during a run. It only
// keeps a server that never answers from hanging the test; it says
// nothing about how fast a server must be.
const DefaultWaitLimit = 20 * time.Second

// defaultTimeoutMs is the session timeout connections ask for unless a
// step says otherwise.
const defaultTimeoutMs = 30000

// RunOptions tune a run.
type RunOptions struct {
	// WaitLimit bounds each wait for a frame; 0 means DefaultWaitLimit.
	WaitLimit time.Duration
}

// RunAgainst runs sc against the server at addr and returns the
// normalised transcript. The server should be fresh: scenarios assume an
// empty tree. On error the transcript holds everything up to the failure.
func RunAgainst(addr string, sc Scenario) (Transcript, error) {
	return RunWith(addr, sc, RunOptions{})
}

// RunWith is RunAgainst with options.
func RunWith(addr string, sc Scenario, opts RunOptions) (Transcript, error) {
	wait := opts.WaitLimit
	if wait <= 0 {
		wait = DefaultWaitLimit
	}
	r := &runner{
		addr:     addr,
		wait:     wait,
		norm:     newNormalizer(time.Now()),
		conns:    make(map[int]*conn),
		sessions: make(map[int]sessionInfo),
		marks:    make(map[string]int64),
	}
	defer r.closeAll()
	r.line("scenario %s (server: %s)", sc.Name, sc.Server.GroupName())
	for i, st := range sc.Steps {
		if err := st.apply(r); err != nil {
			err = fmt.Errorf("scenario %s, step %d: %w", sc.Name, i+1, err)
			r.line("!! %v", err)
			return r.transcript(sc), err
		}
	}
	if err := r.finish(); err != nil {
		err = fmt.Errorf("scenario %s, final pings: %w", sc.Name, err)
		r.line("!! %v", err)
		return r.transcript(sc), err
	}
	return r.transcript(sc), nil
}

type runner struct {
	addr     string
	wait     time.Duration
	norm     *normalizer
	conns    map[int]*conn
	sessions map[int]sessionInfo
	marks    map[string]int64
	lines    []string
}

// conn is one connection slot of a scenario ("s1", "s2", ...).
type conn struct {
	slot        int
	c           *zkwire.Client
	ended       bool // the server closed it, or the scenario dropped it
	nextXid     int32
	outstanding []proto.OpCode // requests whose replies have not arrived, in order
}

type sessionInfo struct {
	id       int64
	password []byte
}

func (r *runner) line(format string, args ...any) {
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *runner) transcript(sc Scenario) Transcript {
	return Transcript{Scenario: sc.Name, Lines: r.lines}
}

func (r *runner) closeAll() {
	for _, c := range r.conns {
		if c.c != nil {
			c.c.Close()
		}
	}
}

// live returns the open connection in slot s.
func (r *runner) live(s int) (*conn, error) {
	c, ok := r.conns[s]
	if !ok || c.c == nil {
		return nil, fmt.Errorf("connection s%d was never opened", s)
	}
	return c, nil
}

func (c *conn) xid(req Request) int32 {
	if req.FixedXid {
		return req.Xid
	}
	c.nextXid++
	return c.nextXid
}

// encode builds the frame for req and the line describing it.
func (r *runner) encode(c *conn, req Request) ([]byte, string, error) {
	body := req.Body
	if req.Build != nil {
		body = req.Build(r.marks)
	}
	xid := c.xid(req)
	var payload any
	switch {
	case req.Raw != nil:
		payload = req.Raw
	case body != nil:
		payload = body
	}
	frame, err := zkwire.EncodeRequest(xid, req.Op, payload)
	if err != nil {
		return nil, "", err
	}
	return frame, fmt.Sprintf("s%d -> xid=%d %s", c.slot, xid, describe(req, body)), nil
}

func (st connectStep) apply(r *runner) error {
	if old, ok := r.conns[st.slot]; ok && !old.ended {
		return fmt.Errorf("s%d is still open; Drop it or expect its close first", st.slot)
	}
	o := st.opts
	c := &conn{slot: st.slot}
	timeout := int32(defaultTimeoutMs)
	if o.TimeoutMs != nil {
		timeout = *o.TimeoutMs
	}
	opts := zkwire.Options{
		ReadOnly:     o.ReadOnly,
		OldClient:    o.OldClient,
		LastZxidSeen: o.LastZxidSeen,
		RawConnect:   o.RawConnect,
		WaitLimit:    r.wait,
	}
	desc := []string{fmt.Sprintf("timeout=%d", timeout)}
	if o.Resume != 0 {
		sess, ok := r.sessions[o.Resume]
		if !ok {
			return fmt.Errorf("s%d has no session to resume", o.Resume)
		}
		opts.SessionID = sess.id
		opts.Password = append([]byte(nil), sess.password...)
		desc = append(desc, fmt.Sprintf("resume=session-of-s%d", o.Resume))
		if o.WrongPassword {
			for i := range opts.Password {
				opts.Password[i] ^= 0x5a
			}
			desc = append(desc, "wrong-password")
		}
	}
	if o.SessionID != 0 {
		opts.SessionID = o.SessionID
		desc = append(desc, fmt.Sprintf("session=%#x", o.SessionID))
	}
	if o.LastZxidFrom != 0 {
		from, err := r.live(o.LastZxidFrom)
		if err != nil {
			return err
		}
		opts.LastZxidSeen = from.c.LastZxid() + o.LastZxidDelta
		desc = append(desc, fmt.Sprintf("lastZxidSeen=last-of-s%d%+d", o.LastZxidFrom, o.LastZxidDelta))
	} else if o.LastZxidSeen != 0 {
		desc = append(desc, fmt.Sprintf("lastZxidSeen=%d", o.LastZxidSeen))
	}
	if o.ReadOnly {
		desc = append(desc, "readOnly")
	}
	if o.OldClient {
		desc = append(desc, "old-client")
	}
	if o.RawConnect != nil {
		desc = append(desc, "raw="+data(o.RawConnect))
	}
	r.line("s%d -> connect %s", st.slot, strings.Join(desc, " "))
	for _, req := range o.Pipeline {
		frame, line, err := r.encode(c, req)
		if err != nil {
			return err
		}
		opts.Pipeline = append(opts.Pipeline, frame)
		c.outstanding = append(c.outstanding, req.Op)
		r.line("%s (pipelined)", line)
	}
	r.conns[st.slot] = c
	client, err := zkwire.Connect(r.addr, time.Duration(timeout)*time.Millisecond, opts)
	if errors.Is(err, zkwire.ErrNoHandshake) {
		r.line("s%d <- closed without ConnectResponse", st.slot)
		c.ended = true
		return nil
	}
	if err != nil {
		return err
	}
	c.c = client
	h := client.Handshake
	kind := "session"
	if h.TimeOut == 0 {
		kind = "refused"
	}
	r.line("s%d <- %s proto=%d timeout=%d id=%s pw=%s readOnly=%s len=%d", st.slot, kind,
		h.ProtocolVersion, h.TimeOut, r.norm.session(h.SessionId), r.norm.password(h.Passwd, h.SessionId),
		readOnlyFlag(h), client.HandshakeLen)
	if h.TimeOut != 0 {
		r.sessions[st.slot] = sessionInfo{id: h.SessionId, password: append([]byte(nil), h.Passwd...)}
	}
	return r.awaitReplies(c)
}

func readOnlyFlag(h proto.HandshakeReply) string {
	if h.OldClient {
		return "absent"
	}
	return fmt.Sprint(h.ReadOnly)
}

func (st doStep) apply(r *runner) error {
	c, err := r.live(st.slot)
	if err != nil {
		return err
	}
	var out []byte
	for _, req := range st.reqs {
		frame, line, err := r.encode(c, req)
		if err != nil {
			return err
		}
		if c.ended {
			r.line("%s (not sent: connection closed)", line)
			continue
		}
		out = append(out, frame...)
		c.outstanding = append(c.outstanding, req.Op)
		r.line("%s", line)
	}
	if c.ended {
		return nil
	}
	// A write error means the server has closed the connection; the read
	// side reports that in order, after whatever it sent before closing.
	c.c.SendRaw(out)
	return r.awaitReplies(c)
}

func (st sendStep) apply(r *runner) error {
	c, err := r.live(st.slot)
	if err != nil {
		return err
	}
	frame, line, err := r.encode(c, st.req)
	if err != nil {
		return err
	}
	if c.ended {
		r.line("%s (not sent: connection closed)", line)
		return nil
	}
	r.line("%s (no reply awaited)", line)
	c.c.SendRaw(frame)
	return nil
}

func (st rawStep) apply(r *runner) error {
	c, err := r.live(st.slot)
	if err != nil {
		return err
	}
	if c.ended {
		r.line("s%d -> raw %s (not sent: connection closed)", st.slot, st.desc)
		return nil
	}
	r.line("s%d -> raw %s (%d bytes)", st.slot, st.desc, len(st.b))
	c.c.SendRaw(st.b)
	return nil
}

func (st rawRequestStep) apply(r *runner) error {
	c, err := r.live(st.slot)
	if err != nil {
		return err
	}
	if c.ended {
		r.line("s%d -> raw %s (not sent: connection closed)", st.slot, st.desc)
		return nil
	}
	r.line("s%d -> raw %s (%d bytes)", st.slot, st.desc, len(st.frame))
	c.outstanding = append(c.outstanding, st.op)
	c.c.SendRaw(st.frame)
	return r.awaitReplies(c)
}

func (st expectStep) apply(r *runner) error {
	c, err := r.live(st.slot)
	if err != nil {
		return err
	}
	if st.closed {
		r.line("s%d .. until closed", st.slot)
		for !c.ended {
			if err := r.readOne(c); err != nil {
				return err
			}
		}
		return nil
	}
	r.line("s%d .. %d frame(s)", st.slot, st.frames)
	for i := 0; i < st.frames && !c.ended; i++ {
		if err := r.readOne(c); err != nil {
			return err
		}
	}
	return nil
}

func (st dropStep) apply(r *runner) error {
	c, err := r.live(st.slot)
	if err != nil {
		return err
	}
	r.line("s%d -> drop connection", st.slot)
	c.c.Close()
	c.ended = true
	return nil
}

func (st markStep) apply(r *runner) error {
	c, err := r.live(st.slot)
	if err != nil {
		return err
	}
	r.marks[st.name] = c.c.LastZxid()
	r.line("s%d mark %s = %s", st.slot, st.name, r.norm.zxid(c.c.LastZxid()))
	return nil
}

func (st noteStep) apply(r *runner) error {
	r.line("# %s", st.text)
	return nil
}

// awaitReplies reads until every outstanding request of c is answered or
// the connection ends.
func (r *runner) awaitReplies(c *conn) error {
	for len(c.outstanding) > 0 && !c.ended {
		if err := r.readOne(c); err != nil {
			return err
		}
	}
	return nil
}

// readOne reads and records one frame, or the end of the connection.
func (r *runner) readOne(c *conn) error {
	f, err := c.c.Next()
	switch {
	case errors.Is(err, zkwire.ErrConnectionClosed):
		// Whatever the cause (FIN, reset), the client sees the same thing.
		r.line("s%d <- closed", c.slot)
		c.ended = true
		c.outstanding = nil
		return nil
	case err != nil:
		return fmt.Errorf("s%d: %w (waiting %v)", c.slot, err, r.wait)
	}
	r.line("s%d <- %s", c.slot, r.renderFrame(c, f))
	return nil
}

// renderFrame renders a received frame. Replies are matched to requests
// by order, not by xid: a server must answer in order, and a wrong xid is
// then shown instead of making the runner wait forever.
func (r *runner) renderFrame(c *conn, f zkwire.Frame) string {
	if f.Short {
		return "short-frame payload=" + data(f.Payload)
	}
	h := f.Header
	head := fmt.Sprintf("xid=%d zxid=%s %s", h.Xid, r.norm.zxid(h.Zxid), errName(h.Err))
	if f.IsNotification() {
		var ev proto.WatcherEvent
		rd := jute.NewReader(f.Body)
		ev.Decode(rd)
		if rd.Err() != nil {
			return head + fmt.Sprintf(" undecodable-event(%v) body=%s", rd.Err(), data(f.Body))
		}
		out := head + " " + r.norm.record(&ev)
		if rd.Remaining() > 0 {
			out += " trailing=" + data(rd.Rest())
		}
		return out
	}
	if len(c.outstanding) == 0 {
		return "unsolicited " + head + " body=" + data(f.Body)
	}
	op := c.outstanding[0]
	c.outstanding = c.outstanding[1:]
	if h.Err != 0 {
		if len(f.Body) > 0 {
			return head + " body=" + data(f.Body)
		}
		return head
	}
	if b := r.norm.body(op, f.Body); b != "" {
		return head + " " + b
	}
	return head
}

// finish pings every connection that is still open and waits for the
// ping's reply. Replies come in order and a notification is queued before
// any later reply, so every frame the scenario caused has arrived by then:
// the transcript is complete without waiting for time to pass.
func (r *runner) finish() error {
	slots := make([]int, 0, len(r.conns))
	for s := range r.conns {
		slots = append(slots, s)
	}
	sort.Ints(slots)
	r.line("-- end: ping every open connection --")
	for _, s := range slots {
		c := r.conns[s]
		if c.ended || c.c == nil {
			continue
		}
		if err := (doStep{slot: s, reqs: []Request{Ping()}}).apply(r); err != nil {
			return err
		}
	}
	return nil
}
