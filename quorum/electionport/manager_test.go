package electionport

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/fle"
	"github.com/gozk/gozk/internal/testport"
)

// logBuffer collects a Manager's log lines for a test to look at.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// freeAddrs reserves n loopback ports for election addresses.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, testport.Addr(t))
	}
	return out
}

// ensemble starts a Manager for each id in ids, every one knowing every
// other's address.
func ensemble(t *testing.T, ids ...int64) (map[int64]*Manager, map[int64]*logBuffer) {
	t.Helper()
	addrs := freeAddrs(t, len(ids))
	peers := map[int64][]string{}
	for i, id := range ids {
		peers[id] = []string{addrs[i]}
	}
	ms := map[int64]*Manager{}
	logs := map[int64]*logBuffer{}
	for i, id := range ids {
		logs[id] = &logBuffer{}
		m, err := Start(Config{
			ID: id, ListenAddrs: []string{addrs[i]}, Advertise: []string{addrs[i]}, Peers: peers,
			ConnectTimeout: 2 * time.Second, HandshakeTimeout: 2 * time.Second,
			Logger: zerolog.New(logs[id]),
		})
		if err != nil {
			t.Fatal(err)
		}
		ms[id] = m
		t.Cleanup(m.Close)
	}
	return ms, logs
}

func receive(t *testing.T, m *Manager) Message {
	t.Helper()
	select {
	case msg := <-m.Messages():
		return msg
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10 s")
		return Message{}
	}
}

