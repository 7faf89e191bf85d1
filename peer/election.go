package peer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/fle"
	"github.com/gozk/gozk/quorum/electionport"
)

// ElectionNetwork is what an election needs of the election port; an
// electionport.Manager is one.
type ElectionNetwork interface {
	Send(to int64, payload []byte)
	Messages() <-chan electionport.Message
	HaveDelivered() bool
	ConnectAll()
}

// ElectionTimers are the election's waits, as Java 3.8.0 names them.
type ElectionTimers struct {
	// FinalizeWait is how long a quorum for this server's proposal must
	// stand with no better vote arriving (Java's finalizeWait, 200 ms,
	// not configurable there).
	FinalizeWait time.Duration
	// MinNotificationInterval is the first wait for a notification, after
	// which the vote is sent again
	// (zookeeper.fastleader.minNotificationInterval, 200 ms); the wait
	// doubles each time it passes with nothing, up to
	// MaxNotificationInterval
	// (zookeeper.fastleader.maxNotificationInterval, 60 s).
	MinNotificationInterval time.Duration
	MaxNotificationInterval time.Duration
}

// DefaultElectionTimers are Java's defaults.
var DefaultElectionTimers = ElectionTimers{
	FinalizeWait:            200 * time.Millisecond,
	MinNotificationInterval: 200 * time.Millisecond,
	MaxNotificationInterval: 60 * time.Second,
}

// ElectionResult is the outcome of one election.
type ElectionResult struct {
	Vote  fle.Vote        // the elected leader, with its zxid and epochs
	State fle.ServerState // Leading, Following or Observing
	Took  time.Duration
}

// Elector runs this server's leader elections over the election port and,
// between them, answers the servers still looking with the outcome of the
// last one, as Java's FastLeaderElection and its receiver thread do. The
// protocol itself is fle.Election's; the Elector owns the timers and the
// traffic. Run must be running for Elect to return.
type Elector struct {
	net    ElectionNetwork
	timers ElectionTimers
	log    zerolog.Logger
	// newTimer makes Run's one timer (a time.Timer; tests replace it).
	newTimer func() electionTimer

	requests chan electRequest
	epochs   chan int64
}

type electRequest struct {
	self   fle.Self
	result chan ElectionResult
}

// NewElector returns an Elector over net; zero timers take Java's
// defaults.
func NewElector(net ElectionNetwork, timers ElectionTimers, log zerolog.Logger) *Elector {
	if timers.FinalizeWait <= 0 {
		timers.FinalizeWait = DefaultElectionTimers.FinalizeWait
	}
	if timers.MinNotificationInterval <= 0 {
		timers.MinNotificationInterval = DefaultElectionTimers.MinNotificationInterval
	}
	if timers.MaxNotificationInterval <= 0 {
		timers.MaxNotificationInterval = DefaultElectionTimers.MaxNotificationInterval
	}
	return &Elector{net: net, timers: timers, log: log, newTimer: newRealTimer,
		requests: make(chan electRequest), epochs: make(chan int64, 1)}
}

// electionTimer is the part of a time.Timer that Run uses.
type electionTimer interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

type realTimer struct{ t *time.Timer }

// newRealTimer returns a stopped timer.
func newRealTimer() electionTimer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return realTimer{t}
}

func (r realTimer) C() <-chan time.Time   { return r.t.C }
func (r realTimer) Reset(d time.Duration) { r.t.Reset(d) }
func (r realTimer) Stop()                 { r.t.Stop() }

// ErrStopped is returned by Elect when the Elector stops first.
var ErrStopped = errors.New("peer: election stopped")

// Elect runs an election for self (its id, verifier, last logged zxid,
// current epoch and configuration) and returns its outcome.
func (el *Elector) Elect(ctx context.Context, self fle.Self) (ElectionResult, error) {
	req := electRequest{self: self, result: make(chan ElectionResult, 1)}
	select {
	case el.requests <- req:
	case <-ctx.Done():
		return ElectionResult{}, ctx.Err()
	}
	select {
	case r, ok := <-req.result:
		if !ok {
			return ElectionResult{}, ErrStopped
		}
		return r, nil
	case <-ctx.Done():
		return ElectionResult{}, ctx.Err()
	}
}

// UpdatePeerEpoch makes the vote answered to looking servers carry the
// epoch this server synced to (Java's updateElectionVote).
func (el *Elector) UpdatePeerEpoch(epoch int64) {
	for {
		select {
		case el.epochs <- epoch:
			return
		default:
		}
		select {
		case <-el.epochs: // a newer epoch replaces one not yet taken
		default:
		}
	}
}

