package suite

import (
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Golden returns the golden file at path, recorded from the Java run, for
// a transcript of backend to be compared with. With update on the java
// backend it records text there instead and returns compare false.
func Golden(t *testing.T, path, backend string, update bool, text string) (want string, compare bool) {
	t.Helper()
	if update && backend == "java" {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the java subtests with -update to create it)", err)
	}
	return string(b), true
}

// ZxidNames names the zxids that lines show by rank: the smallest is
// "Z1", the next "Z2", and so on. Two servers given the same requests
// hand out different zxids (a new server's first session, an epoch), but
// in the same order, so transcripts that show zxids by rank compare. The
// zxid is the hexadecimal second submatch of zxid; zero, which marks a
// node no txn made, is left out.
func ZxidNames(lines []string, zxid *regexp.Regexp) map[uint64]string {
	var zxids []uint64
	seen := map[uint64]bool{}
	for _, l := range lines {
		if m := zxid.FindStringSubmatch(l); m != nil {
			z, _ := strconv.ParseUint(m[2], 16, 64)
			if z != 0 && !seen[z] {
				seen[z] = true
				zxids = append(zxids, z)
			}
		}
	}
	sort.Slice(zxids, func(i, j int) bool { return zxids[i] < zxids[j] })
	names := map[uint64]string{}
	for i, z := range zxids {
		names[z] = "Z" + strconv.Itoa(i+1)
	}
	return names
}

// SessionNames names session ids by first appearance: "S1", "S2", ...
// Session ids hold the server's id and start time, so they differ between
// any two runs.
type SessionNames map[string]string

// Name returns the name of the session whose id is hex (leading zeros do
// not count); the id 0, no session, stays "0".
func (s SessionNames) Name(hex string) string {
	hex = strings.TrimLeft(hex, "0")
	if hex == "" {
		return "0"
	}
	n, ok := s[hex]
	if !ok {
		n = "S" + strconv.Itoa(len(s)+1)
		s[hex] = n
	}
	return n
}
