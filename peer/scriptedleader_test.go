package peer

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/zab"
)

// scriptedLeader plays a Java leader's side of one learner connection,
// packet by packet against a real learner (as Java's own Zab1_0Test
// does); the learner, store, role and fault tests share it.
type scriptedLeader struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
}

func (l *scriptedLeader) send(t zab.PacketType, zxid int64, data []byte) {
	l.t.Helper()
	p := proto.QuorumPacket{Type: int32(t), Zxid: zxid, Data: data}
	if _, err := l.conn.Write(zab.AppendPacket(nil, &p)); err != nil {
		l.t.Errorf("leader writing %s: %v", t, err)
	}
}

func (l *scriptedLeader) expect(t zab.PacketType, zxid int64) proto.QuorumPacket {
	l.t.Helper()
	l.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	p, err := zab.ReadPacket(l.br, jute.DefaultMaxBuffer)
	if err != nil {
		l.t.Errorf("leader waiting for %s 0x%x: %v", t, zxid, err)
		return p
	}
	if zab.PacketType(p.Type) != t || p.Zxid != zxid {
		l.t.Errorf("leader got %s 0x%x, want %s 0x%x", zab.PacketType(p.Type), p.Zxid, t, zxid)
	}
	return p
}

// leaderOnLoopback accepts one learner and runs script on it.
func leaderOnLoopback(t *testing.T, script func(l *scriptedLeader)) (string, <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer ln.Close()
		conn, err := ln.Accept()
		if err != nil {
			t.Errorf("accept: %v", err)
			return
		}
		defer conn.Close()
		script(&scriptedLeader{t: t, conn: conn, br: bufio.NewReader(conn)})
	}()
	return ln.Addr().String(), done
}

// expectGone reads until the learner's connection ends: the learner
// must send nothing more.
func (l *scriptedLeader) expectGone() {
	l.t.Helper()
	for {
		p := l.read()
		if p == nil {
			return
		}
		l.t.Errorf("leader got %s 0x%x from a learner that should have died", zab.PacketType(p.Type), p.Zxid)
	}
}

// handshake is a Java leader's discovery with a learner that has
// accepted epoch accepted and logged up to lastZxid, announcing epoch.
func (l *scriptedLeader) handshake(accepted, epoch, lastZxid int64) {
	l.t.Helper()
	l.expect(zab.FollowerInfo, accepted<<32)
	l.send(zab.LeaderInfo, epoch<<32, zab.IntBody(zab.ProtocolVersion))
	l.expect(zab.AckEpoch, lastZxid)
}

// read returns the next packet from the learner, nil once it is gone.
func (l *scriptedLeader) read() *proto.QuorumPacket {
	l.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	p, err := zab.ReadPacket(l.br, jute.DefaultMaxBuffer)
	if err != nil {
		return nil
	}
	return &p
}

// diffWithNothing is a Java leader's sync of a learner that is up to
// date at lastZxid: an empty DIFF, NEWLEADER for epoch, UPTODATE, and the
// learner's ACK of each.
func (l *scriptedLeader) diffWithNothing(lastZxid, epoch int64) {
	l.t.Helper()
	l.send(zab.Diff, lastZxid, nil)
	l.send(zab.NewLeader, epoch<<32, nil)
	l.expect(zab.Ack, epoch<<32)
	l.send(zab.UpToDate, -1, nil)
	l.expect(zab.Ack, epoch<<32)
}
