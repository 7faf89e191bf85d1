package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gozk/gozk/admin"
	"github.com/gozk/gozk/conf"
)

// The configuration an ensemble member's monitoring shows comes from
// zoo.cfg as Java's QuorumPeerConfig reads it: the membership text is
// Java's QuorumVerifier.toString, this server's client address comes from
// clientPortAddress:clientPort when its line has none, and the server
// list wins over peerType. The expected membership is what Java 3.8.0
// printed in conf for this zoo.cfg (see admin's
// testdata/java-3.8.0-ensemble/observer-conf.txt).
func TestQuorumViewFromZooCfg(t *testing.T) {
	dir := t.TempDir()
	cfgText := "tickTime=2000\ninitLimit=10\nsyncLimit=5\ndataDir=" + dir + "\nclientPort=26700\nclientPortAddress=127.0.0.1\n" +
		"server.1=127.0.0.1:26720:26730:participant\nserver.2=127.0.0.1:26721:26731:participant\n" +
		"server.3=127.0.0.1:26722:26732:participant\nserver.4=127.0.0.1:26723:26733:observer;127.0.0.1:26703\n"
	path := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(path, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "myid"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := conf.Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	got := quorumView(cfg)
	server := func(id int64, client string, observer bool) admin.QuorumServerView {
		return admin.QuorumServerView{ID: id,
			QuorumAddrs:   []string{"127.0.0.1:" + itoa(26719+id)},
			ElectionAddrs: []string{"127.0.0.1:" + itoa(26729+id)},
			ClientAddr:    client, Observer: observer}
	}
	want := &admin.QuorumView{ServerID: 1, InitLimit: 10, SyncLimit: 5, ElectionAlg: 3,
		Membership: "server.1=127.0.0.1:26720:26730:participant\nserver.2=127.0.0.1:26721:26731:participant\n" +
			"server.3=127.0.0.1:26722:26732:participant\nserver.4=127.0.0.1:26723:26733:observer;127.0.0.1:26703\nversion=0",
		Servers: []admin.QuorumServerView{
			server(1, "127.0.0.1:26700", false), server(2, "", false), server(3, "", false), server(4, "127.0.0.1:26703", true),
		}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("quorum view\n%+v\nwant\n%+v", got, want)
	}

	// Server 4's line makes it an observer, whatever peerType says.
	if err := os.WriteFile(filepath.Join(dir, "myid"), []byte("4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgText = strings.Replace(cfgText, "clientPort=26700\n", "clientPort=26703\npeerType=participant\n", 1)
	if err := os.WriteFile(path, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err = conf.Load(path, ""); err != nil {
		t.Fatal(err)
	}
	if v := quorumView(cfg); v == nil || !v.Observer || v.ServerID != 4 {
		t.Errorf("server 4's view: %+v", v)
	}

	// A standalone configuration has none.
	if err := os.WriteFile(path, []byte("tickTime=2000\ndataDir="+dir+"\nclientPort=26700\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err = conf.Load(path, ""); err != nil {
		t.Fatal(err)
	}
	if v := quorumView(cfg); v != nil {
		t.Errorf("a standalone server has a quorum view: %+v", v)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