// receiveNudged is receive for a test whose connections may have failed
// on a loaded machine (a handshake past its timeout): like the election,
// whose notification timer calls ConnectAll when nothing arrives, it
// asks every manager to connect again each second while it waits.
func receiveNudged(t *testing.T, m *Manager, all map[int64]*Manager) Message {
	t.Helper()
	deadline := time.After(10 * time.Second)
	nudge := time.NewTicker(time.Second)
	defer nudge.Stop()
	for {
		select {
		case msg := <-m.Messages():
			return msg
		case <-nudge.C:
			for _, o := range all {
				o.ConnectAll()
			}
		case <-deadline:
			t.Fatal("no message within 10 s")
			return Message{}
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestMessagesBothWays(t *testing.T) {
	ms, _ := ensemble(t, 1, 2, 3)
	// Each server sends to each other one: a smaller id dialling a larger
	// one is answered by the larger one dialling back.
	for from, m := range ms {
		for to := range ms {
			m.Send(to, []byte{byte(from), byte(to)})
		}
	}
	for id, m := range ms {
		got := map[int64]bool{}
		for len(got) < 3 {
			msg := receiveNudged(t, m, ms)
			if len(msg.Payload) != 2 || int64(msg.Payload[1]) != id || int64(msg.Payload[0]) != msg.From {
				t.Fatalf("server %d got %v from %d", id, msg.Payload, msg.From)
			}
			got[msg.From] = true
		}
	}
	// Both servers of a pair dialled at once: the connection the smaller
	// id opened made the larger one drop its own and dial again, so the
	// pairs settle shortly after the messages got through.
	for a := range ms {
		for b := range ms {
			if a != b {
				waitFor(t, fmt.Sprintf("server %d connected to %d", a, b), func() bool { return ms[a].Connected(b) })
			}
		}
	}
}

func TestOnlyTheLargerIDsConnectionIsKept(t *testing.T) {
	ms, logs := ensemble(t, 1, 2)
	ms[1].Send(2, []byte("hello"))
	msg := receiveNudged(t, ms[2], ms)
	if msg.From != 1 || string(msg.Payload) != "hello" {
		t.Fatalf("got %+v", msg)
	}
	// Server 1 dialled, said hello and hung up; server 2 dialled back, and
	// that connection carried the message.
	waitFor(t, "server 1 to drop its own connection", func() bool {
		return strings.Contains(logs[1].String(), "smaller id: closing the connection")
	})
	waitFor(t, "both sides connected", func() bool { return ms[1].Connected(2) && ms[2].Connected(1) })
}

func TestSelfMessagesLoopBack(t *testing.T) {
	ms, _ := ensemble(t, 7)
	ms[7].Send(7, []byte("me"))
	if msg := receive(t, ms[7]); msg.From != 7 || string(msg.Payload) != "me" {
		t.Fatalf("got %+v", msg)
	}
}

func TestSendSlotKeepsOnlyTheNewest(t *testing.T) {
	// Server 2 is unreachable: messages wait in its slot, each replacing
	// the one before, and HaveDelivered says nothing was taken.
	addrs := freeAddrs(t, 2)
	m, err := Start(Config{ID: 1, ListenAddrs: addrs[:1], Advertise: addrs[:1],
		Peers: map[int64][]string{2: addrs[1:]}, ConnectTimeout: time.Second, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.HaveDelivered() {
		t.Fatal("HaveDelivered before anything was queued")
	}
	for i := 0; i < 5; i++ {
		m.Send(2, []byte{byte(i)})
	}
	if m.HaveDelivered() {
		t.Fatal("HaveDelivered while the only slot is full")
	}
	// Now server 2 comes up and is dialled: it gets the newest message only.
	m2, err := Start(Config{ID: 2, ListenAddrs: addrs[1:], Advertise: addrs[1:],
		Peers: map[int64][]string{1: addrs[:1]}, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	m.ConnectAll()
	msg := receiveNudged(t, m2, map[int64]*Manager{1: m, 2: m2})
	if !bytes.Equal(msg.Payload, []byte{4}) {
		t.Fatalf("got %v, want the newest message [4]", msg.Payload)
	}
	waitFor(t, "the slot to empty", m.HaveDelivered)
	// A connection that flaps repeats the last message (receivers take
	// duplicates); an older message never arrives.
	for {
		select {
		case extra := <-m2.Messages():
			if !bytes.Equal(extra.Payload, []byte{4}) {
				t.Fatalf("an older message arrived too: %v", extra.Payload)
			}
			continue
		case <-time.After(100 * time.Millisecond):
		}
		break
	}
}

func TestNewConnectionResendsTheLastMessage(t *testing.T) {
	ms, _ := ensemble(t, 1, 2)
	ms[2].Send(1, []byte("vote"))
	if msg := receiveNudged(t, ms[1], ms); string(msg.Payload) != "vote" {
		t.Fatalf("got %q", msg.Payload)
	}
	// Server 1 drops the connection (as after a network fault); when
	// server 2 connects again with nothing new to say, it repeats its last
	// message, which server 1 may have missed.
	ms[1].dropLink(2)
	waitFor(t, "server 2 to see the connection gone", func() bool { return !ms[2].Connected(1) })
	ms[2].ConnectAll()
	if msg := receiveNudged(t, ms[1], ms); string(msg.Payload) != "vote" {
		t.Fatalf("after the reconnect got %q, want the last message again", msg.Payload)
	}
}

func TestReceiveQueueDropsTheOldest(t *testing.T) {
	ms, _ := ensemble(t, 1)
	m := ms[1]
	for i := 0; i < RecvCapacity+10; i++ {
		m.Send(1, []byte{byte(i)})
	}
	if got := m.Dropped(); got != 10 {
		t.Fatalf("dropped %d, want 10", got)
	}
	if msg := receive(t, m); msg.Payload[0] != 10 {
		t.Fatalf("oldest kept is %d, want 10", msg.Payload[0])
	}
}

// dialRaw connects to m's election port and writes b.
func dialRaw(t *testing.T, m *Manager, b []byte) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", m.Addrs()[0].String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if len(b) > 0 {
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// closedByPeer reports whether the server closed c within 10 s.
func closedByPeer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [64]byte
	for {
		if _, err := c.Read(b[:]); err != nil {
			ne, ok := err.(net.Error)
			return !ok || !ne.Timeout()
		}
	}
}

func hello(sid int64, addr string) []byte {
	return (&fle.InitialMessage{Protocol: fle.ProtocolV1, SID: sid, Addrs: []string{addr}}).AppendTo(nil)
}

func TestHostileTrafficClosesOnlyThatConnection(t *testing.T) {
	ms, logs := ensemble(t, 1, 5)
	m := ms[5]
	v1 := fle.ProtocolV1
	big := binary.BigEndian.AppendUint64(nil, uint64(v1))
	big = binary.BigEndian.AppendUint64(big, 3)
	big = binary.BigEndian.AppendUint32(big, 1<<30) // an address string of 1 GiB
	cases := []struct {
		name, log string
		send      []byte
	}{
		{"unknown protocol", "bad initial message", binary.BigEndian.AppendUint64(nil, uint64(1)<<63|5)},
		{"huge address string", "bad initial message", big},
		{"address without a port", "bad initial message", (&fle.InitialMessage{Protocol: fle.ProtocolV1, SID: 9, Addrs: []string{"nohost"}}).AppendTo(nil)},
		{"own id", "this server's own id", hello(5, "127.0.0.1:1")},
		{"frame too large", "bad frame", append(hello(9, "127.0.0.1:1"), 0x7f, 0xff, 0xff, 0xff)},
		{"frame of length 0", "bad frame", append(hello(10, "127.0.0.1:1"), 0, 0, 0, 0)},
		{"negative frame length", "bad frame", append(hello(11, "127.0.0.1:1"), 0xff, 0xff, 0xff, 0xfe)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn := dialRaw(t, m, c.send)
			if !closedByPeer(conn) {
				t.Fatal("the connection was not closed")
			}
			waitFor(t, "the log line", func() bool { return strings.Contains(logs[5].String(), c.log) })
		})
	}
	// The manager still works.
	ms[1].Send(5, []byte("still here"))
	if msg := receive(t, m); string(msg.Payload) != "still here" {
		t.Fatalf("got %q", msg.Payload)
	}
}

func TestSilentConnectionIsClosedAfterTheHandshakeTimeout(t *testing.T) {
	addrs := freeAddrs(t, 1)
	m, err := Start(Config{ID: 1, ListenAddrs: addrs, Advertise: addrs, HandshakeTimeout: 200 * time.Millisecond, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	conn := dialRaw(t, m, nil)
	if !closedByPeer(conn) {
		t.Fatal("a connection that never sent its initial message stayed open")
	}
}

func TestLegacyAndObserverIDs(t *testing.T) {
	ms, _ := ensemble(t, 1)
	m := ms[1]
	// A server before 3.5 sends its id alone; it is larger than 1, so the
	// connection is kept and its frames are delivered.
	legacy := binary.BigEndian.AppendUint64(nil, 4)
	dialRaw(t, m, fle.AppendFrame(legacy, []byte("old")))
	if msg := receive(t, m); msg.From != 4 || string(msg.Payload) != "old" {
		t.Fatalf("got %+v", msg)
	}
	// Observers without an id get negative ones, each its own; those are
	// smaller than 1, so this server hangs up (and has no address to dial).
	obs := (&fle.InitialMessage{Protocol: fle.ProtocolV1, SID: fle.ObserverID, Addrs: []string{"0.0.0.0:1"}}).AppendTo(nil)
	if conn := dialRaw(t, m, obs); !closedByPeer(conn) {
		t.Fatal("observer connection kept")
	}
}

func TestCloseEndsHandshakesAndDials(t *testing.T) {
	addrs := freeAddrs(t, 1)
	// A peer address that never answers SYNs is hard to make portably; a
	// silent incoming connection and a dial to a closed port will do.
	m, err := Start(Config{ID: 1, ListenAddrs: addrs, Advertise: addrs, HandshakeTimeout: time.Hour,
		Peers: map[int64][]string{2: {"127.0.0.1:1"}}, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	dialRaw(t, m, nil)
	m.Send(2, []byte("x"))
	done := make(chan struct{})
	go func() { m.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for a handshake with an hour's deadline")
	}
}

func TestBindRetryGivesUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Start(Config{ID: 1, ListenAddrs: []string{ln.Addr().String()}, BindRetry: 2, BindRetryInterval: 10 * time.Millisecond, Logger: zerolog.Nop()})
	if err == nil || !strings.Contains(err.Error(), "after 2 tries") {
		t.Fatalf("got %v, want a bind error after 2 tries", err)
	}
}
