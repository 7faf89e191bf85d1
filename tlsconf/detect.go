package tlsconf

import (
	"encoding/binary"
	"net"
)

// LooksLikeTLS reports whether the first bytes a client sent start a
// TLS (or SSLv2-framed) record, deciding as Netty's
// SslHandler.isEncrypted does in ZooKeeper 3.8.0 (Netty 4.1.73), the
// test both of Java's port unification paths use. It needs 5 bytes:
// with fewer it returns false, as Java's UnifiedServerSocket treats a
// short first read as plaintext.
//
// A record counts as TLS when its content type is 20-24, its major
// version is 3 (or the version is GMSSL's 0x0101) and its length is
// not zero. Otherwise the bytes are read as an SSLv2 header; a major
// version of 2 or 3 at the place SSLv2 puts it counts as TLS, and so
// does a too-short SSLv2 length (Netty's "not enough data", which is
// not "not encrypted").
func LooksLikeTLS(first []byte) bool {
	if len(first) < 5 {
		return false
	}
	switch first[0] {
	case 20, 21, 22, 23, 24:
		if first[1] == 3 || binary.BigEndian.Uint16(first[1:3]) == 0x0101 {
			if binary.BigEndian.Uint16(first[3:5]) > 0 {
				return true
			}
		}
	}
	headerLen := 3
	if first[0]&0x80 != 0 {
		headerLen = 2
	}
	major := first[headerLen+1]
	return major == 2 || major == 3
}

// WithHead returns conn with head, the bytes already read off it to tell
// TLS from plain, given back by its first reads.
func WithHead(conn net.Conn, head []byte) net.Conn {
	return &headConn{Conn: conn, head: head}
}

type headConn struct {
	net.Conn
	head []byte
}

func (c *headConn) Read(b []byte) (int, error) {
	if len(c.head) > 0 {
		n := copy(b, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}
