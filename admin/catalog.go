package admin

import "github.com/gozk/gozk/server"

// Java 3.8.0's metrics as its mntr lists them with the default metrics
// provider, in that order (the iteration order of its hash maps, recorded
// from 3.8.0 as standalone server, follower, observer and leader): first
// the server's gauges, then every counter, every basic summary (avg, min,
// max, cnt, sum) and every advanced summary (those five plus p50, p95,
// p99, p999). Per-namespace summary sets and quota gauge sets follow them
// in Java; gozk has none. The same names, without zk_, are the Prometheus
// metric names.
//
// Java registers every counter and summary always, whatever the role, but
// some gauges only while the server has a role: quorum_size for every
// ensemble member (QuorumZooKeeperServer), the learner figures and
// proposal sizes for a leader (LeaderZooKeeperServer). Their table has
// room for all of them in every role (64 buckets from 24 gauges on), so
// the one order below holds for each role with the others' gauges left
// out.

type metricKind int

const (
	kindGauge metricKind = iota
	kindCounter
	kindBasicSummary
	kindAdvancedSummary
)

type catalogEntry struct {
	name string
	kind metricKind
}

// gaugeRoles are the gauges that only some roles have; every other
// metric exists in every role.
var gaugeRoles = map[string]roleSet{
	"quorum_size":                 quorumMember,
	"learners":                    leaderOnly,
	"synced_followers":            leaderOnly,
	"synced_non_voting_followers": leaderOnly,
	"synced_observers":            rolesOf(server.RoleLeader, server.RoleFollower),
	"pending_syncs":               leaderOnly,
	"leader_uptime":               leaderOnly,
	"last_proposal_size":          leaderOnly,
	"min_proposal_size":           leaderOnly,
	"max_proposal_size":           leaderOnly,
}

// hasMetric reports whether a server in role r has the metric name.
func hasMetric(name string, r server.Role) bool {
	set, ok := gaugeRoles[name]
	return !ok || set&(1<<r) != 0
}

// roleSet is a set of server.Role values.
type roleSet uint8

func rolesOf(rs ...server.Role) roleSet {
	var set roleSet
	for _, r := range rs {
		set |= 1 << r
	}
	return set
}

var (
	quorumMember = rolesOf(server.RoleFollower, server.RoleObserver, server.RoleLeader)
	leaderOnly   = rolesOf(server.RoleLeader)
)

