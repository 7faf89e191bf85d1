package fle

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWireMatchesJava holds the codec to testdata/java-wire.txt: the
// notification bytes Apache ZooKeeper 3.8's FastLeaderElection.buildMsg
// produced, and what its QuorumCnxManager.InitialMessage made of each
// initial message (make fle-oracle).
func TestWireMatchesJava(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "java-wire.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var notifications, initials int
	for n := 1; sc.Scan(); n++ {
		input, java, ok := strings.Cut(sc.Text(), " -> ")
		if !ok {
			t.Fatalf("java-wire.txt:%d: no answer", n)
		}
		fields := strings.Fields(input)
		switch fields[0] {
		case "notification":
			notifications++
			nums := make([]int64, 5)
			for i := range nums {
				if nums[i], err = strconv.ParseInt(fields[1+i], 10, 64); err != nil {
					t.Fatalf("java-wire.txt:%d: %v", n, err)
				}
			}
			var config []byte
			if fields[6] != "-" {
				config = unhex(t, fields[6])
			}
			note := Notification{State: ServerState(nums[0]), Leader: nums[1], Zxid: nums[2], ElectionEpoch: nums[3], PeerEpoch: nums[4], Config: config}
			want := unhex(t, java)
			if got := note.AppendTo(nil); !bytes.Equal(got, want) {
				t.Errorf("java-wire.txt:%d: encoded\n%x\nJava sent\n%x", n, got, want)
			}
			back, err := ParseNotification(want)
			if err != nil || back.Leader != note.Leader || back.PeerEpoch != note.PeerEpoch || !bytes.Equal(back.Config, config) {
				t.Errorf("java-wire.txt:%d: Java's bytes decoded to %+v, %v", n, back, err)
			}
		case "initial":
			initials++
			m, err := ReadInitialMessage(bytes.NewReader(unhex(t, fields[1])))
			got := "refused"
			if err == nil {
				got = "sid " + strconv.FormatInt(m.SID, 10)
				if m.Protocol < 0 {
					got += " addrs " + javaAddrs(t, m.Addrs)
				}
			}
			if got != java {
				t.Errorf("java-wire.txt:%d: read %q (%v), Java %q", n, got, err, java)
			}
		default:
			t.Fatalf("java-wire.txt:%d: unknown case %q", n, fields[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if notifications < 3 || initials < 10 {
		t.Fatalf("only %d notifications and %d initial messages in java-wire.txt", notifications, initials)
	}
}

// javaAddrs writes addresses as the oracle prints Java's: IP literals in
// Java's form (IPv6 expanded, no brackets), - for none.
func javaAddrs(t *testing.T, addrs []string) string {
	if len(addrs) == 0 {
		return "-"
	}
	out := make([]string, len(addrs))
	for i, a := range addrs {
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatalf("address %q: %v", a, err)
		}
		if p, err := strconv.Atoi(port); err == nil {
			port = strconv.Itoa(p) // Java prints the number: +5 is 5
		}
		if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
			host = javaIPv6(ip)
		}
		out[i] = host + ":" + port
	}
	return strings.Join(out, "|")
}

// javaIPv6 is Inet6Address.getHostAddress: eight groups in hex, none
// compressed.
func javaIPv6(ip net.IP) string {
	groups := make([]string, 8)
	for i := range groups {
		groups[i] = strconv.FormatUint(uint64(ip[2*i])<<8|uint64(ip[2*i+1]), 16)
	}
	return strings.Join(groups, ":")
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return b
}
