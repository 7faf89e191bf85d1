package tlsconf

import (
	"bufio"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLooksLikeTLSMatchesNetty replays Netty's SslHandler.isEncrypted
// answers (testdata/netty-isencrypted.txt, from testdata/JavaOracle.java
// "detect" with Netty 4.1.48; "short" is Netty's exception for fewer
// than 5 bytes, plaintext for ZooKeeper).
func TestLooksLikeTLSMatchesNetty(t *testing.T) {
	// GMSSL's version 0x0101 counts as TLS since Netty 4.1.66, so in the
	// 4.1.73 of ZooKeeper 3.8.0, not in the 4.1.48 the file comes from.
	newer := map[string]bool{"1601010010": true, "1401010001": true}
	f, err := os.Open(filepath.Join("testdata", "netty-isencrypted.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		in, verdict, _ := strings.Cut(sc.Text(), " ")
		b, err := hex.DecodeString(in)
		if err != nil {
			t.Fatal(err)
		}
		want := verdict == "true"
		if v, ok := newer[in]; ok {
			want = v
		}
		if got := LooksLikeTLS(b); got != want {
			t.Errorf("LooksLikeTLS(%s) = %v, Netty says %s", in, got, verdict)
		}
		n++
	}
	if n < 40 {
		t.Fatalf("only %d cases read", n)
	}
}
