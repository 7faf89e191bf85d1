package chaos

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gozk/gozk/fle"
)

// echoServer answers every line with the same line.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go io.Copy(c, c)
		}
	}()
	return ln.Addr().String()
}

func roundTrip(conn net.Conn, msg string, wait time.Duration) (string, error) {
	conn.SetDeadline(time.Now().Add(wait))
	if _, err := conn.Write([]byte(msg)); err != nil {
		return "", err
	}
	buf := make([]byte, len(msg))
	_, err := io.ReadFull(conn, buf)
	return string(buf), err
}

func TestLinkForwardsCutsAndHeals(t *testing.T) {
	l, err := newLink(1, 2, false, echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	conn, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got, err := roundTrip(conn, "hello\n", 5*time.Second); err != nil || got != "hello\n" {
		t.Fatalf("through the link: %q, %v", got, err)
	}

	l.Cut()
	// A partition: the connection stays open and hears nothing.
	if got, err := roundTrip(conn, "lost\n", 300*time.Millisecond); err == nil {
		t.Fatalf("a cut link delivered %q", got)
	} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("a cut link ended the connection (%v); it must only go silent", err)
	}
	// A new connection is accepted and hears nothing either.
	fresh, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if got, err := roundTrip(fresh, "x\n", 300*time.Millisecond); err == nil {
		t.Fatalf("a connection opened across the cut got %q", got)
	}

	l.Heal()
	// Both connections lost bytes: healing closes them.
	for _, c := range []net.Conn{conn, fresh} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := bufio.NewReader(c).ReadByte(); err == nil {
			t.Fatal("a connection that lost bytes survived the heal")
		} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("a connection that lost bytes was not closed at the heal")
		}
	}
	again, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got, err := roundTrip(again, "back\n", 5*time.Second); err != nil || got != "back\n" {
		t.Fatalf("after healing: %q, %v", got, err)
	}
}

// TestElectionLinkRewritesTheDialBackAddress: the receiver of an initial
// message dials back the address in it; the link puts its opposite
// link's address there so that the dial-back crosses a link too.
func TestElectionLinkRewritesTheDialBackAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan fle.InitialMessage, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		m, err := fle.ReadInitialMessage(c)
		if err == nil {
			got <- m
			io.Copy(c, c)
		}
	}()
	l, err := newLink(1, 2, true, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.backAddr = "127.0.0.1:4242"
	conn, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hello := fle.InitialMessage{Protocol: fle.ProtocolV2, SID: 1, Addrs: []string{"127.0.0.1:3888"}}
	if _, err := conn.Write(hello.AppendTo(nil)); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m.SID != 1 || len(m.Addrs) != 1 || m.Addrs[0] != "127.0.0.1:4242" {
			t.Fatalf("the target read %+v, want server 1 at the opposite link 127.0.0.1:4242", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no initial message reached the target")
	}
	// What follows the initial message passes unchanged.
	if got, err := roundTrip(conn, "notification", 5*time.Second); err != nil || got != "notification" {
		t.Fatalf("after the initial message: %q, %v", got, err)
	}
}
