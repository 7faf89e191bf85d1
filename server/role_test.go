package server

import "testing"

// fakeClock drives the role clocks of s by hand.
func fakeClock(s *Server) *int64 {
	now := int64(1000) // not 0, which the clocks read as "not running"
	s.roles.clock = func() int64 { return now }
	return &now
}

func summaryOf(t *testing.T, sm *Summary) (count, sum int64) {
	t.Helper()
	snap := sm.Snapshot()
	return snap.Count, snap.Sum
}

// A follower's life as Java's QuorumPeer records it: looking (one
// looking_count, the election clock), following (election_time), syncing
// (follower_sync_time), serving (unavailable_time), and looking again.
func TestRoleChangesRecordJavasMetrics(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	now := fakeClock(s)
	m := s.Metrics()
	if s.Role() != RoleStandalone || !s.Serving() || s.PeerState() != "" {
		t.Fatalf("a new server: role %v, serving %v, peer state %q", s.Role(), s.Serving(), s.PeerState())
	}

	s.SetRole(RoleLooking)
	if s.Serving() || s.PeerState() != "looking" || m.LookingCount.Load() != 1 {
		t.Fatalf("looking: serving %v, peer state %q, looking_count %d", s.Serving(), s.PeerState(), m.LookingCount.Load())
	}
	*now += 40
	s.SetRole(RoleFollower)
	s.SetLeader(3, "127.0.0.1")
	if n, sum := summaryOf(t, m.ElectionTime); n != 1 || sum != 40 {
		t.Errorf("election_time: %d values summing to %d, want one of 40", n, sum)
	}
	s.SetPhase(PhaseDiscovery)
	*now += 5
	s.SetPhase(PhaseSynchronization)
	s.SetSyncMode("diff")
	if s.Serving() || s.PeerState() != "following - synchronization - diff" {
		t.Errorf("syncing: serving %v, peer state %q", s.Serving(), s.PeerState())
	}
	*now += 7
	s.SetSyncMode("")
	s.SetPhase(PhaseBroadcast)
	if !s.Serving() || s.PeerState() != "following - broadcast" {
		t.Errorf("broadcast: serving %v, peer state %q", s.Serving(), s.PeerState())
	}
	if n, sum := summaryOf(t, m.FollowerSyncTime); n != 1 || sum != 7 {
		t.Errorf("follower_sync_time: %d values summing to %d, want one of 7", n, sum)
	}
	if n, sum := summaryOf(t, m.UnavailableTime); n != 1 || sum != 52 {
		t.Errorf("unavailable_time: %d values summing to %d, want one of 52", n, sum)
	}
	for name, sm := range map[string]*Summary{"observer_sync_time": m.ObserverSyncTime, "leader_unavailable_time": m.LeaderUnavailableTime} {
		if n, _ := summaryOf(t, sm); n != 0 {
			t.Errorf("a follower recorded %s", name)
		}
	}
	if id, host := s.Leader(); id != 3 || host != "127.0.0.1" {
		t.Errorf("leader %d %q", id, host)
	}
	if s.LeaderUptime() != 0 {
		t.Errorf("a follower has a leader uptime of %d", s.LeaderUptime())
	}

	// Back to looking: the leader is forgotten, the phase is the election.
	s.SetRole(RoleLooking)
	if id, host := s.Leader(); id != -1 || host != "" || s.Phase() != PhaseElection || m.LookingCount.Load() != 2 {
		t.Errorf("looking again: leader %d %q, phase %v, looking_count %d", id, host, s.Phase(), m.LookingCount.Load())
	}
}

// A leader records leader_unavailable_time and starts its uptime when it
// serves; an observer records its sync time but no election time.
func TestLeaderAndObserverMetrics(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	now := fakeClock(s)
	m := s.Metrics()
	s.SetRole(RoleLooking)
	*now += 10
	s.SetRole(RoleLeader)
	s.SetPhase(PhaseSynchronization)
	*now += 10
	s.SetPhase(PhaseBroadcast)
	if n, sum := summaryOf(t, m.LeaderUnavailableTime); n != 1 || sum != 20 {
		t.Errorf("leader_unavailable_time: %d values summing to %d, want one of 20", n, sum)
	}
	if n, _ := summaryOf(t, m.FollowerSyncTime); n != 0 {
		t.Errorf("a leader recorded follower_sync_time")
	}
	*now += 30
	if got := s.LeaderUptime(); got != 30 {
		t.Errorf("leader uptime %d, want 30", got)
	}
	if got := s.PeerState(); got != "leading - broadcast" {
		t.Errorf("peer state %q", got)
	}

	s.SetRole(RoleLooking)
	s.SetRole(RoleObserver)
	s.SetPhase(PhaseSynchronization)
	*now += 4
	s.SetPhase(PhaseBroadcast)
	if n, sum := summaryOf(t, m.ObserverSyncTime); n != 1 || sum != 4 {
		t.Errorf("observer_sync_time: %d values summing to %d, want one of 4", n, sum)
	}
	if n, _ := summaryOf(t, m.ElectionTime); n != 1 {
		t.Errorf("election_time has %d values, want the leader's only", n)
	}
	if got := s.PeerState(); got != "observing - broadcast" {
		t.Errorf("peer state %q", got)
	}
}

