package zkcli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryCommandCovered checks that the scripts in testdata use every
// command that zkCli 3.8.0 lists in its usage (recorded in basic.golden,
// from Java) and every option each command takes.
func TestEveryCommandCovered(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "basic.golden"))
	if err != nil {
		t.Fatal(err)
	}
	usage := map[string][]string{} // command -> options
	option := regexp.MustCompile(`(?:^|[\[| ])(-[A-Za-z]+)`)
	for _, l := range strings.Split(string(golden), "\n") {
		if !strings.HasPrefix(l, "\t") {
			continue
		}
		fields := strings.Fields(l)
		if len(fields) == 0 {
			continue
		}
		var opts []string
		for _, m := range option.FindAllStringSubmatch(strings.TrimPrefix(l, "\t"+fields[0]), -1) {
			opts = append(opts, m[1])
		}
		usage[fields[0]] = opts
	}
	if len(usage) < 28 {
		t.Fatalf("found only %d commands in basic.golden's usage text", len(usage))
	}

	used := map[string]map[string]bool{}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.zk"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			fields := strings.Fields(l)
			if len(fields) == 0 || strings.HasPrefix(l, "#") {
				continue
			}
			if used[fields[0]] == nil {
				used[fields[0]] = map[string]bool{}
			}
			for _, f := range fields[1:] {
				if strings.HasPrefix(f, "-") {
					used[fields[0]][f] = true
				}
			}
		}
	}
	for cmd, opts := range usage {
		if used[cmd] == nil {
			t.Errorf("no script runs %s", cmd)
			continue
		}
		for _, o := range opts {
			if !used[cmd][o] {
				t.Errorf("no script runs %s %s", cmd, o)
			}
		}
	}
}
