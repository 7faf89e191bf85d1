package diff

import (
	"bufio"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// toyServer is a tiny stand-in for a ZooKeeper server: enough of create,
// exists (with watches), ping, closeSession and unknown opcodes to drive
// the runner through every kind of step without Java.
type toyServer struct {
	mu       sync.Mutex
	zxid     int64
	session  int64
	nodes    map[string]bool
	watchers map[string][]*toyConn
	l        net.Listener
}

type toyConn struct {
	conn net.Conn
	wmu  sync.Mutex
}

func (c *toyConn) send(recs ...jute.Record) {
	w := jute.NewWriter(nil)
	at := w.BeginLength()
	for _, r := range recs {
		r.Encode(w)
	}
	w.EndLength(at)
	c.wmu.Lock()
	c.conn.Write(w.Bytes())
	c.wmu.Unlock()
}

func startToy(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &toyServer{nodes: map[string]bool{}, watchers: map[string][]*toyConn{}, session: 0x100, l: l}
	var wg sync.WaitGroup
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); s.serve(conn) }()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

func (s *toyServer) serve(raw net.Conn) {
	defer raw.Close()
	c := &toyConn{conn: raw}
	br := bufio.NewReader(raw)
	payload, err := readToyFrame(br)
	if err != nil {
		return
	}
	var h proto.Handshake
	if jute.Unmarshal(payload, &h) != nil {
		return
	}
	s.mu.Lock()
	id := h.SessionId
	if id == 0 {
		s.session++
		s.zxid++
		id = s.session
	}
	s.mu.Unlock()
	pw := proto.SessionPassword(id)
	c.send(&proto.HandshakeReply{ConnectResponse: proto.ConnectResponse{TimeOut: h.TimeOut, SessionId: id, Passwd: pw[:]}, OldClient: h.OldClient})
	for {
		payload, err := readToyFrame(br)
		if err != nil {
			return
		}
		r := jute.NewReader(payload)
		var hdr proto.RequestHeader
		hdr.Decode(r)
		s.mu.Lock()
		switch proto.OpCode(hdr.Type) {
		case proto.OpCreate:
			var req proto.CreateRequest
			req.Decode(r)
			s.zxid++
			if s.nodes[req.Path] {
				c.send(&proto.ReplyHeader{Xid: hdr.Xid, Zxid: s.zxid, Err: int32(proto.ErrNodeExists)})
				break
			}
			s.nodes[req.Path] = true
			for _, w := range s.watchers[req.Path] {
				w.send(&proto.ReplyHeader{Xid: -1, Zxid: -1}, &proto.WatcherEvent{Type: int32(proto.EventNodeCreated), State: 3, Path: req.Path})
			}
			delete(s.watchers, req.Path)
			c.send(&proto.ReplyHeader{Xid: hdr.Xid, Zxid: s.zxid}, &proto.CreateResponse{Path: req.Path})
		case proto.OpExists:
			var req proto.ExistsRequest
			req.Decode(r)
			if req.Watch {
				s.watchers[req.Path] = append(s.watchers[req.Path], c)
			}
			if !s.nodes[req.Path] {
				c.send(&proto.ReplyHeader{Xid: hdr.Xid, Zxid: s.zxid, Err: int32(proto.ErrNoNode)})
				break
			}
			now := time.Now().UnixMilli()
			c.send(&proto.ReplyHeader{Xid: hdr.Xid, Zxid: s.zxid}, &proto.ExistsResponse{Stat: proto.Stat{Czxid: 2, Mzxid: 2, Pzxid: 2, Ctime: now, Mtime: now}})
		case proto.OpPing:
			c.send(&proto.ReplyHeader{Xid: proto.XidPing, Zxid: s.zxid})
		case proto.OpCloseSession:
			s.zxid++
			c.send(&proto.ReplyHeader{Xid: hdr.Xid, Zxid: s.zxid})
			s.mu.Unlock()
			return
		default:
			c.send(&proto.ReplyHeader{Xid: hdr.Xid, Zxid: -1, Err: int32(proto.ErrUnimplemented)})
		}
		s.mu.Unlock()
	}
}

func readToyFrame(br *bufio.Reader) ([]byte, error) {
	var l [4]byte
	if _, err := br.Read(l[:1]); err != nil {
		return nil, err
	}
	if _, err := readFull(br, l[1:]); err != nil {
		return nil, err
	}
	n := int(l[0])<<24 | int(l[1])<<16 | int(l[2])<<8 | int(l[3])
	if n < 0 || n > 1<<20 {
		return nil, errors.New("bad length")
	}
	b := make([]byte, n)
	_, err := readFull(br, b)
	return b, err
}