// Java's BufferStats: -1 each until the first proposal, then last, min
// and max; srst's reset forgets them.
func TestProposalSizes(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	if last, lo, hi := s.ProposalSizes(); last != -1 || lo != -1 || hi != -1 {
		t.Errorf("before any proposal: %d/%d/%d", last, lo, hi)
	}
	for _, n := range []int{36, 201, 173} {
		s.RecordProposalSize(n)
	}
	if last, lo, hi := s.ProposalSizes(); last != 173 || lo != 36 || hi != 201 {
		t.Errorf("after 36, 201, 173: %d/%d/%d", last, lo, hi)
	}
	s.ResetProposalSizes()
	s.RecordProposalSize(50)
	if last, lo, hi := s.ProposalSizes(); last != 50 || lo != 50 || hi != 50 {
		t.Errorf("after a reset and 50: %d/%d/%d", last, lo, hi)
	}
}

// The ensemble's counters and summaries are in Counters and Summaries by
// their Java names (which mntr and Prometheus read), and srst resets them.
func TestEnsembleMetricsByJavaName(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	m := s.Metrics()
	m.LearnerProposalReceived.Add(3)
	m.LearnerCommitReceived.Add(2)
	m.CommitPropagationLatency.Add(0, 9)
	counters, summaries := m.Counters(), m.Summaries()
	if counters["learner_proposal_received_count"] != 3 || counters["learner_commit_received_count"] != 2 {
		t.Errorf("counters: %v", counters)
	}
	for _, name := range []string{"election_time", "follower_sync_time", "observer_sync_time", "unavailable_time",
		"leader_unavailable_time", "learner_request_processor_queue_size", "proposal_latency",
		"commit_propagation_latency", "proposal_ack_creation_latency", "quorum_ack_latency",
		"inflight_diff_count", "inflight_snap_count"} {
		if summaries[name] == nil {
			t.Errorf("no summary %s", name)
		}
	}
	for _, name := range []string{"looking_count", "proposal_count", "commit_count", "diff_count", "snap_count",
		"revalidate_count", "connection_revalidate_count", "requests_not_forwarded_to_commit_processor",
		"quit_leading_due_to_disloyal_voter"} {
		if _, ok := counters[name]; !ok {
			t.Errorf("no counter %s", name)
		}
	}
	if n, _ := summaryOf(t, summaries["commit_propagation_latency"]); n != 1 {
		t.Errorf("commit_propagation_latency has %d values", n)
	}
	m.LearnerHandlerQPTime.Add("2", 5)
	m.LearnerHandlerQPTime.Add("2", 7)
	m.LearnerHandlerQPTime.Add("1", 1)
	if keys := m.LearnerHandlerQPTime.Keys(); len(keys) != 2 || keys[0] != "1" || keys[1] != "2" {
		t.Errorf("learner_handler_qp_time_ms keys %v", keys)
	}
	if snap, ok := m.LearnerHandlerQPTime.Snapshot("2"); !ok || snap.Count != 2 || snap.Sum != 12 || snap.Min != 5 || snap.Max != 7 || len(snap.Buckets) != 2 {
		t.Errorf("learner_handler_qp_time_ms of 2: %+v", snap)
	}
	s.ResetStats()
	// Java's reset keeps a set's keys and zeroes their figures.
	if snap, ok := m.LearnerHandlerQPTime.Snapshot("2"); !ok || snap.Count != 0 {
		t.Errorf("srst left learner_handler_qp_time_ms of 2 at %+v (kept: %v)", snap, ok)
	}
	if got := m.Counters()["learner_proposal_received_count"]; got != 0 {
		t.Errorf("srst left learner_proposal_received_count at %d", got)
	}
	if n, _ := summaryOf(t, m.CommitPropagationLatency); n != 0 {
		t.Errorf("srst left commit_propagation_latency with %d values", n)
	}
}
