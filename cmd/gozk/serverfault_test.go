package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/server"
)

var errDiskFault = errors.New("injected fsync failure")

// TestServerExitsWhenTheTxnLogFails: when the txn log's fsync fails, `gozk
// server` stops with status 1 and a message naming the failed fsync and
// the disk's error, and logs it.
func TestServerExitsWhenTheTxnLogFails(t *testing.T) {
	var armed atomic.Bool
	faults := errorfs.InjectorFunc(func(op errorfs.Op) error {
		if armed.Load() && op.Kind == errorfs.OpFileSyncData && filepath.Ext(op.Path) == ".log" &&
			filepath.Base(filepath.Dir(op.Path)) == "gozk" {
			return errDiskFault
		}
		return nil
	})
	logged := &lockedBuffer{}
	logger := zerolog.New(logged)
	cfg := server.Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = "/data"
	cfg.FS = errorfs.Wrap(vfs.NewMem(), faults)
	cfg.Logger = logger
	srv, err := server.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	stopped := make(chan error, 1)
	go func() { stopped <- serveUntilStopped(srv, make(chan os.Signal), logger, nil, nil) }()

	c, _, err := zk.Connect([]string{srv.Addr().String()}, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Create("/before", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	if _, err := c.Create("/after", nil, 0, zk.WorldACL(zk.PermAll)); err == nil {
		t.Fatal("a create whose fsync failed was acknowledged")
	}

	select {
	case err = <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the server command did not return within a minute of the failure")
	}
	var ec cli.ExitCoder
	if !errors.As(err, &ec) || ec.ExitCode() != exitRuntime {
		t.Fatalf("returned %v, want an exit with status %d", err, exitRuntime)
	}
	for _, want := range []string{"server stopped: ", "txn log fsync failed", errDiskFault.Error()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("exit message %q lacks %q", err, want)
		}
	}
	if out := logged.String(); !strings.Contains(out, "the txn log failed") || !strings.Contains(out, errDiskFault.Error()) {
		t.Errorf("the log does not say why the server stopped:\n%s", out)
	}
}

// lockedBuffer is a log sink the server's goroutines may share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
