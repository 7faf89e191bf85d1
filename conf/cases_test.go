package conf_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/conf/conftest"
)

// TestCases loads every file of the shared table and checks that gozk
// accepts and refuses what Java 3.8.0 does (compat/confdiff checks the
// table against Java itself).
func TestCases(t *testing.T) {
	for _, tc := range conftest.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			dir := t.TempDir()
			path, err := tc.Write(dir)
			if err != nil {
				t.Fatal(err)
			}
			c, err := conf.Load(path, tc.JVMFlags)
			if !tc.GozkAccepts() {
				if err == nil {
					t.Fatalf("loaded; want an error containing %q", tc.Err)
				}
				if !strings.Contains(err.Error(), tc.Err) {
					t.Fatalf("error %q; want one containing %q", err, tc.Err)
				}
				if _, ok := err.(*conf.Error); !ok {
					t.Fatalf("error %T, want *conf.Error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Quorum.Distributed != tc.Distributed || c.Quorum.ServerID != tc.ServerID {
				t.Fatalf("distributed=%v serverID=%d; want %v %d", c.Quorum.Distributed, c.Quorum.ServerID, tc.Distributed, tc.ServerID)
			}
		})
	}
}

// TestDebianSampleInstalled loads the zoo.cfg that Debian's zookeeper
// package installs, when it is there.
func TestDebianSampleInstalled(t *testing.T) {
	const path = "/etc/zookeeper/conf/zoo.cfg"
	if _, err := os.Stat(path); err != nil {
		t.Skip(path, "is not installed")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The sample's dataDir (/var/lib/zookeeper) may hold a myid; load a
	// copy pointing at an empty directory so only the file is checked.
	dir := t.TempDir()
	text := strings.Replace(string(data), "dataDir=/var/lib/zookeeper", "dataDir="+dir, 1)
	p := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := conf.Load(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.ClientPort != 2181 || c.TickTime.Milliseconds() != 2000 || c.Quorum.InitLimit != 10 || c.Quorum.SyncLimit != 5 {
		t.Fatalf("%+v", c)
	}
}