// Run handles the election traffic until ctx ends.
func (el *Elector) Run(ctx context.Context) {
	var (
		e          *fle.Election
		self       fle.Self
		clock      int64
		waiter     chan ElectionResult
		started    time.Time
		notTimeout time.Duration
		timer      = el.newTimer()
	)
	defer timer.Stop()
	defer func() {
		if waiter != nil {
			close(waiter)
		}
	}()
	finish := func() {
		vote, state, _ := e.Result()
		r := ElectionResult{Vote: vote, State: state, Took: time.Since(started)}
		// The member logs the outcome ("election finished"), with the
		// role it takes; here the decision only reaches the debug log.
		el.log.Debug().Str("state", stateName(state)).Int64("leader", vote.Leader).
			Str("zxid", fmt.Sprintf("0x%x", vote.Zxid)).Int64("peerEpoch", vote.PeerEpoch).
			Int64("electionEpoch", vote.ElectionEpoch).Dur("tookMs", r.Took).
			Msg("leader election decided")
		waiter <- r
		waiter = nil
		timer.Stop()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case req := <-el.requests:
			if waiter != nil {
				close(waiter) // a new election replaces one not decided
			}
			if e != nil {
				clock = e.Clock()
			}
			var out []fle.Outgoing
			self = req.self
			e, out = fle.NewElection(self, clock)
			waiter, started = req.result, time.Now()
			notTimeout = el.timers.MinNotificationInterval
			p := e.Proposal()
			el.log.Info().Int64("myid", req.self.ID).Int64("proposedLeader", p.Leader).
				Str("proposedZxid", fmt.Sprintf("0x%x", p.Zxid)).Int64("proposedEpoch", p.PeerEpoch).
				Int64("electionEpoch", p.ElectionEpoch).Msg("looking for a leader")
			el.send(out)
			timer.Reset(notTimeout)
		case epoch := <-el.epochs:
			if e != nil {
				e.UpdatePeerEpoch(epoch)
			}
		case msg := <-el.net.Messages():
			if e == nil {
				continue // no election yet: nothing to answer with
			}
			// An epoch given before this message came is answered with,
			// as Java's updateElectionVote is seen by every later
			// answer: select would pick between the two at random.
			select {
			case epoch := <-el.epochs:
				e.UpdatePeerEpoch(epoch)
			default:
			}
			n, err := fle.ParseNotification(msg.Payload)
			if err != nil {
				el.log.Warn().Err(err).Int64("server", msg.From).Msg("dropping a malformed election notification")
				continue
			}
			el.log.Debug().Int64("from", msg.From).Str("state", stateName(n.State)).Int64("leader", n.Leader).
				Str("zxid", fmt.Sprintf("0x%x", n.Zxid)).Int64("electionEpoch", n.ElectionEpoch).
				Int64("peerEpoch", n.PeerEpoch).Msg("notification")
			out, ev := e.Receive(msg.From, n)
			el.send(out)
			// Java's receiver thread answers a server that does not vote,
			// and drops a state it does not know, without waking the
			// election loop: neither restarts its waits. (A decided
			// observer and a looking voter answer each other back and
			// forth; were that to restart the finalize wait, the voter
			// would never decide.)
			if waiter == nil || !self.Verifier.IsVoter(msg.From) || !n.State.Known() {
				continue
			}
			switch ev {
			case fle.Decided:
				finish()
			case fle.StartFinalizeWait:
				timer.Reset(el.timers.FinalizeWait)
			default:
				timer.Reset(notTimeout)
			}
		case <-timer.C():
			if waiter == nil {
				continue
			}
			// The election knows whether its finalize wait was running.
			if e.FinalizeExpired() {
				finish()
				continue
			}
			// No notification for a whole interval: resend the vote if
			// some server took the last one, else reconnect to everyone;
			// then wait twice as long.
			if el.net.HaveDelivered() {
				el.send(e.Resend())
			} else {
				el.net.ConnectAll()
			}
			notTimeout = min(2*notTimeout, el.timers.MaxNotificationInterval)
			timer.Reset(notTimeout)
		}
	}
}

func (el *Elector) send(out []fle.Outgoing) {
	for _, o := range out {
		el.net.Send(o.To, o.N.AppendTo(nil))
	}
}

func stateName(s fle.ServerState) string {
	switch s {
	case fle.Leading:
		return "LEADING"
	case fle.Following:
		return "FOLLOWING"
	case fle.Observing:
		return "OBSERVING"
	}
	return "LOOKING"
}
