package diff

import (
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

func TestZxidLabelsKeepGapsAndSentinels(t *testing.T) {
	n := newNormalizer(time.Now())
	for _, c := range []struct {
		zxid int64
		want string
	}{
		{0, "0"}, {-1, "-1"}, {0x105, "Z+0"}, {0x107, "Z+2"}, {0x104, "Z-1"}, {0x105, "Z+0"},
		{1<<32 | 1, "Z+4294967036"},
	} {
		if got := n.zxid(c.zxid); got != c.want {
			t.Errorf("zxid(%#x) = %s, want %s", c.zxid, got, c.want)
		}
	}
}

func TestSessionAndPasswordLabels(t *testing.T) {
	n := newNormalizer(time.Now())
	if a, b, a2 := n.session(111), n.session(222), n.session(111); a != "S1" || b != "S2" || a2 != "S1" {
		t.Errorf("session labels %s %s %s", a, b, a2)
	}
	if n.session(0) != "0" {
		t.Error("session 0 got a label")
	}
	derived := proto.SessionPassword(111)
	if got := n.password(derived[:], 111); got != "P1(derived)" {
		t.Errorf("derived password = %s", got)
	}
	if got := n.password([]byte("0123456789abcdef"), 111); got != "P2" {
		t.Errorf("other password = %s", got)
	}
	if got := n.password(make([]byte, 16), 0); got != "zero" {
		t.Errorf("zero password = %s", got)
	}
	if got := n.password([]byte{1, 2}, 5); got != "P3(len 2)" {
		t.Errorf("short password = %s", got)
	}
}

func TestStatRendering(t *testing.T) {
	now := time.Now().UnixMilli()
	n := newNormalizer(time.Now())
	fresh := proto.Stat{Czxid: 10, Mzxid: 10, Ctime: now, Mtime: now, Pzxid: 10, EphemeralOwner: 77, DataLength: 3}
	if got, want := n.stat(&fresh), "stat{cz=Z+0 mz=Z+0 ct=T mt=ct v=0 cv=0 av=0 eo=S1 dl=3 nc=0 pz=Z+0}"; got != want {
		t.Errorf("fresh stat = %s, want %s", got, want)
	}
	changed := fresh
	changed.Mzxid, changed.Mtime, changed.Version = 12, now, 1
	if got := n.stat(&changed); !strings.Contains(got, "mz=Z+2 ct=T mt=T v=1") {
		t.Errorf("modified stat = %s", got)
	}
	broken := fresh
	broken.Mtime = now + 5
	if got := n.stat(&broken); !strings.Contains(got, "mt=T!=ct(+5ms)") {
		t.Errorf("unmodified node with mtime != ctime = %s", got)
	}
	seconds := fresh
	seconds.Ctime, seconds.Mtime = now/1000, now/1000
	if got := n.stat(&seconds); !strings.Contains(got, "ct=T?(") {
		t.Errorf("a time in seconds passed as plausible: %s", got)
	}
}

func TestDataAndStringRendering(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{nil, "null"}, {[]byte{}, `""`}, {[]byte("abc"), `"abc"`},
		{[]byte{0, 1}, "bytes(len=2 0001)"},
		{make([]byte, 20), "bytes(len=20 00000000000000000000000000000000...)"},
	} {
		if got := data(c.in); got != c.want {
			t.Errorf("data(%x) = %s, want %s", c.in, got, c.want)
		}
	}
	for in, want := range map[string]string{"/a": "/a", "": `""`, "/a\x00": `"/a\x00"`, "/ü": "/ü", "/\ufffd": `"/\ufffd"`, "a b": `"a b"`} {
		if got := str(in); got != want {
			t.Errorf("str(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestMultiResponseRendering(t *testing.T) {
	n := newNormalizer(time.Now())
	ok := proto.MultiResponse{Results: []proto.MultiResult{
		{Type: proto.OpCreate, Path: "/a"},
		{Type: proto.OpDelete},
		{Type: proto.OpCheck},
		{Type: proto.OpGetChildren, Children: []string{"b", "a"}},
		{Type: proto.OpError, Err: proto.ErrNoNode},
	}}
	got := n.body(proto.OpMulti, jute.Marshal(&ok))
	want := "results[create path=/a; delete; check; getChildren children=[b a]; error NONODE]" // in the server's order
	if got != want {
		t.Errorf("multi = %s, want %s", got, want)
	}
	// A server that puts a different code in the header than in the body
	// must be visible.
	w := jute.NewWriter(nil)
	(&proto.MultiHeader{Type: -1, Err: -110}).Encode(w)
	(&proto.ErrorResponse{Err: -101}).Encode(w)
	(&proto.MultiHeader{Type: -1, Done: true, Err: 0}).Encode(w)
	got = n.body(proto.OpMulti, w.Bytes())
	want = "results[error NONODE header-err=NODEEXISTS; end{type=-1 err=0}]"
	if got != want {
		t.Errorf("inconsistent multi = %s, want %s", got, want)
	}
}

func TestBodyShowsTrailingBytes(t *testing.T) {
	n := newNormalizer(time.Now())
	body := append(jute.Marshal(&proto.SyncResponse{Path: "/x"}), 9)
	if got := n.body(proto.OpSync, body); got != "path=/x trailing=bytes(len=1 09)" {
		t.Errorf("body = %s", got)
	}
	if got := n.body(proto.OpDelete, []byte{1}); got != "unexpected-body=bytes(len=1 01)" {
		t.Errorf("delete body = %s", got)
	}
}

func TestCompare(t *testing.T) {
	a := Transcript{Scenario: "x", Lines: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}}
	if d := Compare(a, a); d != "" {
		t.Errorf("equal transcripts differ:\n%s", d)
	}
	b := Transcript{Scenario: "x", Lines: []string{"1", "2", "3", "4", "five", "6", "7", "8", "9", "10"}}
	d := Compare(a, b)
	for _, want := range []string{"-5\n", "+five\n", "+10\n", " 2\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, " 1\n") {
		t.Errorf("diff shows lines far from any change:\n%s", d)
	}
}
