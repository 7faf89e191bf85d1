package diff

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// normalizer renders server output with everything that legitimately
// differs between two runs replaced by stable labels, while keeping every
// relation a client could observe.
//
//   - zxids: shown relative to the first zxid that appears in the run
//     ("Z+0", "Z+3", "Z-1"). Renumbering by first appearance keeps order
//     and equality (czxid == mzxid) but also keeps gaps, which is how a
//     zxid consumed by a failed write, or wrongly consumed by a sync,
//     stays visible. 0 and -1 are shown as themselves: they are sentinel
//     values, not positions in the log.
//   - times: "0" for zero, "T" for a plausible wall-clock time, and the raw
//     value with a marker for anything else (a server sending seconds, or
//     garbage, must show up). mtime is shown as "ct" when the node was
//     never modified (mzxid == czxid), where it must equal ctime; after a
//     modification the two may or may not fall in the same millisecond, so
//     only "mtime >= ctime" is kept.
//   - session ids: "S1", "S2", ... by first appearance.
//   - passwords: "P1", "P2", ... by first appearance, "zero" for the
//     all-zero refusal password, with the length when it is not 16 and a
//     "derived" marker when it is Java's password for the session id.
type normalizer struct {
	zxidBase  int64
	haveBase  bool
	sessions  map[int64]string
	passwords map[string]string
	earliest  int64 // ms; times before this are implausible
}

func newNormalizer(start time.Time) *normalizer {
	return &normalizer{
		sessions:  make(map[int64]string),
		passwords: make(map[string]string),
		earliest:  start.Add(-time.Hour).UnixMilli(),
	}
}

func (n *normalizer) zxid(z int64) string {
	if z == 0 || z == -1 {
		return strconv.FormatInt(z, 10)
	}
	if !n.haveBase {
		n.zxidBase, n.haveBase = z, true
	}
	return fmt.Sprintf("Z%+d", z-n.zxidBase)
}

func (n *normalizer) session(id int64) string {
	if id == 0 {
		return "0"
	}
	if l, ok := n.sessions[id]; ok {
		return l
	}
	l := "S" + strconv.Itoa(len(n.sessions)+1)
	n.sessions[id] = l
	return l
}

func (n *normalizer) password(pw []byte, sessionID int64) string {
	var s string
	switch {
	case pw == nil:
		return "null"
	case len(pw) > 0 && bytes.Count(pw, []byte{0}) == len(pw):
		s = "zero"
	default:
		l, ok := n.passwords[string(pw)]
		if !ok {
			l = "P" + strconv.Itoa(len(n.passwords)+1)
			n.passwords[string(pw)] = l
		}
		s = l
		if derived := proto.SessionPassword(sessionID); sessionID != 0 && bytes.Equal(pw, derived[:]) {
			s += "(derived)"
		}
	}
	if len(pw) != proto.PasswordLength {
		s += fmt.Sprintf("(len %d)", len(pw))
	}
	return s
}

// time renders a ctime.
func (n *normalizer) time(ms int64) string {
	if ms == 0 {
		return "0"
	}
	if ms < n.earliest || ms > time.Now().Add(time.Hour).UnixMilli() {
		return fmt.Sprintf("T?(%d)", ms)
	}
	return "T"
}

func (n *normalizer) stat(s *proto.Stat) string {
	var mt string
	switch {
	case s.Mzxid == s.Czxid && s.Mtime == s.Ctime:
		mt = "ct"
	case s.Mzxid == s.Czxid:
		mt = fmt.Sprintf("T!=ct(%+dms)", s.Mtime-s.Ctime)
	case s.Mtime < s.Ctime:
		mt = fmt.Sprintf("T<ct(%+dms)", s.Mtime-s.Ctime)
	default:
		mt = n.time(s.Mtime)
	}
	return fmt.Sprintf("stat{cz=%s mz=%s ct=%s mt=%s v=%d cv=%d av=%d eo=%s dl=%d nc=%d pz=%s}",
		n.zxid(s.Czxid), n.zxid(s.Mzxid), n.time(s.Ctime), mt,
		s.Version, s.Cversion, s.Aversion, n.session(s.EphemeralOwner),
		s.DataLength, s.NumChildren, n.zxid(s.Pzxid))
}

// data renders a buffer: null, a quoted string when it is short readable
// text, otherwise its length and a prefix in hex.
func data(b []byte) string {
	if b == nil {
		return "null"
	}
	if len(b) <= 64 && utf8.Valid(b) && printable(b) {
		return strconv.Quote(string(b))
	}
	if len(b) > 16 {
		return fmt.Sprintf("bytes(len=%d %x...)", len(b), b[:16])
	}
	return fmt.Sprintf("bytes(len=%d %x)", len(b), b)
}

