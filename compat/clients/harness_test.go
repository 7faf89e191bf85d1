//go:build interop

package clients

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
)

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// waitLimit bounds every wait for an event. It is a guard against an
// event that never comes, never an assertion about how fast it comes.
const waitLimit = 30 * time.Second

// superPassword is the password of the "super" digest user both servers
// are configured with.
const superPassword = "superpw"

// serverOpts are the settings a case needs from its server.
type serverOpts struct {
	// noExtendedTypes leaves extendedTypesEnabled off (TTL nodes then
	// give Unimplemented).
	noExtendedTypes bool
}

// server is a running ZooKeeper of either kind.
type server interface {
	// Addr is the current client address; it may change on Restart.
	Addr() string
	// Restart stops the server and starts it again on the same data
	// directory.
	Restart(t *testing.T)
}

// backend starts servers of one kind.
type backend struct {
	name  string
	start func(t *testing.T, o serverOpts) server
}

var backends = []backend{
	{name: "java", start: startJava},
	{name: "gozk", start: startGozk},
}

func digestOf(userPassword string) string {
	user, _, _ := strings.Cut(userPassword, ":")
	sum := sha1.Sum([]byte(userPassword))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// --- Java ---

type javaServer struct {
	srv  *javazk.Server
	opts javazk.Options
}

func javaOptions(o serverOpts) javazk.Options {
	props := map[string]string{
		// Java reads the container interval only as a system property.
		"znode.container.checkIntervalMs":                    "100",
		"zookeeper.DigestAuthenticationProvider.superDigest": digestOf("super:" + superPassword),
	}
	if !o.noExtendedTypes {
		props["zookeeper.extendedTypesEnabled"] = "true"
	}
	return javazk.Options{SystemProperties: props}
}

func startJava(t *testing.T, o serverOpts) server {
	opts := javaOptions(o)
	return &javaServer{srv: javazk.Start(t, opts), opts: opts}
}

func (j *javaServer) Addr() string { return j.srv.Addr }

// Restart kills the JVM (javazk has no graceful stop; the txn log is
// synced before every reply, so nothing acknowledged is lost) and starts
// a new one on the same data directory, on a new port.
func (j *javaServer) Restart(t *testing.T) {
	t.Helper()
	dataDir := j.srv.DataDir
	j.srv.Stop()
	opts := j.opts
	opts.Config = append(append([]string(nil), opts.Config...), "dataDir="+dataDir)
	j.srv = javazk.Start(t, opts)
	j.srv.DataDir = dataDir
}

// --- gozk ---

type gozkServer struct{ p *gozkproc.Process }

func gozkOptions(o serverOpts) gozkproc.Options {
	cfg := []string{
		"znode.container.checkIntervalMs=100",
		"DigestAuthenticationProvider.superDigest=" + digestOf("super:"+superPassword),
	}
	if !o.noExtendedTypes {
		cfg = append(cfg, "extendedTypesEnabled=true")
	}
	return gozkproc.Options{Config: cfg}
}

func startGozk(t *testing.T, o serverOpts) server {
	return &gozkServer{p: gozkproc.Start(t, gozkOptions(o))}
}

func (g *gozkServer) Addr() string { return g.p.Addr() }

// Restart stops gozk with SIGTERM and starts it on the same dataDir and
// port.
func (g *gozkServer) Restart(t *testing.T) { g.p.Restart() }

// --- clients ---

// recorder keeps every event a connection delivered, in order. It is fed
// by the client's event callback, which runs on the receive loop, so the
// order is the order of the frames on the wire.
type recorder struct {
	mu     sync.Mutex
	events []zk.Event
	notify chan struct{}
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{})} }

func (r *recorder) add(ev zk.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	close(r.notify)
	r.notify = make(chan struct{})
	r.mu.Unlock()
}

// all returns the events recorded so far.
func (r *recorder) all() []zk.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]zk.Event(nil), r.events...)
}

// nodeEvents returns the node events (not session events) so far.
func (r *recorder) nodeEvents() []zk.Event {
	var out []zk.Event
	for _, ev := range r.all() {
		if ev.Type != zk.EventSession && ev.Type != zk.EventNotWatching {
			out = append(out, ev)
		}
	}
	return out
}

