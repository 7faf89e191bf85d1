package conf

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"os"
)

func TestEnsembleTyped(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "myid"), []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := write(t, "tickTime=2000\ndataDir="+dir+"\nclientPort=2181\ninitLimit=10\nsyncLimit=5\n"+
		"connectToLearnerMasterLimit=12\nquorumListenOnAllIPs=true\nelectionPortBindRetry=0\n"+
		"server.1=zk1:2888:3888;127.0.0.1:2181\n"+
		"server.2=[fe80::1]:2889:3889:participant\n"+
		"server.3=zk3:2888:3888\n"+
		"server.4=zk4:2888:3888:observer;2181\n"+
		"group.1=1:2\ngroup.2=3\nweight.1=3\n")
	c, err := Load(p, "")
	if err != nil {
		t.Fatal(err)
	}
	q := c.Quorum
	if !q.Distributed || q.ServerID != 2 || q.InitLimit != 10 || q.SyncLimit != 5 || q.ConnectToLearnerMasterLimit != 12 ||
		!q.QuorumListenOnAllIPs || q.ElectionPortBindRetry != 0 || q.PeerType != Participant {
		t.Fatalf("%+v", q)
	}
	e := q.Ensemble
	if !reflect.DeepEqual(e.Voters(), []int64{1, 2, 3}) || !reflect.DeepEqual(e.Observers(), []int64{4}) || !e.Hierarchical {
		t.Fatalf("voters %v observers %v", e.Voters(), e.Observers())
	}
	if !reflect.DeepEqual(e.Weights, map[int64]int64{1: 3, 2: 1, 3: 1}) || !reflect.DeepEqual(e.Groups, map[int64][]int64{1: {1, 2}, 2: {3}}) {
		t.Fatalf("weights %v groups %v", e.Weights, e.Groups)
	}
	s1, s2, s4 := e.Servers[1], e.Servers[2], e.Servers[4]
	if s1.ClientAddr() != "127.0.0.1:2181" || s1.Addrs[0].QuorumHostPort() != "zk1:2888" || s1.Line != 9 {
		t.Fatalf("server.1 %+v", s1)
	}
	// This server's line has no client address: the static one fills in.
	if !s2.ClientFromStatic || s2.ClientAddr() != "0.0.0.0:2181" || s2.Addrs[0].ElectionHostPort() != "[fe80::1]:3889" {
		t.Fatalf("server.2 %+v", s2)
	}
	// Java writes IPv6 literals uncompressed.
	if s2.String() != "[fe80:0:0:0:0:0:0:1]:2889:3889:participant" || s4.String() != "zk4:2888:3888:observer;0.0.0.0:2181" {
		t.Fatalf("String: %q %q", s2.String(), s4.String())
	}
	if self, ok := q.Self(); !ok || self != s2 {
		t.Fatal("Self")
	}
}

