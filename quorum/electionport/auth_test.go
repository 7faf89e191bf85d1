package electionport

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// authEnsemble starts Managers whose dialler writes the token tokens[id]
// after its initial message, and whose acceptor reads one and refuses any
// but "ok<sid>". seen records, per acceptor, the tokens it read.
func authEnsemble(t *testing.T, tokens map[int64]string) (map[int64]*Manager, map[int64]*logBuffer, func(int64) []string) {
	t.Helper()
	var ids []int64
	for id := range tokens {
		ids = append(ids, id)
	}
	addrs := freeAddrs(t, len(ids))
	peers := map[int64][]string{}
	for i, id := range ids {
		peers[id] = []string{addrs[i]}
	}
	var mu sync.Mutex
	seen := map[int64][]string{}
	ms := map[int64]*Manager{}
	logs := map[int64]*logBuffer{}
	for i, id := range ids {
		logs[id] = &logBuffer{}
		m, err := Start(Config{
			ID: id, ListenAddrs: []string{addrs[i]}, Advertise: []string{addrs[i]}, Peers: peers,
			ConnectTimeout: 2 * time.Second, HandshakeTimeout: 2 * time.Second,
			AuthLearner: func(conn net.Conn, sid int64) error {
				_, err := fmt.Fprintf(conn, "%-4s", tokens[id])
				return err
			},
			AuthServer: func(conn net.Conn, r *bufio.Reader, sid int64) error {
				tok := make([]byte, 4)
				if _, err := io.ReadFull(r, tok); err != nil {
					return err
				}
				got := strings.TrimSpace(string(tok))
				mu.Lock()
				seen[id] = append(seen[id], got)
				mu.Unlock()
				if got != fmt.Sprintf("ok%d", sid) {
					return fmt.Errorf("bad token %q", got)
				}
				return nil
			},
			Logger: zerolog.New(logs[id]),
		})
		if err != nil {
			t.Fatal(err)
		}
		ms[id] = m
		t.Cleanup(m.Close)
	}
	return ms, logs, func(id int64) []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen[id]...)
	}
}

// The dialler authenticates right after its initial message and the
// acceptor checks it before the ids decide: a smaller id dialling a
// larger one authenticates, and so does the larger one dialling back.
func TestAuthenticationBothWays(t *testing.T) {
	ms, _, seen := authEnsemble(t, map[int64]string{1: "ok1", 2: "ok2"})
	ms[1].Send(2, []byte("to 2"))
	if msg := receiveNudged(t, ms[2], ms); msg.From != 1 || string(msg.Payload) != "to 2" {
		t.Fatalf("2 got %+v", msg)
	}
	ms[2].Send(1, []byte("to 1"))
	if msg := receiveNudged(t, ms[1], ms); msg.From != 2 || string(msg.Payload) != "to 1" {
		t.Fatalf("1 got %+v", msg)
	}
	if s := seen(2); len(s) == 0 || s[0] != "ok1" {
		t.Fatalf("2 read %v from 1", s)
	}
	if s := seen(1); len(s) == 0 || s[0] != "ok2" {
		t.Fatalf("1 read %v from 2", s)
	}
}

// A server the acceptor refuses is closed with a log line naming it and
// is not dialled back; the acceptor goes on with the others.
func TestAuthenticationRefused(t *testing.T) {
	ms, logs, seen := authEnsemble(t, map[int64]string{1: "bad", 2: "ok2", 3: "ok3"})
	ms[1].Send(3, []byte("to 3"))
	waitFor(t, "3 refusing 1", func() bool { return strings.Contains(logs[3].String(), "quorum authentication failed") })
	if line := logs[3].String(); !strings.Contains(line, `"server":1`) || !strings.Contains(line, `bad token`) {
		t.Fatalf("log: %s", line)
	}
	ms[2].Send(3, []byte("from 2"))
	if msg := receive(t, ms[3]); msg.From != 2 {
		t.Fatalf("3 got %+v", msg)
	}
	// 3 dialled 2 back, after 2 authenticated; it never dialled 1.
	if ms[3].Connected(1) || len(seen(1)) != 0 {
		t.Fatalf("3 dialled 1 back: connected %v, 1 read %v", ms[3].Connected(1), seen(1))
	}
	select {
	case msg := <-ms[3].Messages():
		t.Fatalf("3 got %+v from a refused server", msg)
	default:
	}
}
