package server

import "fmt"

// LoggedTxn is one txn of the log: its zxid and its bytes as Java encodes
// them (header, record, digest).
type LoggedTxn struct {
	Zxid int64
	Data []byte
}

// RecentTxns returns up to n of the newest logged txns after the newest
// snapshot, oldest first, no newer than the tree's last processed zxid:
// what Java's ZKDatabase puts in its committed log as it replays the log
// over its snapshot (zookeeper.commitLogCount), from which a new leader
// sends DIFFs.
func (s *Server) RecentTxns(n int) ([]LoggedTxn, error) {
	if n <= 0 {
		return nil, nil
	}
	upTo := s.tree.LastProcessedZxid()
	from := int64(1)
	if infos, err := s.store.Snapshots(); err == nil {
		for _, info := range infos {
			if info.Err == nil {
				from = info.Zxid + 1
				break
			}
		}
	}
	var ring []LoggedTxn
	err := s.txnLog.Replay(from, func(zxid int64, data []byte) error {
		if zxid > upTo {
			return errStopScan
		}
		if len(ring) == n {
			copy(ring, ring[1:])
			ring = ring[:n-1]
		}
		ring = append(ring, LoggedTxn{Zxid: zxid, Data: append([]byte(nil), data...)})
		return nil
	})
	if err != nil && err != errStopScan {
		return nil, fmt.Errorf("reading the newest txns of the log: %w", err)
	}
	return ring, nil
}
