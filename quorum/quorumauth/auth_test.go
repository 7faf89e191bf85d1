package quorumauth

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/sasl"
)

// toyServer is a two-round mechanism shaped like DIGEST-MD5: an empty
// first token gets a nonce, the answer user:password:nonce completes it
// and gets a last token the client checks.
type toyServer struct {
	users    map[string]string
	id       string // the authorization id, when it is not the user
	endless  bool   // never completes
	round    int
	complete bool
	user     string
}

func (s *toyServer) Evaluate(resp []byte) ([]byte, error) {
	s.round++
	if s.endless {
		return []byte("again"), nil
	}
	switch s.round {
	case 1:
		if len(resp) != 0 {
			return nil, errors.New("toy: first token not empty")
		}
		return []byte("nonce"), nil
	case 2:
		parts := strings.Split(string(resp), ":")
		if len(parts) != 3 || parts[2] != "nonce" {
			return nil, fmt.Errorf("toy: bad response %q", resp)
		}
		if pw, ok := s.users[parts[0]]; !ok || pw != parts[1] {
			return nil, fmt.Errorf("%w: toy: wrong password for %s", sasl.ErrAuthentication, parts[0])
		}
		s.complete, s.user = true, parts[0]
		return []byte("ok:" + parts[0]), nil
	}
	return nil, errors.New("toy: too many rounds")
}
func (s *toyServer) Complete() bool { return s.complete }
func (s *toyServer) AuthorizationID() string {
	if s.id != "" {
		return s.id
	}
	return s.user
}
func (s *toyServer) Mechanism() string { return "TOY" }

type toyClient struct {
	user, password string
	answered       bool
	complete       bool
}

func (c *toyClient) HasInitialResponse() bool { return false }
func (c *toyClient) Evaluate(ch []byte) ([]byte, error) {
	switch {
	case string(ch) == "nonce":
		c.answered = true
		return []byte(c.user + ":" + c.password + ":nonce"), nil
	case string(ch) == "ok:"+c.user && c.answered:
		c.complete = true
		return nil, nil
	case string(ch) == "again":
		return []byte("more"), nil
	}
	return nil, fmt.Errorf("toy: unexpected challenge %q", ch)
}
func (c *toyClient) Complete() bool    { return c.complete }
func (c *toyClient) Mechanism() string { return "TOY" }

func toyAuthServer(require bool) *Server {
	return &Server{
		Require:  require,
		NewSASL:  func() (sasl.Server, error) { return &toyServer{users: map[string]string{"learner": "secret"}}, nil },
		MaxToken: 1024,
		Log:      zerolog.Nop(),
	}
}

func toyLearner(require bool, password string) *Learner {
	return &Learner{
		Require:  require,
		NewSASL:  func(string) (sasl.Client, error) { return &toyClient{user: "learner", password: password}, nil },
		MaxToken: 1024,
		Log:      zerolog.Nop(),
	}
}

type outcome struct {
	learner, server error
	// after is what the server read after the exchange: the learner's
	// own protocol must reach it intact.
	after string
}

// exchange runs l and s at the two ends of a connection; the learner
// then writes "hello" unless its side failed.
func exchange(t *testing.T, l *Learner, s *Server) outcome {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	deadline := time.Now().Add(10 * time.Second)
	a.SetDeadline(deadline)
	b.SetDeadline(deadline)
	learnerDone := make(chan error, 1)
	go func() {
		err := l.Authenticate(a, "localhost", "server")
		if err == nil {
			_, err = a.Write([]byte("hello..."))
		}
		a.Close()
		learnerDone <- err
	}()
	var out outcome
	r := bufio.NewReader(b)
	out.server = s.Authenticate(b, r, "learner")
	if out.server == nil {
		rest, _ := io.ReadAll(r)
		out.after = string(rest)
	} else {
		b.Close()
	}
	out.learner = <-learnerDone
	return out
}

func TestExchangeSucceeds(t *testing.T) {
	for _, require := range []bool{false, true} {
		out := exchange(t, toyLearner(true, "secret"), toyAuthServer(require))
		if out.learner != nil || out.server != nil || out.after != "hello..." {
			t.Errorf("serverRequireSasl=%v: %+v", require, out)
		}
	}
}

// A wrong password: the learner always gives up; the server refuses the
// connection only when it requires authentication.
func TestWrongPassword(t *testing.T) {
	out := exchange(t, toyLearner(true, "guess"), toyAuthServer(true))
	if !errors.Is(out.learner, ErrRefused) || !strings.Contains(out.learner.Error(), "ERROR") {
		t.Errorf("learner: %v", out.learner)
	}
	if !errors.Is(out.server, ErrRefused) || !errors.Is(out.server, sasl.ErrAuthentication) || !strings.Contains(out.server.Error(), "learner") {
		t.Errorf("server: %v", out.server)
	}
	out = exchange(t, toyLearner(true, "guess"), toyAuthServer(false))
	if !errors.Is(out.learner, ErrRefused) || out.server != nil {
		t.Errorf("serverRequireSasl=false: %+v", out)
	}
}

