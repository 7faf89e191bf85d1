package sasl

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// jdkRecorderProps are the -D flags testdata/jaas/record.sh runs the JDK
// with.
var jdkRecorderProps = props(map[string]string{"pw": "p", "home": "/home/zk", "x": "X", "empty": ""})

var jdkRecorderSections = []string{"Server", "Client", "Quoted Name", "Empty", "S", "T"}

func escapeLikeRecorder(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 32 || r == '\\' {
			fmt.Fprintf(&b, "\\x%02x", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestJAASMatchesJDK parses every testdata/jaas/*.conf and compares the
// result with what the JDK's ConfigFile made of it (the .golden files,
// written by JaasRecorder.java): the same files are refused, and
// accepted files give the same sections, entries, flags and option
// values. The error messages are gozk's own.
func TestJAASMatchesJDK(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "jaas", "*.conf"))
	if len(files) < 10 {
		t.Fatalf("only %d cases", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			golden, err := os.ReadFile(strings.TrimSuffix(f, ".conf") + ".golden")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSpace(string(golden))
			cfg, err := ParseJAASFileWith(f, jdkRecorderProps)
			if strings.HasPrefix(want, "ERROR ") {
				if err == nil {
					t.Fatalf("accepted; the JDK refused it: %s", want)
				}
				if !strings.HasPrefix(err.Error(), f+":") {
					t.Errorf("error does not name the file and line: %v", err)
				}
				t.Logf("gozk: %v\n JDK: %s", err, want)
				return
			}
			if err != nil {
				t.Fatalf("refused (%v); the JDK accepted it", err)
			}
			var lines []string
			for _, name := range jdkRecorderSections {
				s, ok := cfg.Section(name)
				if !ok {
					lines = append(lines, "ABSENT "+name)
					continue
				}
				lines = append(lines, "SECTION "+name)
				for _, e := range s.Entries {
					lines = append(lines, "ENTRY "+e.LoginModule+" "+e.Flag)
					keys := make([]string, 0, len(e.Options))
					for k := range e.Options {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					for _, k := range keys {
						lines = append(lines, "OPTION "+k+"="+escapeLikeRecorder(e.Options[k]))
					}
				}
			}
			if got := strings.Join(lines, "\n"); got != want {
				t.Errorf("got\n%s\nJDK\n%s", got, want)
			}
		})
	}
}
