//go:build interop

package ensemble

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"sync"
	"time"

	"github.com/gozk/gozk/zab"
)

// quorumProxy stands between one learner and its leader's quorum port.
// It passes every byte through, reading the learner's side packet by
// packet, until told to hold back the learner's ACKs: from then on it
// forwards the learner's other packets (its PINGs keep it in the
// leader's quorum) but drops each ACK and records its zxid. A proposal
// the learner has logged and acknowledged (it ACKs after its fsync)
// then reaches no quorum, deterministically.
type quorumProxy struct {
	listener net.Listener
	port     int
	target   string

	mu      sync.Mutex
	holding bool
	lastAck int64 // the newest ACK forwarded
	held    []int64
	heldNew chan struct{} // closed and replaced at each held ACK
	conns   []net.Conn
}

func startQuorumProxy(target string) (*quorumProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &quorumProxy{listener: l, port: l.Addr().(*net.TCPAddr).Port, target: target, heldNew: make(chan struct{})}
	go p.accept()
	return p, nil
}

func (p *quorumProxy) accept() {
	for {
		learner, err := p.listener.Accept()
		if err != nil {
			return
		}
		leader, err := dialPatiently(p.target)
		if err != nil {
			learner.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, learner, leader)
		p.mu.Unlock()
		go func() {
			io.Copy(learner, leader)
			learner.Close()
			leader.Close()
		}()
		go func() {
			p.forwardLearner(learner, leader)
			learner.Close()
			leader.Close()
		}()
	}
}

// dialPatiently dials the leader's quorum port for a few seconds: a
// learner that connects the moment it has elected can be quicker than
// its leader's listener, and would see the proxy close on it (EOF, a
// lost leader) where it would have seen a refused dial and tried again.
func dialPatiently(addr string) (net.Conn, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// forwardLearner copies the learner's packets to the leader, each as
// the very bytes it read, dropping ACKs while holding.
func (p *quorumProxy) forwardLearner(learner, leader net.Conn) {
	var raw bytes.Buffer
	r := io.TeeReader(bufio.NewReaderSize(learner, 64<<10), &raw)
	for {
		raw.Reset()
		pkt, err := zab.ReadPacket(r, 16<<20)
		if err != nil {
			return
		}
		if zab.PacketType(pkt.Type) == zab.Ack && p.hold(pkt.Zxid) {
			continue
		}
		if zab.PacketType(pkt.Type) == zab.Ack {
			p.forwarded(pkt.Zxid)
		}
		if _, err := leader.Write(raw.Bytes()); err != nil {
			return
		}
	}
}

// hold records an ACK and reports whether it is to be dropped.
func (p *quorumProxy) hold(zxid int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.holding {
		return false
	}
	p.held = append(p.held, zxid)
	close(p.heldNew)
	p.heldNew = make(chan struct{})
	return true
}

func (p *quorumProxy) forwarded(zxid int64) {
	p.mu.Lock()
	p.lastAck = max(p.lastAck, zxid)
	p.mu.Unlock()
}

// forwardedAck is the zxid of the newest ACK the learner sent through.
func (p *quorumProxy) forwardedAck() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastAck
}

// holdAcks starts dropping the learner's ACKs.
func (p *quorumProxy) holdAcks() {
	p.mu.Lock()
	p.holding = true
	p.mu.Unlock()
}

// heldAcks returns the zxids of the ACKs dropped so far and a channel
// closed at the next one.
func (p *quorumProxy) heldAcks() ([]int64, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int64(nil), p.held...), p.heldNew
}

func (p *quorumProxy) close() {
	p.listener.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}