func printable(b []byte) bool {
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// str renders a path or name so that control characters and odd Unicode
// stay visible in the transcript.
func str(s string) string {
	q := strconv.Quote(s)
	if strings.ContainsRune(s, utf8.RuneError) {
		// A replacement character is what a strict decoder made of bytes
		// it rejected; spell it out so it cannot pass for the original.
		q = strconv.QuoteToASCII(s)
	}
	if q[1:len(q)-1] == s && !strings.ContainsAny(s, " =[]{};") && s != "" {
		return s
	}
	return q
}

func acls(list []proto.ACL) string {
	if list == nil {
		return "null"
	}
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = fmt.Sprintf("%d:%s:%s", a.Perms, str(a.Id.Scheme), str(a.Id.Id))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// orderedList renders a list in the order the server gave it: children and
// ephemerals come in the order of Java's hash sets, which clients show.
func orderedList(l []string) string {
	if l == nil {
		return "null"
	}
	s := make([]string, len(l))
	for i := range l {
		s[i] = str(l[i])
	}
	return "[" + strings.Join(s, " ") + "]"
}

// sortedList renders a list whose order the protocol leaves unspecified
// (the identities of whoAmI): sorted.
func sortedList(list []string) string {
	if list == nil {
		return "null"
	}
	s := append([]string(nil), list...)
	sort.Strings(s)
	for i := range s {
		s[i] = str(s[i])
	}
	return "[" + strings.Join(s, " ") + "]"
}

func errName(code int32) string {
	if code == 0 {
		return "OK"
	}
	return proto.ErrCode(code).Name()
}

// body renders a successful reply body decoded for op, followed by any
// bytes the record did not use.
func (n *normalizer) body(op proto.OpCode, b []byte) string {
	if op == proto.OpMulti || op == proto.OpMultiRead {
		return n.multiResponse(b)
	}
	rec, ok := newResponse(op)
	if !ok {
		return "unknown-op body=" + data(b)
	}
	if rec == nil {
		if len(b) == 0 {
			return ""
		}
		return "unexpected-body=" + data(b)
	}
	r := jute.NewReader(b)
	r.SetLimit(len(b) + 1)
	rec.Decode(r)
	if r.Err() != nil {
		return fmt.Sprintf("undecodable(%v) body=%s", r.Err(), data(b))
	}
	out := n.record(rec)
	if r.Remaining() > 0 {
		out += " trailing=" + data(r.Rest())
	}
	return out
}

// record renders a decoded response record.
func (n *normalizer) record(rec jute.Record) string {
	switch v := rec.(type) {
	case *proto.CreateResponse:
		return "path=" + str(v.Path)
	case *proto.Create2Response:
		return "path=" + str(v.Path) + " " + n.stat(&v.Stat)
	case *proto.ExistsResponse:
		return n.stat(&v.Stat)
	case *proto.GetDataResponse:
		return "data=" + data(v.Data) + " " + n.stat(&v.Stat)
	case *proto.SetDataResponse:
		return n.stat(&v.Stat)
	case *proto.GetACLResponse:
		return "acl=" + acls(v.Acl) + " " + n.stat(&v.Stat)
	case *proto.SetACLResponse:
		return n.stat(&v.Stat)
	case *proto.GetChildrenResponse:
		return "children=" + orderedList(v.Children)
	case *proto.GetChildren2Response:
		return "children=" + orderedList(v.Children) + " " + n.stat(&v.Stat)
	case *proto.SyncResponse:
		return "path=" + str(v.Path)
	case *proto.SetSASLResponse:
		return "token=" + data(v.Token)
	case *proto.GetEphemeralsResponse:
		return "ephemerals=" + orderedList(v.Ephemerals)
	case *proto.GetAllChildrenNumberResponse:
		return "total=" + strconv.Itoa(int(v.TotalNumber))
	case *proto.ErrorResponse:
		return "err=" + errName(v.Err)
	case *proto.WhoAmIResponse:
		if v.ClientInfo == nil {
			return "clientInfo=null"
		}
		ids := make([]string, len(v.ClientInfo))
		for i, ci := range v.ClientInfo {
			ids[i] = ci.AuthScheme + ":" + ci.User
		}
		return "clientInfo=" + sortedList(ids)
	case *proto.WatcherEvent:
		return fmt.Sprintf("event %v state=%d path=%s", proto.EventType(v.Type), v.State, str(v.Path))
	}
	return fmt.Sprintf("%+v", rec)
}

// multiResponse renders a MultiResponse with both error codes of each
// result (the header's and, for error results, the body's), so a server
// that gets one of them wrong is visible.
func (n *normalizer) multiResponse(b []byte) string {
	r := jute.NewReader(b)
	r.SetLimit(len(b) + 1)
	var parts []string
	for {
		var h proto.MultiHeader
		h.Decode(r)
		if r.Err() != nil {
			parts = append(parts, fmt.Sprintf("undecodable(%v)", r.Err()))
			break
		}
		if h.Done {
			if h.Type != -1 || h.Err != -1 {
				parts = append(parts, fmt.Sprintf("end{type=%d err=%d}", h.Type, h.Err))
			}
			break
		}
		op := proto.OpCode(h.Type)
		part := op.String()
		if op == proto.OpError {
			var e proto.ErrorResponse
			e.Decode(r)
			part = "error " + errName(e.Err)
			if h.Err != e.Err {
				part += fmt.Sprintf(" header-err=%s", errName(h.Err))
			}
		} else {
			if h.Err != 0 {
				part += fmt.Sprintf(" header-err=%s", errName(h.Err))
			}
			rec, ok := newResponse(op)
			if !ok {
				parts = append(parts, part+" unknown-result-type")
				break
			}
			if rec != nil {
				rec.Decode(r)
				if r.Err() != nil {
					parts = append(parts, part+fmt.Sprintf(" undecodable(%v)", r.Err()))
					break
				}
				part += " " + n.record(rec)
			}
		}
		parts = append(parts, part)
	}
	out := "results[" + strings.Join(parts, "; ") + "]"
	if r.Err() == nil && r.Remaining() > 0 {
		out += " trailing=" + data(r.Rest())
	}
	return out
}

// newResponse is zkwire.NewResponse with the multi results' record types:
// inside a MultiResponse, type 1 is CreateResponse, 15 Create2Response,
// 5 SetDataResponse, 4 GetDataResponse, 8 GetChildrenResponse and 2/13
// have no record.
func newResponse(op proto.OpCode) (jute.Record, bool) {
	switch op {
	case proto.OpCheck:
		return nil, true
	}
	return zkwire.NewResponse(op)
}
