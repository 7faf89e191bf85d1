package admin

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"

	"github.com/gozk/gozk/tlsconf"
)

// HTTPS on the AdminServer as Java 3.8.0's JettyAdminServer serves it:
// only when admin.forceHttps (HTTPS alone) or admin.portUnification
// (HTTPS and HTTP on the one port, told apart by the first byte: a TLS
// handshake record starts with 0x16, an HTTP request with a letter) is
// set; the certificate comes from the ssl.quorum.* key store, and no
// client certificate is asked for. Responses over HTTPS carry the
// Strict-Transport-Security header Jetty's SecureRequestCustomizer adds
// (one day, subdomains included).

// stsHeader is Jetty's header for a max age of one day with subdomains.
const stsHeader = "max-age=86400; includeSubDomains"

// tlsHandshakeRecord is the first byte of a TLS client's first record.
const tlsHandshakeRecord = 0x16

type connKey struct{}

// secureHandler adds the Strict-Transport-Security header to responses
// sent over TLS.
func secureHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure := r.TLS != nil
		if c, ok := r.Context().Value(connKey{}).(*sniffConn); ok && c.isTLS() {
			secure = true
		}
		if secure {
			w.Header().Set("Strict-Transport-Security", stsHeader)
		}
		next.ServeHTTP(w, r)
	})
}

// unifiedListener hands out connections that decide on their first read
// whether they speak TLS, so that Accept never waits on a client.
type unifiedListener struct {
	net.Listener
	cfg *tls.Config
}

func (l *unifiedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &sniffConn{Conn: c, cfg: l.cfg}, nil
}

// sniffConn is a connection of a unified port: its first read looks at
// the first byte and from then on reads and writes go through TLS or
// straight to the connection.
type sniffConn struct {
	net.Conn
	cfg *tls.Config

	once   sync.Once
	mu     sync.Mutex
	via    net.Conn // the TLS connection or the plain one, once known
	secure bool
}

func (c *sniffConn) detect() {
	var first [1]byte
	n, err := c.Conn.Read(first[:])
	if err != nil || n == 0 {
		c.set(&failedConn{Conn: c.Conn, err: err}, false)
		return
	}
	pc := tlsconf.WithHead(c.Conn, first[:n])
	if first[0] == tlsHandshakeRecord {
		c.set(tls.Server(pc, c.cfg), true)
		return
	}
	c.set(pc, false)
}

func (c *sniffConn) set(via net.Conn, secure bool) {
	c.mu.Lock()
	c.via, c.secure = via, secure
	c.mu.Unlock()
}

func (c *sniffConn) isTLS() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.secure
}

func (c *sniffConn) Read(b []byte) (int, error) {
	c.once.Do(c.detect)
	return c.via.Read(b)
}

func (c *sniffConn) Write(b []byte) (int, error) {
	c.once.Do(c.detect)
	return c.via.Write(b)
}

// failedConn is a connection whose first read failed: it fails again.
type failedConn struct {
	net.Conn
	err error
}

func (c *failedConn) Read([]byte) (int, error) {
	if c.err == nil {
		return 0, net.ErrClosed
	}
	return 0, c.err
}

// httpsListener wraps l as the AdminServer's settings say: nil cfg is
// plain HTTP.
func httpsListener(l net.Listener, cfg *tls.Config, force bool) net.Listener {
	switch {
	case cfg == nil:
		return l
	case force:
		return tls.NewListener(l, cfg)
	}
	return &unifiedListener{Listener: l, cfg: cfg}
}

func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}
