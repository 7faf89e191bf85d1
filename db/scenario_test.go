package db

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// TestScenariosMatchJava replays every testdata/scenarios/*.txt and
// compares what the tree reports with the .golden file that
// testdata/oracle/TreeOracle.java printed from Apache ZooKeeper 3.8.0's
// DataTree for the same txns: errors, zxids, digests, node counts, data
// sizes, events, stats, multi results and full dumps.
func TestScenariosMatchJava(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(file, ".txt") + ".golden")
			if err != nil {
				t.Fatal(err)
			}
			got := runScenario(t, string(src))
			gotLines := strings.Split(strings.TrimRight(got, "\n"), "\n")
			wantLines := strings.Split(strings.TrimRight(string(want), "\n"), "\n")
			for i := 0; i < len(gotLines) || i < len(wantLines); i++ {
				var g, w string
				if i < len(gotLines) {
					g = gotLines[i]
				}
				if i < len(wantLines) {
					w = wantLines[i]
				}
				if g != w {
					t.Errorf("line %d:\n got: %s\nwant: %s", i+1, g, w)
				}
			}
		})
	}
}

func runScenario(t *testing.T, src string) string {
	t.Helper()
	opts := Options{DigestEnabled: true}
	if strings.Contains(src, "options extended=true") {
		opts.ExtendedTypesEnabled = true
	}
	tree := New(opts)
	var out strings.Builder
	for i, raw := range strings.Split(src, "\n") {
		lineno := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "options ") {
			continue
		}
		f := strings.Fields(line)
		switch f[0] {
		case "dump":
			dumpTree(&out, tree)
			continue
		case "children":
			children, _, _, _ := tree.GetChildren(f[1], nil)
			fmt.Fprintf(&out, "#%d children %s %s\n", lineno, f[1], strings.Join(children, ","))
			continue
		case "restart":
			tree = restartTree(t, tree, opts)
			fmt.Fprintf(&out, "#%d restart nodes=%d digest=%d\n", lineno, tree.NodeCount(), tree.Digest())
			continue
		}
		zxid, _ := strconv.ParseInt(f[1], 10, 64)
		tm, _ := strconv.ParseInt(f[2], 10, 64)
		sid, _ := strconv.ParseInt(f[3], 10, 64)
		var typ proto.OpCode
		var body jute.Record
		if f[0] == "multi" {
			typ = proto.OpMulti
			mt := &proto.MultiTxn{Txns: []proto.Txn{}}
			var cur []string
			for _, tok := range append(f[4:], ";") {
				if tok != ";" {
					cur = append(cur, tok)
					continue
				}
				if len(cur) > 0 {
					st, rec := scenarioTxn(t, cur[0], cur[1:])
					mt.Txns = append(mt.Txns, proto.Txn{Type: int32(st), Data: jute.Marshal(rec)})
					cur = nil
				}
			}
			body = mt
		} else {
			typ, body = scenarioTxn(t, f[0], f[4:])
		}
		// Round-trip through the log encoding, as replay would.
		entry := &proto.TxnEntry{Header: proto.TxnHeader{ClientId: sid, Zxid: zxid, Time: tm, Type: int32(typ)}, Body: body}
		decoded, err := proto.DecodeTxn(entry.Marshal(), 0)
		if err != nil {
			t.Fatalf("line %d: %v", lineno, err)
		}
		res := tree.Apply(decoded)
		var events []string
		for _, e := range res.Events {
			events = append(events, fmt.Sprintf("%d:%s", e.Type, e.Path))
		}
		fmt.Fprintf(&out, "#%d %s err=%d last=%d digest=%d nodes=%d size=%d eph=%d events=%s",
			lineno, f[0], res.Err, tree.LastProcessedZxid(), tree.Digest(), tree.NodeCount(),
			tree.ApproximateDataSize(), tree.EphemeralCount(), strings.Join(events, ","))
		switch typ {
		case proto.OpCreate2, proto.OpCreateContainer, proto.OpCreateTTL, proto.OpSetData, proto.OpSetACL:
			if res.Err == proto.ErrOK {
				fmt.Fprintf(&out, " stat=%s", statString(res.Stat))
			}
		case proto.OpMulti:
			var rs []string
			for _, r := range res.Multi {
				switch r.Type {
				case proto.OpError:
					rs = append(rs, fmt.Sprintf("-1/%d", r.Err))
				case proto.OpCreate:
					rs = append(rs, "1/"+r.Path)
				case proto.OpCreate2:
					rs = append(rs, "15/"+r.Path+"/"+statString(r.Stat))
				case proto.OpDelete:
					rs = append(rs, "2")
				case proto.OpSetData:
					rs = append(rs, "5/"+statString(r.Stat))
				case proto.OpCheck:
					rs = append(rs, "13")
				}
			}
			fmt.Fprintf(&out, " results=%s", strings.Join(rs, ","))
		}
		out.WriteByte('\n')
	}
	return out.String()
}