// The rollout settings: a learner that does not require SASL sends
// nothing, and a server lets it through unless it requires SASL.
func TestLearnerNotAuthenticating(t *testing.T) {
	for _, l := range []*Learner{nil, toyLearner(false, "secret")} {
		out := exchange(t, l, toyAuthServer(false))
		if out.learner != nil || out.server != nil || out.after != "hello..." {
			t.Errorf("server not requiring: %+v", out)
		}
		out = exchange(t, l, toyAuthServer(true))
		if !errors.Is(out.server, ErrRefused) || !strings.Contains(out.server.Error(), "does not authenticate") {
			t.Errorf("server requiring: %+v", out)
		}
	}
	// No server side at all (enableSasl=false): nothing is read.
	var none *Server
	if err := none.Authenticate(nil, nil, "x"); err != nil {
		t.Fatal(err)
	}
}

// A learner that hangs up without a word (the smaller id of an election
// connection that does not authenticate) is no failure unless required.
func TestLearnerHangsUp(t *testing.T) {
	for _, require := range []bool{false, true} {
		a, b := net.Pipe()
		a.Close()
		err := toyAuthServer(require).Authenticate(b, bufio.NewReader(b), "learner")
		if (err != nil) != require {
			t.Errorf("serverRequireSasl=%v: %v", require, err)
		}
	}
}

