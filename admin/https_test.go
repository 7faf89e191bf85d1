package admin

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// httpsPair is a server TLS configuration for 127.0.0.1 and an HTTP
// client that trusts it.
func httpsPair(t *testing.T) (*tls.Config, *http.Client) {
	t.Helper()
	cert, pool := selfSigned(t)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	t.Cleanup(client.CloseIdleConnections)
	return &tls.Config{Certificates: []tls.Certificate{cert}}, client
}

func get(t *testing.T, c *http.Client, url string) (*http.Response, string, error) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

func TestAdminServerHTTPS(t *testing.T) {
	_, cmds := startLoaded(t)
	cfg, client := httpsPair(t)
	plain := &http.Client{Timeout: 10 * time.Second}
	for _, c := range []struct {
		name                string
		tls                 *tls.Config
		force               bool
		wantHTTPS, wantHTTP bool
	}{
		{"plain", nil, false, false, true},
		{"forceHttps", cfg, true, true, false},
		{"portUnification", cfg, false, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := cmds.StartAdminServer(AdminServerConfig{Address: "127.0.0.1", TLS: c.tls, ForceHTTPS: c.force})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			addr := h.Addr().String()
			resp, body, err := get(t, client, "https://"+addr+"/commands/ruok")
			gotHTTPS := err == nil && resp.StatusCode == 200 && strings.Contains(body, `"command" : "ruok"`)
			if gotHTTPS != c.wantHTTPS {
				t.Fatalf("HTTPS served: %v, want %v (%v, %q)", gotHTTPS, c.wantHTTPS, err, body)
			}
			if gotHTTPS && resp.Header.Get("Strict-Transport-Security") != "max-age=86400; includeSubDomains" {
				t.Fatalf("HTTPS response headers: %v", resp.Header)
			}
			resp, body, err = get(t, plain, "http://"+addr+"/commands/ruok")
			gotHTTP := err == nil && resp.StatusCode == 200 && strings.Contains(body, `"command" : "ruok"`)
			if gotHTTP != c.wantHTTP {
				t.Fatalf("HTTP served: %v, want %v (%v, %q)", gotHTTP, c.wantHTTP, err, body)
			}
			if gotHTTP && resp.Header.Get("Strict-Transport-Security") != "" {
				t.Fatal("a plain HTTP response carries Strict-Transport-Security")
			}
		})
	}
}