func TestDynamicFileVersion(t *testing.T) {
	dir := t.TempDir()
	dyn := filepath.Join(dir, "zoo.cfg.dynamic.1a")
	if err := os.WriteFile(dyn, []byte("server.1=a:1:2;2181\nserver.2=b:1:2\nserver.3=c:1:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "myid"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfg, []byte("dataDir="+dir+"\ninitLimit=5\nsyncLimit=2\ndynamicConfigFile="+dyn+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg+".dynamic.next", []byte("server.1=a:1:2;2181\nversion=1b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Quorum.Ensemble.Version != 0x1a || c.Quorum.Ensemble.File != dyn || c.Quorum.Next == nil || c.Quorum.Next.Version != 0x1b {
		t.Fatalf("%+v next %+v", c.Quorum.Ensemble, c.Quorum.Next)
	}
	// The client port comes from this server's line.
	if c.ClientAddr() != "0.0.0.0:2181" || c.TickTime != 3*time.Second {
		t.Fatalf("client %s tick %v", c.ClientAddr(), c.TickTime)
	}
}

func TestSystemPropertyBridge(t *testing.T) {
	c, err := Load(write(t, "dataDir=/d\nclientPort=2181\nsnapCount=0x10\nskipACL=maybe\nadmin.serverPort=80a\nssl.clientAuth=want\nssl.quorum.keyStore.location=/k.jks\n"),
		"-Dzookeeper.snapCount=5 -Djute.maxbuffer=4096 -Dzookeeper.maxCnxns=7")
	if err != nil {
		t.Fatal(err)
	}
	// zoo.cfg wins over -D; numbers decode as Integer.decode does.
	if c.SnapCount != 16 || c.JuteMaxBuffer != 4096 || c.MaxCnxns != 7 || c.SkipACL || c.AdminServerPort != 8080 {
		t.Fatalf("%+v", c)
	}
	if c.ClientTLS.ClientAuth != "want" || c.QuorumTLS.KeyStoreLocation != "/k.jks" {
		t.Fatalf("tls %+v %+v", c.ClientTLS, c.QuorumTLS)
	}
	if got := c.System["zookeeper.snapCount"]; got.Value != "0x10" || got.Line != 3 {
		t.Fatalf("System: %+v", got)
	}
	if len(c.Warnings) != 2 {
		t.Fatalf("warnings %q", c.Warnings)
	}
}

// TestObserverDelays: an observer's election and reconnect pauses come
// from Java's system properties, 200 ms and none by default.
func TestObserverDelays(t *testing.T) {
	c, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.ObserverElectionDelay != 200*time.Millisecond || c.ObserverReconnectDelay != 0 {
		t.Fatalf("defaults: election %v, reconnect %v", c.ObserverElectionDelay, c.ObserverReconnectDelay)
	}
	c, err = Load(write(t, "dataDir=/d\nclientPort=2181\n"),
		"-Dzookeeper.observer.election.DelayMs=0 -Dzookeeper.observer.reconnectDelayMs=1500")
	if err != nil {
		t.Fatal(err)
	}
	if c.ObserverElectionDelay != 0 || c.ObserverReconnectDelay != 1500*time.Millisecond {
		t.Fatalf("set: election %v, reconnect %v", c.ObserverElectionDelay, c.ObserverReconnectDelay)
	}
}

// TestReconfigWarning: an ensemble with reconfigEnabled=true gets the
// start-up warning naming the file its membership comes from (zoo.cfg,
// or the dynamic file); without it, or standalone, none.
func TestReconfigWarning(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "myid"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := "server.1=a:1:2\nserver.2=b:1:2\nserver.3=c:1:2\n"
	static := write(t, "dataDir="+dir+"\ninitLimit=5\nsyncLimit=2\nreconfigEnabled=true\n"+servers)
	dyn := filepath.Join(dir, "zoo.cfg.dynamic.100000000")
	if err := os.WriteFile(dyn, []byte(servers), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"static lines", static, "dynamic reconfiguration is not supported by this gozk; the ensemble's membership is the static one in " + static},
		{"dynamic file", write(t, "dataDir="+dir+"\ninitLimit=5\nsyncLimit=2\nreconfigEnabled=true\ndynamicConfigFile="+dyn+"\n"),
			"dynamic reconfiguration is not supported by this gozk; the ensemble's membership is the static one in " + dyn},
		{"reconfig off", write(t, "dataDir="+dir+"\ninitLimit=5\nsyncLimit=2\n"+servers), ""},
		{"standalone", write(t, "dataDir="+dir+"\nclientPort=2181\nreconfigEnabled=true\n"), ""},
	} {
		cfg, err := Load(c.path, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.ReconfigWarning(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestWhatPeerNeeds: each server's quorum, election and client
// addresses, role, weight and group, as peer reads them.
func TestWhatPeerNeeds(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "myid"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(write(t, "dataDir="+dir+"\ninitLimit=5\nsyncLimit=2\nclientPort=2181\n"+
		"server.1=127.0.0.1:2888:3888\nserver.2=[::1]:2889:3889:participant;[::1]:2182\nserver.3=h3:2890:3890;2183\n"+
		"server.4=h4:2891:3891:observer;127.0.0.4:2184\ngroup.1=1:2\ngroup.2=3\nweight.2=0\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	e := c.Quorum.Ensemble
	type view struct {
		quorum, election, client string
		role                     LearnerType
		weight, group            int64
	}
	got := map[int64]view{}
	for _, id := range e.IDs() {
		s := e.Servers[id]
		g, _ := e.GroupOf(id)
		got[id] = view{s.Addrs[0].QuorumHostPort(), s.Addrs[0].ElectionHostPort(), s.ClientAddr(), s.Type, e.WeightOf(id), g}
	}
	want := map[int64]view{
		1: {"127.0.0.1:2888", "127.0.0.1:3888", "0.0.0.0:2181", Participant, 1, 1},
		2: {"[::1]:2889", "[::1]:3889", "[::1]:2182", Participant, 0, 1},
		3: {"h3:2890", "h3:3890", "0.0.0.0:2183", Participant, 1, 2},
		4: {"h4:2891", "h4:3891", "127.0.0.4:2184", Observer, 0, 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if e.WeightOf(9) != 0 || (&Ensemble{}).WeightOf(9) != 1 {
		t.Fatal("WeightOf of a server without a line")
	}
}

// TestServerLineText: a server line written back as Java's
// QuorumServer.toString writes it (the expected texts are Java 3.8.0's,
// which compat/confdiff compares for every case of the table): the role
// once after every address, IP literals in Java's form, an empty host as
// localhost.
func TestServerLineText(t *testing.T) {
	for line, want := range map[string]string{
		"zk1:2888:3888|zk1b:2889:3889":                                 "zk1:2888:3888|zk1b:2889:3889:participant",
		"zk4:2888:3888|zk4b:2889:3889:observer":                        "zk4:2888:3888|zk4b:2889:3889:observer",
		"zk1b:2889:3889|zk1a:2888:3888|[::1]:2890:3890;127.0.0.1:2181": "[0:0:0:0:0:0:0:1]:2890:3890|zk1a:2888:3888|zk1b:2889:3889:participant;127.0.0.1:2181",
		"[::1]:2888:3888;[::1]:2181":                                   "[0:0:0:0:0:0:0:1]:2888:3888:participant;[0:0:0:0:0:0:0:1]:2181",
		"[2001:DB8:0:0:0:0:0:1]:2888:3888":                             "[2001:db8:0:0:0:0:0:1]:2888:3888:participant",
		"[::ffff:127.0.0.1]:2888:3888":                                 "127.0.0.1:2888:3888:participant",
		":2888:3888;:2181":                                             "localhost:2888:3888:participant;localhost:2181",
		"127.1:2888:3888":                                              "127.0.0.1:2888:3888:participant",
		"127.000.000.001:2888:3888:OBSERVER;2181":                      "127.0.0.1:2888:3888:observer;0.0.0.0:2181",
		"ZK1.Example:2888:3888":                                        "ZK1.Example:2888:3888:participant",
	} {
		s, err := parseServerLine(1, line, true)
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if got := s.String(); got != want {
			t.Errorf("%s: %s, Java writes %s", line, got, want)
		}
	}
}

// TestJavaIPv4Literal: the IPv4 literals Java's InetAddress reads
// without a name lookup, and what it does not take for one.
func TestJavaIPv4Literal(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "127.1": "127.0.0.1", "10.1.2": "10.1.0.2", "2130706433": "127.0.0.1",
		"127.000.000.001": "127.0.0.1", "1.65535": "1.0.255.255", "0": "0.0.0.0",
		"256.0.0.1": "", "1.2.3.4.5": "", "1..2": "", "1.2.": "", "0x7f.1": "", "zk1": "", "4294967296": "", "1.16777216": "", "": "", "-1": "",
	} {
		ip, ok := javaIPv4Literal(in)
		switch {
		case ok && ip.String() != want:
			t.Errorf("%q: %s, want %q", in, ip, want)
		case !ok && want != "":
			t.Errorf("%q: not a literal, want %s", in, want)
		}
	}
}

// TestObserverMasterPortUnset: Java leaves observerMasterPort unset (0)
// for any value not above 0.
func TestObserverMasterPortUnset(t *testing.T) {
	for text, want := range map[string]int{"2191": 2191, "0": 0, "-1": 0} {
		c, err := Load(write(t, "dataDir=/d\nclientPort=2181\nobserverMasterPort="+text+"\n"), "")
		if err != nil || c.Quorum.ObserverMasterPort != want {
			t.Errorf("observerMasterPort=%s: %d, %v; want %d", text, c.Quorum.ObserverMasterPort, err, want)
		}
	}
}
