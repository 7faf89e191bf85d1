package peer

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/fle"
	"github.com/gozk/gozk/quorum"
	"github.com/gozk/gozk/quorum/electionport"
)

// silentNetwork is an election port that nothing ever arrives on; it
// records what the election does with it.
type silentNetwork struct {
	delivered bool // what HaveDelivered reports
	events    chan string
}

func (n *silentNetwork) Send(to int64, _ []byte)               { n.events <- fmt.Sprintf("send %d", to) }
func (n *silentNetwork) Messages() <-chan electionport.Message { return nil }
func (n *silentNetwork) HaveDelivered() bool                   { return n.delivered }
func (n *silentNetwork) ConnectAll()                           { n.events <- "connect all" }

func (n *silentNetwork) take() string {
	var out []string
	for {
		select {
		case e := <-n.events:
			out = append(out, e)
		default:
			return strings.Join(out, ", ")
		}
	}
}

// manualTimer fires when the test says so and reports each Reset.
type manualTimer struct {
	c      chan time.Time
	resets chan time.Duration
}

func (m *manualTimer) C() <-chan time.Time   { return m.c }
func (m *manualTimer) Reset(d time.Duration) { m.resets <- d }
func (m *manualTimer) Stop()                 {}

// TestElectionWaitDoublesUpToTheMaximum: each time the notification
// interval passes with nothing received, the Elector sends its vote to
// every voter again (or, when no server took a message yet, reconnects
// to all of them), then waits twice as long, up to
// maxNotificationInterval: with Java's defaults 200 ms, 400 ms, ... 51.2
// s, then 60 s for good.
func TestElectionWaitDoublesUpToTheMaximum(t *testing.T) {
	en := &conf.Ensemble{Servers: map[int64]*conf.ServerSpec{}}
	for id := int64(1); id <= 3; id++ {
		en.Servers[id] = &conf.ServerSpec{ID: id, Type: conf.Participant}
	}
	self := fle.Self{ID: 1, Verifier: quorum.New(en), Current: fle.Vote{Leader: 1}}
	var want []time.Duration
	for d := 200 * time.Millisecond; d < time.Minute; d *= 2 {
		want = append(want, d)
	}
	want = append(want, time.Minute, time.Minute)
	for _, delivered := range []bool{false, true} {
		t.Run(fmt.Sprintf("delivered=%v", delivered), func(t *testing.T) {
			net := &silentNetwork{delivered: delivered, events: make(chan string, 100)}
			el := NewElector(net, ElectionTimers{}, zerolog.Nop())
			timer := &manualTimer{c: make(chan time.Time), resets: make(chan time.Duration, 100)}
			el.newTimer = func() electionTimer { return timer }
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go el.Run(ctx)
			go el.Elect(ctx, self)
			wantAfterFire := "connect all"
			if delivered {
				wantAfterFire = "send 1, send 2, send 3"
			}
			for i, w := range want {
				select {
				case d := <-timer.resets:
					if d != w {
						t.Fatalf("wait %d is %v, want %v (all: %v)", i+1, d, w, want)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("wait %d never set", i+1)
				}
				got := net.take()
				if i == 0 {
					if got != "send 1, send 2, send 3" {
						t.Fatalf("the election began with %q, want its vote to every voter", got)
					}
				} else if got != wantAfterFire {
					t.Fatalf("after wait %d ran out: %q, want %q", i, got, wantAfterFire)
				}
				if i < len(want)-1 {
					timer.c <- time.Now()
				}
			}
		})
	}
}
