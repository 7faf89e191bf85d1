package cclient

import (
	"strings"
	"testing"
)

func TestNormalizeCli(t *testing.T) {
	run := CliRun{
		Steps: []Step{
			{Command: "(connect)", Lines: []string{
				"Watcher SESSION_EVENT state = CONNECTED_STATE",
				"Got a new session id: 0x1000abc0000",
			}},
			{Command: "ls /", Lines: []string{
				"time = 3 msec",
				"/: rc = 0",
				"\tzookeeper",
				"\ta",
				"time = 4 msec",
				"\tctime = Sat Nov 21 03:35:47 2026",
				"\tczxid=1f",
				"\tmtime=Thu Jan  1 00:00:00 1970",
				"\tmzxid=a",
				"\tephemeralOwner = 1000abc0000",
			}},
			{Command: "od", Lines: []string{
				"x", "y", "x", "y", "x", "y", "z", "z", "z",
				"2026-11-21 03:35:46,709:3816(0x7fb4bd4826c0):ZOO_ERROR@auth_completion_func@2071: failed on 127.0.0.1:2181.",
				"2026-11-21 03:35:46,709:3816(0x7fb4bd4826c0):ZOO_WARN@zookeeper_interest@2200: Exceeded deadline by 12ms",
			}},
		},
		Stdout: "session Id = 1000abc0000\n",
	}
	want := `> (connect)
Watcher SESSION_EVENT state = CONNECTED_STATE
Got a new session id: 0xS1
> ls /
time = <ms> msec
/: rc = 0
	zookeeper
	a
time = <ms> msec
	ctime = <time>
	czxid=Z2
	mtime=Thu Jan  1 00:00:00 1970
	mzxid=Z1
	ephemeralOwner = S1
> od
x
y
(the 2 lines above, 3 times in all)
z
(the line above, 3 times in all)
ZOO_ERROR@auth_completion_func: failed on <addr>.
# stdout
session Id = S1
# exit 0
`
	got := NormalizeCli(run, "127.0.0.1:2181")
	if got != want {
		t.Errorf("NormalizeCli:\n%s", DiffText(want, got))
	}
}

func TestParseChecks(t *testing.T) {
	lines, err := ParseChecks("connect: state=CONNECTED x=1\nget: rc=0 data='a: b'\n")
	if err != nil || len(lines) != 2 || lines[1].Name != "get" || lines[1].Result != "rc=0 data='a: b'" {
		t.Errorf("ParseChecks = %+v, %v", lines, err)
	}
	if _, err := ParseChecks("no colon here\n"); err == nil || !strings.Contains(err.Error(), "not a check line") {
		t.Errorf("ParseChecks accepted a bad line: %v", err)
	}
}
