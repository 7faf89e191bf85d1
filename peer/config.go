package peer

import (
	"fmt"
	"net"
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
		listen := a.ElectionHostPort()
		if q.QuorumListenOnAllIPs {
			listen = net.JoinHostPort("", strconv.Itoa(a.ElectionPort))
		}
		pc.ListenAddrs = append(pc.ListenAddrs, listen)
	}
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