// waitFor waits until an event at index >= from matches and returns its
// index.
func (r *recorder) waitFor(t *testing.T, from int, what string, match func(zk.Event) bool) int {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		for i := from; i < len(r.events); i++ {
			if match(r.events[i]) {
				r.mu.Unlock()
				return i
			}
		}
		ch := r.notify
		r.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("no %s within %v; events: %v", what, waitLimit, r.all())
			return -1
		}
	}
}

// count returns how many events recorded so far.
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// client is a go-zookeeper connection with its event recorder, a wire tap
// and control over its TCP connections.
type client struct {
	*zk.Conn
	rec  *recorder
	dial *dialer
}

// dialer wraps net.DialTimeout so that a test can drop the live TCP
// connection, refuse new ones, and see every frame.
type dialer struct {
	mu      sync.Mutex
	refuse  bool
	current net.Conn
	dials   int
	tap     *tap
}

func (d *dialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	refuse := d.refuse
	d.mu.Unlock()
	if refuse {
		return nil, errors.New("dialing refused by the test")
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	tc := &tapConn{Conn: c, tap: d.tap, conn: d.tap.newConn()}
	d.mu.Lock()
	d.current = tc
	d.dials++
	d.mu.Unlock()
	return tc, nil
}

// drop closes the live TCP connection under the client.
func (d *dialer) drop() {
	d.mu.Lock()
	c := d.current
	d.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

func (d *dialer) setRefuse(v bool) {
	d.mu.Lock()
	d.refuse = v
	d.mu.Unlock()
}

func (d *dialer) dialCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dials
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...interface{}) {}

func zkLogger() zk.Logger {
	if os.Getenv("GOZK_ZK_LOG") == "1" {
		return log.New(os.Stderr, "zk: ", log.Lmicroseconds)
	}
	return quietLogger{}
}

// connect opens a session to addr and waits until it is established. The
// connection is closed when the test ends.
func connect(t *testing.T, addr string) *client {
	t.Helper()
	return connectTimeout(t, addr, 10*time.Second)
}

func connectTimeout(t *testing.T, addr string, timeout time.Duration) *client {
	t.Helper()
	c := &client{rec: newRecorder(), dial: &dialer{tap: &tap{}}}
	conn, _, err := zk.Connect([]string{addr}, timeout,
		zk.WithDialer(c.dial.dial),
		zk.WithEventCallback(c.rec.add),
		zk.WithLogger(zkLogger()),
	)
	if err != nil {
		t.Fatalf("connect %s: %v", addr, err)
	}
	c.Conn = conn
	t.Cleanup(conn.Close)
	c.rec.waitFor(t, 0, "session", func(ev zk.Event) bool {
		return ev.Type == zk.EventSession && ev.State == zk.StateHasSession
	})
	return c
}

// waitSession waits for a session event with the given state at or after
// index from.
func (c *client) waitSession(t *testing.T, from int, state zk.State) int {
	t.Helper()
	return c.rec.waitFor(t, from, "session state "+state.String(), func(ev zk.Event) bool {
		return ev.Type == zk.EventSession && ev.State == state
	})
}

// --- wire tap ---

// frame is one frame seen on a client's TCP connection.
type frame struct {
	conn  int  // which TCP connection of the client, from 1
	out   bool // client -> server
	first bool // the handshake frame of the connection
	xid   int32
	op    int32 // request opcode (out), or event type (xid -1 in)
	path  string
	err   int32 // reply error (in)
}

func (f frame) String() string {
	dir := "<-"
	if f.out {
		dir = "->"
	}
	return fmt.Sprintf("%d%s xid=%d op=%d err=%d %s", f.conn, dir, f.xid, f.op, f.err, f.path)
}

type tap struct {
	mu     sync.Mutex
	conns  int
	frames []frame
}

func (t *tap) newConn() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.conns++
	return t.conns
}

func (t *tap) all() []frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]frame(nil), t.frames...)
}

// tapConn splits both directions of a connection into frames.
type tapConn struct {
	net.Conn
	tap        *tap
	conn       int
	in, out    []byte
	seenIn     bool
	seenOut    bool
	mu         sync.Mutex
	closeOnce  sync.Once
	closeError error
}

func (c *tapConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.mu.Lock()
		c.in = append(c.in, b[:n]...)
		c.in = c.split(c.in, false)
		c.mu.Unlock()
	}
	return n, err
}

func (c *tapConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.out = append(c.out, b...)
	c.out = c.split(c.out, true)
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *tapConn) Close() error {
	c.closeOnce.Do(func() { c.closeError = c.Conn.Close() })
	return c.closeError
}

