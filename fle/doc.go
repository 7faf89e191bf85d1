// Package fle is Apache ZooKeeper's fast leader election, as spoken on the
// election port by ZooKeeper 3.8 servers, so that gozk and Java servers
// elect their leader together in one ensemble. It does no I/O and reads
// no clock: the caller owns the connections and the timers.
//
// The wire format (wire.go):
//
//   - the initial message a server sends on each election connection it
//     opens (InitialMessage: protocol version, its server id, its
//     election addresses), and the rule that only the connection opened
//     by the server with the larger id is kept (KeepsConnection);
//   - the length-prefixed frames that follow on the connection
//     (AppendFrame, ReadFrame), bounded as Java bounds them;
//   - the notification each frame carries (Notification): a server's
//     state, the vote it casts (leader, zxid, peer epoch), its election
//     round and, from version 2 on, its quorum configuration. Decoding
//     accepts every size Java accepts, including the 28- and 40-byte
//     notifications of servers older than 3.4 and 3.5.
//
// Every decoder is bounded and returns an error naming what is wrong;
// none panics on any input (fuzzed). fle/testdata/java-wire.txt holds the
// bytes Java's own classes send and what they make of the initial
// messages (make fle-oracle), and the tests hold this package to them.
//
// The election (election.go): Election is one run of Java's
// FastLeaderElection.lookForLeader together with the replies its receiver
// thread sends, as a pure state machine. Votes compare as Java's Vote
// does (Vote.Same), proposals are ordered by Java's totalOrderPredicate
// (Beats: peer epoch, then zxid, then server id; a leader of weight 0
// never wins), and a quorum is whatever the quorum.Verifier says
// (majority, or hierarchical groups and weights). The caller's loop:
//
//	e, out := fle.NewElection(self, lastClock) // send out; start the notification timer
//	for {
//		select {
//		case m := <-notifications: // a frame decoded into (from, Notification)
//			out, ev := e.Receive(m.from, m.n) // send out
//			switch ev {
//			case fle.StartFinalizeWait: // (re)start the finalize timer (Java: 200 ms)
//			case fle.Decided: // e.Result(): the leader, and Leading, Following or Observing
//			}
//		case <-finalizeTimer.C: // no Receive since StartFinalizeWait
//			if e.FinalizeExpired() { /* decided: e.Result() */ }
//		case <-notificationTimer.C: // nothing received for a while
//			out := e.Resend() // send out again; Java doubles the interval, up to a minute
//		}
//	}
//
// Notifications addressed to this server itself (Outgoing.To equal to
// Self.ID) must be delivered back to Receive, as Java's manager does.
// After the decision, Receive keeps answering: a server still looking is
// told the outcome, and servers that do not vote always get this
// server's current vote back. Election is not safe for concurrent use.
//
// Known differences from Java: none on what is modelled. Not modelled yet:
// reconfiguration (a notification carrying a newer quorum configuration)
// and the QuorumOracleMaj oracle for two-server ensembles. The network
// layer (Java's connection manager with its send queues and reconnects)
// is package quorum/electionport; package peer joins the two and owns the
// timers.
// election_test.go runs ensembles of these machines (1, 3 and 5 voters,
// then a late voter and an observer) in seeded random delivery orders and
// checks that every server elects the same leader, the best vote.
package fle