func scenarioTxn(t *testing.T, op string, a []string) (proto.OpCode, jute.Record) {
	t.Helper()
	num := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: bad number %q", op, s)
		}
		return n
	}
	switch op {
	case "session":
		return proto.OpCreateSession, &proto.CreateSessionTxn{TimeOut: int32(num(a[0]))}
	case "create", "create2":
		typ := proto.OpCreate
		if op == "create2" {
			typ = proto.OpCreate2
		}
		return typ, &proto.CreateTxn{Path: a[0], Data: scenarioData(a[1]), Acl: scenarioACL(t, a, 4), Ephemeral: a[2] == "1", ParentCVersion: int32(num(a[3]))}
	case "container":
		return proto.OpCreateContainer, &proto.CreateContainerTxn{Path: a[0], Data: scenarioData(a[1]), Acl: scenarioACL(t, a, 3), ParentCVersion: int32(num(a[2]))}
	case "ttl":
		return proto.OpCreateTTL, &proto.CreateTTLTxn{Path: a[0], Data: scenarioData(a[1]), Acl: scenarioACL(t, a, 4), ParentCVersion: int32(num(a[2])), Ttl: num(a[3])}
	case "delete":
		return proto.OpDelete, &proto.DeleteTxn{Path: a[0]}
	case "deletecontainer":
		return proto.OpDeleteContainer, &proto.DeleteTxn{Path: a[0]}
	case "setdata":
		return proto.OpSetData, &proto.SetDataTxn{Path: a[0], Data: scenarioData(a[1]), Version: int32(num(a[2]))}
	case "setacl":
		return proto.OpSetACL, &proto.SetACLTxn{Path: a[0], Acl: scenarioACL(t, a, 2), Version: int32(num(a[1]))}
	case "check":
		return proto.OpCheck, &proto.CheckVersionTxn{Path: a[0], Version: int32(num(a[1]))}
	case "error":
		return proto.OpError, &proto.ErrorTxn{Err: int32(num(a[0]))}
	case "close":
		paths := []string{}
		if len(a) > 0 && a[0] != "." {
			paths = strings.Split(a[0], ",")
		}
		return proto.OpCloseSession, &proto.CloseSessionTxn{Paths2Delete: paths}
	}
	t.Fatalf("unknown scenario op %q", op)
	return 0, nil
}

func scenarioData(s string) []byte {
	switch s {
	case "null":
		return nil
	case "empty":
		return []byte{}
	}
	return []byte(s)
}

func scenarioACL(t *testing.T, a []string, i int) []proto.ACL {
	s := "open"
	if i < len(a) {
		s = a[i]
	}
	switch s {
	case "open":
		return proto.OpenACLUnsafe
	case "read":
		return proto.ReadACLUnsafe
	}
	var out []proto.ACL
	for _, e := range strings.Split(s, ",") {
		p := strings.SplitN(e, ":", 3)
		perms, err := strconv.Atoi(p[0])
		if err != nil || len(p) != 3 {
			t.Fatalf("bad ACL %q", e)
		}
		out = append(out, proto.ACL{Perms: int32(perms), Id: proto.Id{Scheme: p[1], Id: p[2]}})
	}
	return out
}

