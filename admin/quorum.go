package admin

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/gozk/gozk/server"
)

// QuorumView is what the monitoring commands show of an ensemble
// member's configuration: conf's quorum lines, quorum_size, and the
// AdminServer's voting_view and zabstate. A standalone server has none.
type QuorumView struct {
	ServerID    int64 // myid
	InitLimit   int   // ticks
	SyncLimit   int   // ticks
	ElectionAlg int
	// Observer is this server's peerType (conf prints 1 for an observer,
	// 0 for a participant).
	Observer bool
	// Membership is the configuration as Java's QuorumVerifier.toString
	// writes it: server.N=... lines, group and weight lines, then
	// "version=<hex>" without a final newline (conf.Ensemble's
	// QuorumConfig).
	Membership string
	// Servers are every server of the configuration, in any order.
	Servers []QuorumServerView
}

// QuorumServerView is one server of the configuration.
type QuorumServerView struct {
	ID int64
	// QuorumAddrs and ElectionAddrs are the server's host:port pairs
	// (several with multiple addresses), hosts as written.
	QuorumAddrs   []string
	ElectionAddrs []string
	// ClientAddr is host:port, "" when the server line has none (for this
	// server, Java takes clientPortAddress:clientPort then).
	ClientAddr string
	Observer   bool
}

// SetQuorum replaces the configuration the commands show (after a
// reconfiguration).
func (c *Commands) SetQuorum(q *QuorumView) { c.quorum.Store(q) }

// self returns this server's entry of the configuration.
func (q *QuorumView) self() (QuorumServerView, bool) {
	for _, s := range q.Servers {
		if s.ID == q.ServerID {
			return s, true
		}
	}
	return QuorumServerView{}, false
}

// voters are the participants (Java's voting view), by id.
func (q *QuorumView) voters() map[int64]QuorumServerView {
	out := map[int64]QuorumServerView{}
	for _, s := range q.Servers {
		if !s.Observer {
			out[s.ID] = s
		}
	}
	return out
}

// ports returns the ports of host:port pairs joined by "|", as conf's
// electionPort= and quorumPort= lines show them.
func ports(addrs []string) string {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		if _, p, err := net.SplitHostPort(a); err == nil {
			out = append(out, p)
		}
	}
	return strings.Join(out, "|")
}

// writeQuorumConf writes the lines Java's QuorumZooKeeperServer.dumpConf
// adds to conf after serverId.
func writeQuorumConf(b *strings.Builder, q *QuorumView) {
	self, _ := q.self()
	peerType := 0
	if q.Observer {
		peerType = 1
	}
	fmt.Fprintf(b, "initLimit=%d\nsyncLimit=%d\nelectionAlg=%d\n", q.InitLimit, q.SyncLimit, q.ElectionAlg)
	fmt.Fprintf(b, "electionPort=%s\nquorumPort=%s\npeerType=%d\n", ports(self.ElectionAddrs), ports(self.QuorumAddrs), peerType)
	b.WriteString("membership: \n")
	b.WriteString(q.Membership)
}

// jsonAddr is how Jackson writes an InetSocketAddress: the host as
// written (an IPv6 literal in brackets), a colon, the port.
func jsonAddr(hostPort string) string {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return hostPort
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + port
}

// multipleAddresses is how Jackson writes Java's MultipleAddresses (the
// zabstate command's quorum_address and election_address): every bean
// getter, in the order 3.8.0 writes them. gozk takes its own addresses as
// reachable, as Java finds them.
func multipleAddresses(addrs []string) obj {
	all := make([]any, 0, len(addrs))
	wildcard := make([]any, 0, len(addrs))
	portList := make([]any, 0, len(addrs))
	hosts := make([]any, 0, len(addrs))
	for _, a := range addrs {
		all = append(all, jsonAddr(a))
		host, port, _ := net.SplitHostPort(a)
		wildcard = append(wildcard, "0.0.0.0:"+port)
		p, _ := strconv.Atoi(port)
		portList = append(portList, p)
		hosts = append(hosts, host)
	}
	var one any
	if len(all) > 0 {
		one = all[0]
	}
	return obj{
		{"empty", len(addrs) == 0},
		{"all_addresses", all},
		{"all_reachable_addresses", all},
		{"one", one},
		{"reachable_address", one},
		{"wildcard_addresses", wildcard},
		{"all_ports", portList},
		{"all_host_strings", hosts},
		{"all_reachable_addresses_or_all", all},
		{"reachable_or_one", one},
	}
}

