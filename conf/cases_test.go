package conf_test

import (
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

// TestFixturesUnchanged loads the Debian sample zoo.cfg and a
// three-server zoo.cfg with group and weight lines exactly as written.
func TestFixturesUnchanged(t *testing.T) {
	c, err := conf.Load("conftest/testdata/debian-zoo.cfg", "")
	if err != nil {
		t.Fatal(err)
	}
	if c.ClientPort != 2181 || c.TickTime.Milliseconds() != 2000 || c.DataDir != "/tmp/zookeeper" ||
		c.Quorum.InitLimit != 10 || c.Quorum.SyncLimit != 5 || c.Quorum.Distributed {
		t.Fatalf("debian sample: %+v", c)
	}
	c, err = conf.Load("conftest/testdata/three-servers-groups.cfg", "")
	if err != nil {
		t.Fatal(err)
	}
	q := c.Quorum
	if !q.Distributed || q.ServerID != 2 || !q.Ensemble.Hierarchical || len(q.Ensemble.Voters()) != 3 ||
		q.Ensemble.Weights[3] != 2 || c.AutopurgeInterval.Hours() != 24 || c.FourLetterWhitelist != "srvr,ruok,mntr" {
		t.Fatalf("three servers: %+v %+v", c, q.Ensemble)
	}
	if s, ok := q.Self(); !ok || s.ClientAddr() != "0.0.0.0:2181" || !s.ClientFromStatic {
		t.Fatalf("self: %+v", s)
	}
}