func (c *tapConn) split(buf []byte, out bool) []byte {
	for len(buf) >= 4 {
		n := int(binary.BigEndian.Uint32(buf))
		if len(buf) < 4+n {
			break
		}
		payload := buf[4 : 4+n]
		buf = buf[4+n:]
		f := frame{conn: c.conn, out: out}
		first := &c.seenIn
		if out {
			first = &c.seenOut
		}
		if !*first {
			*first = true
			f.first = true
		} else if out && len(payload) >= 8 {
			f.xid = int32(binary.BigEndian.Uint32(payload))
			f.op = int32(binary.BigEndian.Uint32(payload[4:]))
			if hasPath(f.op) {
				f.path = readString(payload[8:])
			}
		} else if !out && len(payload) >= 16 {
			f.xid = int32(binary.BigEndian.Uint32(payload))
			f.err = int32(binary.BigEndian.Uint32(payload[12:]))
			if f.xid == -1 && len(payload) >= 24 {
				f.op = int32(binary.BigEndian.Uint32(payload[16:]))
				f.path = readString(payload[24:])
			}
		}
		c.tap.mu.Lock()
		c.tap.frames = append(c.tap.frames, f)
		c.tap.mu.Unlock()
	}
	return buf
}

func hasPath(op int32) bool {
	switch op {
	case 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 19, 21:
		return true
	}
	return false
}

func readString(b []byte) string {
	if len(b) < 4 {
		return ""
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || len(b) < 4+n {
		return ""
	}
	return string(b[4 : 4+n])
}

// --- assertions ---

// wantErr fails the test unless err is exactly want (nil included).
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !sameErr(err, want) {
		t.Errorf("%s: error %v, want %v", what, err, want)
	}
}

func sameErr(err, want error) bool {
	if err == nil || want == nil {
		return err == want
	}
	// go-zookeeper turns codes it does not know into fresh
	// fmt.Errorf("unknown error: %d") values; compare those by text.
	return err == want || errors.Is(err, want) || err.Error() == want.Error()
}

// codeErr is the error go-zookeeper returns for a code it has no Err*
// value for (RuntimeInconsistency -2, Unimplemented -6, ...).
func codeErr(code int) error { return fmt.Errorf("unknown error: %d", code) }

var (
	errRuntimeInconsistency = codeErr(-2)
	errUnimplemented        = codeErr(-6)
)

// must fails the test at once on an error.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func mustCreate(t *testing.T, c *client, path string, data []byte, flags int32, acl []zk.ACL) string {
	t.Helper()
	p, err := c.Create(path, data, flags, acl)
	must(t, "create "+path, err)
	return p
}

func mustStat(t *testing.T, c *client, path string) *zk.Stat {
	t.Helper()
	ok, st, err := c.Exists(path)
	must(t, "exists "+path, err)
	if !ok {
		t.Fatalf("exists %s: node is missing", path)
	}
	return st
}

func mustGet(t *testing.T, c *client, path string) ([]byte, *zk.Stat) {
	t.Helper()
	data, st, err := c.Get(path)
	must(t, "get "+path, err)
	return data, st
}

func wantExists(t *testing.T, c *client, path string, want bool) {
	t.Helper()
	ok, _, err := c.Exists(path)
	must(t, "exists "+path, err)
	if ok != want {
		t.Errorf("exists %s = %v, want %v", path, ok, want)
	}
}

func wantEqual(t *testing.T, what string, got, want interface{}) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// waitGone waits (with a guard deadline) until path no longer exists,
// using an exists watch so that it does not poll.
func waitGone(t *testing.T, c *client, path string) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		ok, _, ch, err := c.ExistsW(path)
		must(t, "existsw "+path, err)
		if !ok {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("%s still exists after %v", path, waitLimit)
		}
	}
}

// nextEvent waits for one event on a watch channel.
func nextEvent(t *testing.T, what string, ch <-chan zk.Event) zk.Event {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(waitLimit):
		t.Fatalf("%s: no event within %v", what, waitLimit)
		return zk.Event{}
	}
}

// barrier makes sure every notification the server owes c for changes
// made so far has been received: the server queues a notification on a
// connection before any later reply on it (and a change made by another
// session was applied before this sync was), so once the sync reply is
// in, so are the events.
func barrier(t *testing.T, c *client) {
	t.Helper()
	_, err := c.Sync("/")
	must(t, "sync", err)
}
