package zkcli

import (
	"strings"
	"testing"
)

const sample = `SLF4J: Failed to load class "org.slf4j.impl.StaticLoggerBinder".
Connecting to 127.0.0.1:4242
2026-01-02 03:04:05,678 [myid:] - INFO  [main:ZooKeeper@1] - Initiating client connection
Welcome to ZooKeeper!
JLine support is disabled

WATCHER::

WatchedEvent state:SyncConnected type:None path:null
Created /a
cZxid = 0x1f
ctime = Sat Nov 21 02:26:14 UTC 2026
mZxid = 0x2a
mtime = Thu Jan 01 00:00:00 UTC 1970
pZxid = 0x1f
cversion = 0
ephemeralOwner = 0x1000050296a0000

WATCHER::
cZxid = 0x0
ephemeralOwner = 0x0
ephemeralOwner = 0x2000050296a0001

WatchedEvent state:SyncConnected type:NodeDataChanged path:/a
[/m/es0000000003, /m/e]
[]

hello 127.0.0.1:4242
ephemeralOwner = 0x1000050296a0000
`

func TestNormalize(t *testing.T) {
	got := Normalize(sample, "127.0.0.1:4242")
	want := Transcript{
		Lines: []string{
			"Created /a",
			"cZxid = Z1",
			"ctime = <time>",
			"mZxid = Z2",
			"mtime = Thu Jan 01 00:00:00 UTC 1970",
			"pZxid = Z1",
			"cversion = 0",
			"ephemeralOwner = S1",
			// A watcher block cut in two by other output still comes out.
			"cZxid = 0x0",
			"ephemeralOwner = 0x0",
			"ephemeralOwner = S2",
			"[/m/es0000000003, /m/e]", // in the server's order
			"[]",
			"",
			"hello <addr>",
			"ephemeralOwner = S1",
		},
		Events: []string{
			"state:SyncConnected type:None path:null",
			"state:SyncConnected type:NodeDataChanged path:/a",
		},
	}
	if d := Diff(want, got); d != "" {
		t.Errorf("Normalize:\n%s\ngot:\n%s", d, got)
	}
}

func TestTranscriptRoundTrip(t *testing.T) {
	tr := Transcript{Lines: []string{"a", "", "b"}, Events: []string{"e1"}}
	back, err := ParseTranscript(tr.String())
	if err != nil {
		t.Fatal(err)
	}
	if Diff(tr, back) != "" || tr.String() != back.String() {
		t.Errorf("round trip: %q -> %q", tr.String(), back.String())
	}
	empty, err := ParseTranscript(Transcript{}.String())
	if err != nil || len(empty.Lines) != 0 || len(empty.Events) != 0 {
		t.Errorf("empty transcript: %+v, %v", empty, err)
	}
	if _, err := ParseTranscript("stray\n# output\n# events\n"); err == nil {
		t.Error("a line before any section was accepted")
	}
}

func TestDiff(t *testing.T) {
	want := Transcript{Lines: []string{"a", "b", "c"}}
	if d := Diff(want, want); d != "" {
		t.Errorf("Diff of equal transcripts: %q", d)
	}
	d := Diff(want, Transcript{Lines: []string{"a", "x", "c"}})
	if !strings.Contains(d, "output differs from line 2") || !strings.Contains(d, "x") {
		t.Errorf("Diff:\n%s", d)
	}
	d = Diff(want, Transcript{Lines: []string{"a", "b"}})
	if !strings.Contains(d, "(ends here)") {
		t.Errorf("Diff of a shorter transcript:\n%s", d)
	}
	d = Diff(Transcript{Events: []string{"e"}}, Transcript{})
	if !strings.Contains(d, "events differs") {
		t.Errorf("Diff of events:\n%s", d)
	}
}

// TestNormalizeCutLine covers the event thread writing in the middle of a
// command's line: ls prints its list in pieces, so a notification can land
// between "[a, b" and "]".
func TestNormalizeCutLine(t *testing.T) {
	const ev = "WatchedEvent state:SyncConnected type:NodeChildrenChanged path:/w\n"
	cases := []struct {
		name, raw string
		events    int
	}{
		{"event inside the line", "[a, b, c]\n\nWATCHER::\n[a, b\n" + ev + "]\nCreated /w/a/x\n", 1},
		{"whole block inside", "[a, b, c]\n[a, b\nWATCHER::\n\n" + ev + "]\nCreated /w/a/x\n", 1},
		{"rest between messages", "[a, b, c]\n[a, b\nWATCHER::\n]\n\n" + ev + "Created /w/a/x\n", 1},
		{"cut before the newline", "[a, b, c]\n[a, b]\nWATCHER::\n\n" + ev + "\nCreated /w/a/x\n", 1},
		{"cut twice", "[a, b, c]\n[a,\nWATCHER::\n\n" + ev + " b\nWATCHER::\n\n" + ev + "]\nCreated /w/a/x\n", 2},
		{"no cut", "[a, b, c]\n\nWATCHER::\n\n" + ev + "[a, b]\nCreated /w/a/x\n", 1},
	}
	want := []string{"[a, b, c]", "[a, b]", "Created /w/a/x"}
	for _, c := range cases {
		got := Normalize(c.raw, "")
		if d := Diff(Transcript{Lines: want, Events: got.Events}, got); d != "" {
			t.Errorf("%s:\n%s\ngot:\n%s", c.name, d, got)
		}
		if len(got.Events) != c.events {
			t.Errorf("%s: %d events, want %d", c.name, len(got.Events), c.events)
		}
	}
}

// TestDiffIgnoresALostFinalClose: zkCli's exit may beat the printing of
// its last session's Closed event; only that line may be missing.
func TestDiffIgnoresALostFinalClose(t *testing.T) {
	want := Transcript{Events: []string{"state:SyncConnected type:None path:null", sessionClosed}}
	got := Transcript{Events: []string{"state:SyncConnected type:None path:null"}}
	if d := Diff(want, got); d != "" {
		t.Errorf("a lost final Closed event is a difference:\n%s", d)
	}
	got.Events = []string{"state:Disconnected type:None path:null"}
	if d := Diff(want, got); d == "" {
		t.Error("another difference was hidden with the final Closed event")
	}
}