// A learner talking to a server that does not do SASL at all hears
// whatever that server sends, and gives up.
func TestLearnerAgainstGarbage(t *testing.T) {
	replies := map[string][]byte{
		"election frame":   {0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},
		"unknown status":   append(AppendPacket(nil, Success, nil)[:8], 0, 0, 0, 7, 0, 0, 0, 0),
		"huge token":       append(AppendPacket(nil, InProgress, nil)[:12], 0x7f, 0, 0, 0),
		"closed":           nil,
		"error":            AppendPacket(nil, Error, []byte{}),
		"success at once":  AppendPacket(nil, Success, []byte("ok:learner")),
		"early success":    AppendPacket(nil, Success, []byte("nonce")),
		"null challenge":   AppendPacket(nil, Success, nil),
		"wrong last token": AppendPacket(nil, InProgress, []byte("nonsense")),
	}
	for name, reply := range replies {
		a, b := net.Pipe()
		a.SetDeadline(time.Now().Add(10 * time.Second))
		go func() {
			io.ReadFull(b, make([]byte, 16)) // the learner's first packet
			b.Write(reply)
			b.Close()
		}()
		err := toyLearner(true, "secret").Authenticate(a, "localhost", "server")
		a.Close()
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Garbled packets from a learner end the exchange: refused when required,
// logged and let through otherwise.
func TestServerAgainstGarbage(t *testing.T) {
	first := AppendPacket(nil, InProgress, []byte{})
	sends := map[string][]byte{
		"truncated first":  first[:14],
		"huge first token": append(first[:12:12], 0x7f, 0, 0, 0),
		"null first token": AppendPacket(nil, InProgress, nil),
		"garbled second":   append(bytes.Clone(first), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16),
		"wrong response":   append(bytes.Clone(first), AppendPacket(nil, InProgress, []byte("x"))...),
	}
	for name, send := range sends {
		for _, require := range []bool{false, true} {
			a, b := net.Pipe()
			b.SetDeadline(time.Now().Add(10 * time.Second))
			go func() {
				go io.Copy(io.Discard, a) // the server's answers
				a.Write(send)             // returns once all is read
				a.Close()
			}()
			err := toyAuthServer(require).Authenticate(b, bufio.NewReader(b), "learner")
			b.Close()
			a.Close()
			if (err != nil) != require || require && !errors.Is(err, ErrRefused) {
				t.Errorf("%s, serverRequireSasl=%v: %v", name, require, err)
			}
		}
	}
}

// A mechanism that never completes is cut off after MaxRounds
// challenges.
func TestEndlessMechanism(t *testing.T) {
	s := toyAuthServer(true)
	rounds := 0
	s.NewSASL = func() (sasl.Server, error) { return &toyServer{endless: true}, nil }
	a, b := net.Pipe()
	b.SetDeadline(time.Now().Add(10 * time.Second))
	go func() {
		a.Write(AppendPacket(nil, InProgress, []byte{}))
		for {
			st, _, err := ReadPacket(a, 100)
			if err != nil || st != InProgress {
				a.Close()
				return
			}
			rounds++
			a.Write(AppendPacket(nil, InProgress, []byte("more")))
		}
	}()
	err := s.Authenticate(b, bufio.NewReader(b), "learner")
	b.Close()
	if !errors.Is(err, ErrRefused) || rounds != MaxRounds {
		t.Fatalf("after %d rounds: %v", rounds, err)
	}
}

// A Kerberos principal is admitted only as itself and from a host of the
// ensemble (Java's SaslQuorumServerCallbackHandler, which splits the
// name as String.split("[/@]") does); the mechanisms run this rule.
func TestPrincipalHostMustBeAServer(t *testing.T) {
	authorize := authorizer(map[string]bool{"localhost": true, "127.0.0.1": true})
	for id, ok := range map[string]bool{
		"zkquorum/localhost@EXAMPLE.COM": true,
		"zkquorum/evil@EXAMPLE.COM":      false,
		"learner":                        true,
		"zkquorum@EXAMPLE.COM":           true,
		"zkquorum//EXAMPLE.COM":          false, // an empty host part is a host
		"zkquorum/localhost@":            true,  // trailing empty part dropped: two parts
	} {
		got, err := authorize(id, id)
		if (err == nil) != ok || (ok && got != id) {
			t.Errorf("%s: %q, %v", id, got, err)
		}
	}
	if _, err := authorize("zkquorum/localhost@EXAMPLE.COM", "other/localhost@EXAMPLE.COM"); err == nil {
		t.Error("a learner was admitted as another principal")
	}
}

func TestServicePrincipal(t *testing.T) {
	for in, want := range map[string]string{
		"zkquorum/_HOST":             "zkquorum/myhost.example.com",
		"zkquorum/_HOST@EXAMPLE.COM": "zkquorum/_HOST@EXAMPLE.COM", // Java replaces only service/_HOST
		"zkquorum/localhost":         "zkquorum/localhost",
		"zkquorum":                   "zkquorum",
		"zkquorum/_HOST/":            "zkquorum/myhost.example.com", // Java's split drops the trailing empty part
	} {
		if got := ServicePrincipal(in, "MyHost.Example.com"); got != want {
			t.Errorf("ServicePrincipal(%q) = %q, want %q", in, got, want)
		}
	}
}

// A learner whose mechanism completes on an IN_PROGRESS challenge still
// needs the server's SUCCESS: ERROR after it is a refusal.
func TestLearnerNeedsSuccessAfterCompleting(t *testing.T) {
	for _, last := range []Status{Error, Success} {
		a, b := net.Pipe()
		a.SetDeadline(time.Now().Add(10 * time.Second))
		go func() {
			defer b.Close()
			for _, reply := range [][]byte{
				AppendPacket(nil, InProgress, []byte("nonce")),
				AppendPacket(nil, InProgress, []byte("ok:learner")),
				AppendPacket(nil, last, nil),
			} {
				if _, _, err := ReadPacket(b, 100); err != nil {
					return
				}
				b.Write(reply)
			}
		}()
		err := toyLearner(true, "secret").Authenticate(a, "localhost", "server")
		a.Close()
		if (err == nil) != (last == Success) {
			t.Errorf("server ending with %s: %v", last, err)
		}
	}
}

// FuzzExchange feeds whatever bytes to both sides as what their peer
// sends: neither may panic, read a token over the bound, or hang (the
// input ends), and a server requiring SASL admits nobody who has not
// completed the exchange.
func FuzzExchange(f *testing.F) {
	f.Add(append(AppendPacket(nil, InProgress, []byte{}), AppendPacket(nil, InProgress, []byte("learner:secret:nonce"))...))
	f.Add(append(AppendPacket(nil, InProgress, []byte("nonce")), AppendPacket(nil, Success, []byte("ok:learner"))...))
	f.Add([]byte{0, 0, 0, 40, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var completed bool
		s := toyAuthServer(true)
		s.NewSASL = func() (sasl.Server, error) {
			return &completionSpy{Server: &toyServer{users: map[string]string{"learner": "secret"}}, done: &completed}, nil
		}
		err := s.Authenticate(io.Discard, bufio.NewReader(bytes.NewReader(b)), "learner")
		if err == nil && !completed {
			t.Fatalf("admitted without completing: %x", b)
		}
		rw := struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(b), io.Discard}
		toyLearner(true, "secret").Authenticate(rw, "localhost", "server")
	})
}

// completionSpy records whether its mechanism completed.
type completionSpy struct {
	sasl.Server
	done *bool
}

func (c *completionSpy) Evaluate(resp []byte) ([]byte, error) {
	out, err := c.Server.Evaluate(resp)
	*c.done = c.Server.Complete()
	return out, err
}