func statString(s proto.Stat) string {
	return fmt.Sprintf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", s.Czxid, s.Mzxid, s.Ctime, s.Mtime,
		s.Version, s.Cversion, s.Aversion, s.EphemeralOwner, s.DataLength, s.NumChildren, s.Pzxid)
}

// dumpTree prints what TreeOracle's dump prints.
func dumpTree(out *strings.Builder, tree *Tree) {
	all, _ := tree.AllChildrenNumber("/")
	tree.mu.RLock()
	containers := tree.sortedPaths(tree.containers)
	ttls := tree.sortedPaths(tree.ttls)
	var sessions []int64
	for sid := range tree.ephemerals {
		sessions = append(sessions, sid)
	}
	tree.mu.RUnlock()
	slices.Sort(sessions)
	fmt.Fprintf(out, "dump nodes=%d all=%d containers=[%s] ttls=[%s]\n", tree.NodeCount(), all,
		strings.Join(containers, ", "), strings.Join(ttls, ", "))
	var visit func(path string)
	visit = func(path string) {
		p := path
		if p == "" {
			p = "/"
		}
		data, stat, _, _ := tree.GetData(p)
		info, _ := tree.Node(p)
		acl, _, _ := tree.GetACL(p)
		var acls []string
		for _, a := range acl {
			acls = append(acls, fmt.Sprintf("%d:%s:%s", a.Perms, a.Id.Scheme, a.Id.Id))
		}
		d := "null"
		if data != nil {
			d = "'" + string(data) + "'"
		}
		fmt.Fprintf(out, "  %s data=%s stat=%s stored=%d,%d acl=%s\n", p, d, statString(stat),
			info.Stat.Cversion, info.Stat.EphemeralOwner, strings.Join(acls, ","))
		children, _, _, _ := tree.GetChildren(p, nil)
		for _, c := range slices.Sorted(slices.Values(children)) {
			visit(path + "/" + c)
		}
	}
	visit("")
	for _, sid := range sessions {
		if eph := tree.Ephemerals(sid); len(eph) > 0 {
			fmt.Fprintf(out, "  ephemerals %d %s\n", sid, strings.Join(eph, ","))
		}
	}
}

// restartTree does what a restart does to a tree: a snapshot taken with
// FuzzyWalk (a few nodes per step, as the server takes them) is loaded
// into a new tree, which the scenario goes on with. WalkSnapshot, which
// `gozk data java export` writes Java's snapshots with, must list the
// nodes in the same order.
func restartTree(t *testing.T, tree *Tree, opts Options) *Tree {
	t.Helper()
	walked := snapshotPaths(t, tree)
	nt := New(opts)
	ld := nt.NewLoader()
	w := tree.StartFuzzyWalk()
	var fuzzy []string
	for batch := w.Next(nil, 3); len(batch) > 0; batch = w.Next(batch, 3) {
		for _, n := range batch {
			if n.ACLID != OpenACLID {
				ld.ACL(n.ACLID, n.ACL)
			}
			if err := ld.Node(n.Path, n.Data, n.ACLID, &n.Stat); err != nil {
				t.Fatal(err)
			}
			fuzzy = append(fuzzy, strings.Clone(n.Path))
		}
	}
	if !slices.Equal(walked, fuzzy) {
		t.Errorf("WalkSnapshot and FuzzyWalk disagree:\n%q\n%q", walked, fuzzy)
	}
	nt.SetSessions(tree.Sessions())
	nt.FinishLoad()
	nt.SetLastProcessedZxid(tree.LastProcessedZxid())
	return nt
}

// snapshotPaths lists the paths WalkSnapshot yields, in its order.
func snapshotPaths(t *testing.T, tree *Tree) []string {
	t.Helper()
	var paths []string
	if err := tree.WalkSnapshot(func([]proto.ACLCacheEntry) error { return nil },
		func(path string, _ []byte, _ int64, _ proto.StatPersisted) error {
			paths = append(paths, path)
			return nil
		}); err != nil {
		t.Fatal(err)
	}
	return paths
}
