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
	if s2.String() != "[fe80::1]:2889:3889:participant" || s4.String() != "zk4:2888:3888:observer;0.0.0.0:2181" {
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