var catalog = []catalogEntry{
	{"ephemerals_count", kindGauge},
	{"num_alive_connections", kindGauge},
	{"avg_latency", kindGauge},
	{"min_proposal_size", kindGauge},
	{"outstanding_requests", kindGauge},
	{"znode_count", kindGauge},
	{"global_sessions", kindGauge},
	{"non_mtls_remote_conn_count", kindGauge},
	{"last_client_response_size", kindGauge},
	{"packets_sent", kindGauge},
	{"packets_received", kindGauge},
	{"max_proposal_size", kindGauge},
	{"max_client_response_size", kindGauge},
	{"synced_followers", kindGauge},
	{"connection_drop_probability", kindGauge},
	{"watch_count", kindGauge},
	{"synced_non_voting_followers", kindGauge},
	{"synced_observers", kindGauge},
	{"auth_failed_count", kindGauge},
	{"min_latency", kindGauge},
	{"max_file_descriptor_count", kindGauge},
	{"approximate_data_size", kindGauge},
	{"open_file_descriptor_count", kindGauge},
	{"last_proposal_size", kindGauge},
	{"pending_syncs", kindGauge},
	{"leader_uptime", kindGauge},
	{"local_sessions", kindGauge},
	{"uptime", kindGauge},
	{"max_latency", kindGauge},
	{"outstanding_tls_handshake", kindGauge},
	{"learners", kindGauge},
	{"min_client_response_size", kindGauge},
	{"non_mtls_local_conn_count", kindGauge},
	{"quorum_size", kindGauge},
	{"proposal_count", kindCounter},
	{"watch_bytes", kindCounter},
	{"outstanding_changes_removed", kindCounter},
	{"throttled_ops", kindCounter},
	{"stale_requests_dropped", kindCounter},
	{"large_requests_rejected", kindCounter},
	{"insecure_admin_count", kindCounter},
	{"connection_rejected", kindCounter},
	{"cnxn_closed_without_zk_server_running", kindCounter},
	{"sessionless_connections_expired", kindCounter},
	{"looking_count", kindCounter},
	{"dead_watchers_queued", kindCounter},
	{"stale_requests", kindCounter},
	{"connection_drop_count", kindCounter},
	{"learner_proposal_received_count", kindCounter},
	{"digest_mismatches_count", kindCounter},
	{"dead_watchers_cleared", kindCounter},
	{"response_packet_cache_hits", kindCounter},
	{"bytes_received_count", kindCounter},
	{"add_dead_watcher_stall_time", kindCounter},
	{"request_throttle_wait_count", kindCounter},
	{"requests_not_forwarded_to_commit_processor", kindCounter},
	{"response_packet_cache_misses", kindCounter},
	{"ensemble_auth_success", kindCounter},
	{"prep_processor_request_queued", kindCounter},
	{"learner_commit_received_count", kindCounter},
	{"stale_replies", kindCounter},
	{"connection_request_count", kindCounter},
	{"response_bytes", kindCounter},
	{"ensemble_auth_fail", kindCounter},
	{"diff_count", kindCounter},
	{"response_packet_get_children_cache_misses", kindCounter},
	{"connection_revalidate_count", kindCounter},
	{"quit_leading_due_to_disloyal_voter", kindCounter},
	{"snap_count", kindCounter},
	{"unrecoverable_error_count", kindCounter},
	{"unsuccessful_handshake", kindCounter},
	{"commit_count", kindCounter},
	{"stale_sessions_expired", kindCounter},
	{"response_packet_get_children_cache_hits", kindCounter},
	{"sync_processor_request_queued", kindCounter},
	{"outstanding_changes_queued", kindCounter},
	{"request_commit_queued", kindCounter},
	{"ensemble_auth_skip", kindCounter},
	{"skip_learner_request_to_next_processor_count", kindCounter},
	{"tls_handshake_exceeded", kindCounter},
	{"revalidate_count", kindCounter},
	{"socket_closing_time", kindBasicSummary},
	{"proposal_process_time", kindBasicSummary},
	{"leader_unavailable_time", kindBasicSummary},
	{"node_created_watch_count", kindBasicSummary},
	{"session_queues_drained", kindBasicSummary},
	{"write_commit_proc_req_queued", kindBasicSummary},
	{"connection_token_deficit", kindBasicSummary},
	{"read_commit_proc_req_queued", kindBasicSummary},
	{"node_deleted_watch_count", kindBasicSummary},
	{"startup_txns_load_time", kindBasicSummary},
	{"sync_processor_queue_size", kindBasicSummary},
	{"follower_sync_time", kindBasicSummary},
	{"prep_processor_queue_size", kindBasicSummary},
	{"fsynctime", kindBasicSummary},
	{"inflight_snap_count", kindBasicSummary},
	{"reads_issued_from_session_queue", kindBasicSummary},
	{"learner_request_processor_queue_size", kindBasicSummary},
	{"snapshottime", kindBasicSummary},
	{"unavailable_time", kindBasicSummary},
	{"startup_txns_loaded", kindBasicSummary},
	{"reads_after_write_in_session_queue", kindBasicSummary},
	{"requests_in_session_queue", kindBasicSummary},
	{"write_commit_proc_issued", kindBasicSummary},
	{"prep_process_time", kindBasicSummary},
	{"pending_session_queue_size", kindBasicSummary},
	{"time_waiting_empty_pool_in_commit_processor_read_ms", kindBasicSummary},
	{"commit_process_time", kindBasicSummary},
	{"dbinittime", kindBasicSummary},
	{"inflight_diff_count", kindBasicSummary},
	{"netty_queued_buffer_capacity", kindBasicSummary},
	{"election_time", kindBasicSummary},
	{"commit_commit_proc_req_queued", kindBasicSummary},
	{"sync_processor_batch_size", kindBasicSummary},
	{"node_children_watch_count", kindBasicSummary},
	{"write_batch_time_in_commit_processor", kindBasicSummary},
	{"read_commit_proc_issued", kindBasicSummary},
	{"concurrent_request_processing_in_commit_processor", kindBasicSummary},
	{"observer_sync_time", kindBasicSummary},
	{"node_changed_watch_count", kindBasicSummary},
	{"sync_process_time", kindBasicSummary},
	{"startup_snap_load_time", kindBasicSummary},
	{"prep_processor_queue_time_ms", kindAdvancedSummary},
	{"jvm_pause_time_ms", kindAdvancedSummary},
	{"close_session_prep_time", kindAdvancedSummary},
	{"read_commitproc_time_ms", kindAdvancedSummary},
	{"updatelatency", kindAdvancedSummary},
	{"local_write_committed_time_ms", kindAdvancedSummary},
	{"request_throttle_queue_time_ms", kindAdvancedSummary},
	{"readlatency", kindAdvancedSummary},
	{"quorum_ack_latency", kindAdvancedSummary},
	{"om_commit_process_time_ms", kindAdvancedSummary},
	{"read_final_proc_time_ms", kindAdvancedSummary},
	{"commit_propagation_latency", kindAdvancedSummary},
	{"dead_watchers_cleaner_latency", kindAdvancedSummary},
	{"write_final_proc_time_ms", kindAdvancedSummary},
	{"proposal_ack_creation_latency", kindAdvancedSummary},
	{"proposal_latency", kindAdvancedSummary},
	{"om_proposal_process_time_ms", kindAdvancedSummary},
	{"sync_processor_queue_and_flush_time_ms", kindAdvancedSummary},
	{"propagation_latency", kindAdvancedSummary},
	{"server_write_committed_time_ms", kindAdvancedSummary},
	{"sync_processor_queue_time_ms", kindAdvancedSummary},
	{"sync_processor_queue_flush_time_ms", kindAdvancedSummary},
	{"write_commitproc_time_ms", kindAdvancedSummary},
}
