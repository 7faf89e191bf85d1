//go:build interop

package clients

import (
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

// env is what a case gets: a server and, on the shared server, a root
// node of its own.
type env struct {
	srv  server
	root string // "" on a fresh server, "/<case name>" on the shared one
}

func (e *env) connect(t *testing.T) *client {
	t.Helper()
	return connect(t, e.srv.Addr())
}

// p returns the path of name under the case's root.
func (e *env) p(name string) string { return e.root + name }

type testCase struct {
	name string
	// fresh cases get a server of their own (exact zxids, a pristine
	// tree, restarts, other settings).
	fresh bool
	opts  serverOpts
	run   func(t *testing.T, e *env)
}

var open = zk.WorldACL(zk.PermAll)

var cases = []testCase{
	{name: "FreshTree", fresh: true, run: testFreshTree},
	{name: "ZxidArithmetic", fresh: true, run: testZxidArithmetic},
	{name: "CreateModes", run: testCreateModes},
	{name: "NullAndEmptyData", run: testNullAndEmptyData},
	{name: "SequenceNumbers", run: testSequenceNumbers},
	{name: "StatChanges", run: testStatChanges},
	{name: "Errors", run: testErrors},
	{name: "Sync", run: testSync},
	{name: "Multi", run: testMulti},
	{name: "MultiFailure", run: testMultiFailure},
	{name: "MultiErrorCodes", run: testMultiErrorCodes},
	{name: "ACL", run: testACL},
	{name: "DigestAuth", run: testDigestAuth},
	{name: "InvalidACL", run: testInvalidACL},
	{name: "SuperUser", run: testSuperUser},
	{name: "AuthFailed", run: testAuthFailed},
	{name: "WatchData", run: testWatchData},
	{name: "WatchExists", run: testWatchExists},
	{name: "WatchChildren", run: testWatchChildren},
	{name: "WatchFailedReadSetsNone", run: testWatchFailedReadSetsNone},
	{name: "WatchOneFramePerConnection", run: testWatchOneFramePerConnection},
	{name: "WatchOrderWithinTxn", run: testWatchOrderWithinTxn},
	{name: "WatchOrderAcrossTxns", run: testWatchOrderAcrossTxns},
	{name: "NotificationBeforeReply", run: testNotificationBeforeReply},
	{name: "WatchRootChildren", run: testWatchRootChildren},
	{name: "EphemeralsOnClose", run: testEphemeralsOnClose},
	{name: "SessionExpiry", run: testSessionExpiry},
	{name: "ReconnectSameSession", run: testReconnectSameSession},
	{name: "Containers", run: testContainers},
	{name: "TTL", run: testTTL},
	{name: "Recipes", run: testRecipes},
	{name: "Reconfig", run: testReconfig},
	{name: "FourLetterWords", run: testFourLetterWords},
	{name: "OversizedFrame", run: testOversizedFrame},
	{name: "TTLDisabled", fresh: true, opts: serverOpts{noExtendedTypes: true}, run: testTTLDisabled},
	{name: "RestartKeepsData", fresh: true, run: testRestartKeepsData},
}

// TestGoZookeeper runs every case against Java (java/<case>) and against
// gozk (gozk/<case>).
func TestGoZookeeper(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			var shared server
			for _, tc := range cases {
				if !tc.fresh && shared == nil && wouldRun(t, b.name, tc.name) {
					shared = b.start(t, serverOpts{})
				}
				t.Run(tc.name, func(t *testing.T) {
					e := &env{srv: shared}
					if tc.fresh {
						e.srv = b.start(t, tc.opts)
					} else {
						e.root = "/" + tc.name
						c := e.connect(t)
						mustCreate(t, c, e.root, nil, zk.FlagPersistent, open)
						c.Close()
					}
					tc.run(t, e)
				})
			}
		})
	}
}

// wouldRun reports whether the -run pattern can select
// TestGoZookeeper/backend/name, so that the shared server is only started
// when some case needs it. It errs on the side of true.
func wouldRun(t *testing.T, backend, name string) bool {
	f := flag.Lookup("test.run")
	if f == nil || f.Value.String() == "" {
		return true
	}
	elems := strings.Split(f.Value.String(), "/")
	names := []string{"TestGoZookeeper", backend, name}
	for i, pat := range elems {
		if i >= len(names) {
			break
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return true
		}
		if !re.MatchString(names[i]) {
			return false
		}
	}
	return true
}