// quorumOf returns the configuration the commands show for s: none for a
// standalone server.
func (c *Commands) quorumOf(s *server.Server) *QuorumView {
	if s == nil || s.Role() == server.RoleStandalone {
		return nil
	}
	return c.quorum.Load()
}

// zabState is the AdminServer's zabstate command (Java's
// ZabStateCommand) for an ensemble member that serves.
func (c *Commands) zabState(s *server.Server) obj {
	q := c.quorumOf(s)
	if q == nil || !serving(s) {
		return obj{{"voting", false}, {"zabstate", ""}}
	}
	self, _ := q.self()
	// Java: this server is voting when the current configuration has it
	// as a participant with the addresses it runs with.
	_, voting := q.voters()[q.ServerID]
	zxid := s.LastZxid()
	client := any(nil)
	if self.ClientAddr != "" {
		client = jsonAddr(self.ClientAddr)
	}
	return obj{
		{"myid", q.ServerID},
		{"is_leader", s.Role() == server.RoleLeader},
		{"quorum_address", multipleAddresses(self.QuorumAddrs)},
		{"election_address", multipleAddresses(self.ElectionAddrs)},
		{"client_address", client},
		{"voting", voting},
		{"last_zxid", "0x" + strconv.FormatUint(uint64(zxid), 16)},
		{"zab_epoch", zxid >> 32},
		{"zab_counter", zxid & 0xffffffff},
		{"zabstate", s.Phase().String()},
	}
}

// votingView is the AdminServer's voting_view command: the participants
// by id (in Java's HashMap order), each with its addresses and type.
func (c *Commands) votingView(s *server.Server) obj {
	q := c.quorumOf(s)
	if q == nil {
		return obj{{"current_config", obj{}}}
	}
	voters := q.voters()
	ids := make([]int64, 0, len(voters))
	for id := range voters {
		ids = append(ids, id)
	}
	view := obj{}
	for _, id := range javaLongOrder(ids) {
		v := voters[id]
		list := func(addrs []string) []any {
			out := make([]any, 0, len(addrs))
			for _, a := range addrs {
				out = append(out, jsonAddr(a))
			}
			return out
		}
		client := ""
		if v.ClientAddr != "" {
			client = jsonAddr(v.ClientAddr)
		}
		learnerType := "participant"
		if v.Observer {
			learnerType = "observer"
		}
		view = append(view, kv{strconv.FormatInt(id, 10), obj{
			{"server_addresses", list(v.QuorumAddrs)},
			{"election_addresses", list(v.ElectionAddrs)},
			{"client_address", client},
			{"learner_type", learnerType},
		}})
	}
	return obj{{"current_config", view}}
}

// leaderInfo is the AdminServer's leader command.
func (c *Commands) leaderInfo(s *server.Server) obj {
	if c.quorumOf(s) == nil {
		return obj{{"error", "server is not initialized"}}
	}
	id, host := s.Leader()
	return obj{{"is_leader", s.Role() == server.RoleLeader}, {"leader_id", id}, {"leader_ip", host}}
}

// observers is the AdminServer's observers command: a leader's synced
// observers, or a follower's while it is their observer master; none
// elsewhere.
func (c *Commands) observers(s *server.Server) obj {
	g := s.LeaderFigures()
	if s.Role() != server.RoleLeader && !(s.Role() == server.RoleFollower && g.ObserverMaster) {
		return obj{{"synced_observers", 0}, {"observers", []any{}}}
	}
	list := make([]any, 0, len(g.Observers))
	for _, o := range g.Observers {
		list = append(list, obj{
			{"remote_socket_address", o.RemoteAddr},
			{"sid", o.ID},
			{"established", o.Established},
			{"queued_packets", o.QueuedPackets},
			{"queued_packets_size", o.QueuedPacketsSize},
			{"packets_received", o.PacketsReceived},
			{"packets_sent", o.PacketsSent},
			{"requests", o.Requests},
			{"last_zxid", o.LastZxid},
		})
	}
	return obj{{"synced_observers", g.SyncedObservers}, {"observers", list}}
}
