package peer

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/quorum/electionport"
)

// ElectionPortConfig is the election port of server myid as Java 3.8.0
// sets it up from the same zoo.cfg: it listens on its own election
// addresses (or on every interface with quorumListenOnAllIPs), names them
// in its initial messages, and knows every other server's.
func ElectionPortConfig(c *conf.Config, log zerolog.Logger) (electionport.Config, error) {
	q := &c.Quorum
	self, ok := q.Self()
	if !ok {
		return electionport.Config{}, fmt.Errorf("my id %d not in the peer list", q.ServerID)
	}
	pc := electionport.Config{
		ID:               self.ID,
		Peers:            map[int64][]string{},
		MultiAddress:     q.MultiAddressEnabled,
		ConnectTimeout:   q.CnxTimeout,
		HandshakeTimeout: q.QuorumCnxnTimeout,
		BindRetry:        q.ElectionPortBindRetry,
		Logger:           log,
	}
	if pc.HandshakeTimeout <= 0 {
		pc.HandshakeTimeout = c.TickTime * time.Duration(q.SyncLimit)
	}
	for _, a := range self.Addrs {
		pc.Advertise = append(pc.Advertise, a.ElectionHostPort())
	}
	pc.ListenAddrs = listenAddrs(q.QuorumListenOnAllIPs, self.Addrs, func(a conf.QuorumAddr) int { return a.ElectionPort })
	for id, s := range q.Ensemble.Servers {
		if id == self.ID {
			continue
		}
		for _, a := range s.Addrs {
			pc.Peers[id] = append(pc.Peers[id], a.ElectionHostPort())
		}
	}
	return pc, nil
}

// ElectionTimersOf returns the election's timers from the fastleader
// system properties.
func ElectionTimersOf(c *conf.Config) ElectionTimers {
	return ElectionTimers{
		MinNotificationInterval: c.Quorum.MinNotificationInterval,
		MaxNotificationInterval: c.Quorum.MaxNotificationInterval,
	}
}

// listenAddrs are the host:port pairs one of this server's ports binds
// (port picks which): each of its addresses, or with
// quorumListenOnAllIPs every interface once per distinct port, as Java
// binds the wildcard addresses of a multi-address line.
func listenAddrs(allIPs bool, addrs []conf.QuorumAddr, port func(conf.QuorumAddr) int) []string {
	var out []string
	for _, a := range addrs {
		host := a.Host
		if allIPs {
			host = ""
		}
		hp := net.JoinHostPort(host, strconv.Itoa(port(a)))
		if !slices.Contains(out, hp) {
			out = append(out, hp)
		}
	}
	return out
}

// quorumHostPorts are the quorum addresses of a server line, where its
// learners dial it.
func quorumHostPorts(addrs []conf.QuorumAddr) []string {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, a.QuorumHostPort())
	}
	return out
}