func readFull(br *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := br.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

var toyScenario = Scenario{
	Name: "toy",
	Steps: Steps(
		Connect(1),
		Connect(2),
		Do(2, Exists("/a", true)),
		Do(1, Create("/a", D("x"), 0)),
		Expect(2, 1),
		Do(2, Exists("/a", false)),
		Pipeline(1, Create("/b", nil, 0), Create("/b", nil, 0), Ping()),
		Do(1, RawOp(55, nil)),
		ConnectWith(3, Conn{Resume: 1}),
		CloseSession(1),
	),
}

const toyTranscript = `scenario toy (server: default)
s1 -> connect timeout=30000
s1 <- session proto=0 timeout=30000 id=S1 pw=P1(derived) readOnly=false len=37
s2 -> connect timeout=30000
s2 <- session proto=0 timeout=30000 id=S2 pw=P2(derived) readOnly=false len=37
s2 -> xid=1 exists /a watch=true
s2 <- xid=1 zxid=Z+0 NONODE
s1 -> xid=1 create /a data="x" acl=[31:world:anyone] flags=0
s1 <- xid=1 zxid=Z+1 OK path=/a
s2 .. 1 frame(s)
s2 <- xid=-1 zxid=-1 OK event NodeCreated state=3 path=/a
s2 -> xid=2 exists /a watch=false
s2 <- xid=2 zxid=Z+1 OK stat{cz=Z+0 mz=Z+0 ct=T mt=ct v=0 cv=0 av=0 eo=0 dl=0 nc=0 pz=Z+0}
s1 -> xid=2 create /b data=null acl=[31:world:anyone] flags=0
s1 -> xid=3 create /b data=null acl=[31:world:anyone] flags=0
s1 -> xid=-2 ping
s1 <- xid=2 zxid=Z+2 OK path=/b
s1 <- xid=3 zxid=Z+3 NODEEXISTS
s1 <- xid=-2 zxid=Z+3 OK
s1 -> xid=4 unknown 55
s1 <- xid=4 zxid=-1 UNIMPLEMENTED
s3 -> connect timeout=30000 resume=session-of-s1
s3 <- session proto=0 timeout=30000 id=S1 pw=P1(derived) readOnly=false len=37
s1 -> xid=5 closeSession
s1 <- xid=5 zxid=Z+4 OK
s1 .. until closed
s1 <- closed
-- end: ping every open connection --
s2 -> xid=-2 ping
s2 <- xid=-2 zxid=Z+4 OK
s3 -> xid=-2 ping
s3 <- xid=-2 zxid=Z+4 OK
`

func TestRunnerAgainstToyServer(t *testing.T) {
	got, err := RunWith(startToy(t), toyScenario, RunOptions{WaitLimit: 10 * time.Second})
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	want := Transcript{Scenario: "toy", Lines: strings.Split(strings.TrimSuffix(toyTranscript, "\n"), "\n")}
	if d := Compare(want, got); d != "" {
		t.Errorf("transcript differs:\n%s\ngot:\n%s", d, got)
	}
	again, err := RunAgainst(startToy(t), toyScenario)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(got, again); d != "" {
		t.Errorf("two runs differ:\n%s", d)
	}
}

// TestRunnerReportsSilence checks that a server that never answers ends
// the run with an error instead of hanging it.
func TestRunnerReportsSilence(t *testing.T) {
	sc := Scenario{Name: "silence", Steps: Steps(Connect(1), Do(1, RawOp(proto.OpCheck, nil)))}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		readToyFrame(br)
		(&toyConn{conn: conn}).send(&proto.HandshakeReply{ConnectResponse: proto.ConnectResponse{TimeOut: 1, SessionId: 1, Passwd: make([]byte, 16)}})
		readToyFrame(br) // and never answer
		readToyFrame(br)
	}()
	tr, err := RunWith(l.Addr().String(), sc, RunOptions{WaitLimit: 200 * time.Millisecond})
	if err == nil {
		t.Fatalf("no error from a silent server:\n%s", tr)
	}
	if last := tr.Lines[len(tr.Lines)-1]; !strings.HasPrefix(last, "!! ") {
		t.Errorf("transcript does not end with the failure: %q", last)
	}
}

func TestScenarioTable(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range Scenarios() {
		if seen[sc.Name] {
			t.Errorf("duplicate scenario name %s", sc.Name)
		}
		seen[sc.Name] = true
		if sc.Doc == "" || len(sc.Steps) == 0 {
			t.Errorf("scenario %s has no doc or no steps", sc.Name)
		}
		if _, ok := Lookup(sc.Name); !ok {
			t.Errorf("Lookup(%s) failed", sc.Name)
		}
	}
	names, groups := Groups(Scenarios())
	if len(names) < 2 || len(groups["default"]) == 0 || len(groups[ExtendedTypesServer.Name]) == 0 {
		t.Errorf("groups = %v", names)
	}
}
