package server

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

// SnapStream is a fuzzy snapshot of the live tree on its way to a learner
// after a SNAP packet, in the format of Java 3.8.0's leader
// (zkfiles.EncodeSnapStream). It is begun at a zxid (Zxid, which the SNAP
// packet carries) and then walked while writes go on: the learner loads
// it and then applies every txn after Zxid, whose effects the walk may
// already hold in part; applying a txn whose effect is there converges
// (see package db).
//
// A leader starts forwarding proposals and commits to the learner before
// it calls StartSnapStream, as Java's LearnerHandler does (startForwarding,
// then getDataTreeLastProcessedZxid for the SNAP packet), so that no txn
// after Zxid is missed; the ones between the two points reach the learner
// twice, which is harmless for the same reason.
type SnapStream struct {
	s        *Server
	walk     *db.FuzzyWalk
	sessions []proto.SnapshotSession
	acls     []proto.ACLCacheEntry
	// placeholders counts the nodes written with OPEN_ACL_UNSAFE in place
	// of an ACL list set after the stream began (see WriteTo).
	placeholders int
	// skipped counts the nodes created after the stream began, which the
	// stream leaves to the txns after Zxid.
	skipped int
	used    bool
}

// StartSnapStream begins a SNAP stream at the tree's last processed zxid.
// The session table and the ACL map are taken now; the nodes are copied as
// WriteTo walks them. The tree must not be replaced (LoadSnapStream,
// TruncateLog: a learner's steps, never a leader's) until WriteTo is
// done.
func (s *Server) StartSnapStream() *SnapStream {
	walk := s.tree.StartFuzzyWalk()
	// Both after the walk began, so that they hold every txn up to its
	// zxid; what they hold of later txns the learner's replay settles.
	sessions := s.tree.SessionList()
	// By id, so that the bytes do not depend on Go's map order:
	// EncodeSnapStream keeps this order among the sessions of one hash
	// bucket, where Java keeps its session table's, which for the
	// sessions of one server is often their creation order, the order
	// of their ids.
	slices.SortFunc(sessions, func(a, b proto.SnapshotSession) int { return cmp.Compare(a.Id, b.Id) })
	return &SnapStream{s: s, walk: walk, sessions: sessions, acls: s.tree.ACLCache()}
}

// Zxid is the zxid the stream began at: the SNAP packet's, and the last
// one the learner need not be sent.
func (ss *SnapStream) Zxid() int64 { return ss.walk.Zxid() }

// errSnapStreamUsed is returned by a second WriteTo of one SnapStream.
var errSnapStreamUsed = errors.New("server: a SNAP stream is written once")

// WriteTo writes the stream to w, the learner's connection, and returns
// the number of bytes written. It holds the tree's read lock only a
// bounded time per batch of nodes (as gozk's own snapshots do), never
// while writing to w, so a slow learner slows no write; it holds snapMu
// throughout, so the tree is not replaced under the walk, and a snapshot
// of this server waits for the stream or is skipped as when one is being
// written.
//
// Two things are written differently from what the tree holds when the
// walk reaches them, so that the stream loads whatever happened meanwhile:
// a node created after the stream began (czxid > Zxid) is left out with
// its subtree, since its create is among the txns the learner applies
// next; and a node whose ACL list was set after the ACL map was taken (an
// id the map, written first, does not hold) is written with
// OPEN_ACL_UNSAFE, which the setACL txn after Zxid then replaces. The
// learner serves no client before it has applied those txns. Java's
// leader writes both with an id its learner does not know: the load logs
// "Ignoring acl", reading the node's ACL fails ("Failed to fetch acls")
// and, for a node created during the walk, whose create the learner then
// finds done, stays so until the learner's cache gives that id to the
// next new list, which the node then has.
func (ss *SnapStream) WriteTo(w io.Writer) (int64, error) {
	if ss.used {
		return 0, errSnapStreamUsed
	}
	ss.used = true
	s := ss.s
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	known := make(map[int64]struct{}, len(ss.acls))
	for i := range ss.acls {
		known[ss.acls[i].Id] = struct{}{}
	}
	cw := &countingWriter{w: w}
	zxid := ss.walk.Zxid()
	err := zkfiles.EncodeSnapStream(cw, ss.sessions, ss.acls, func(put func(*zkfiles.Node) error) error {
		batch := make([]db.SnapshotNode, 0, walkBudget)
		var n zkfiles.Node
		for {
			batch = ss.walk.Next(batch, walkBudget)
			if len(batch) == 0 {
				return nil
			}
			touchBytes(batch)
			for i := range batch {
				sn := &batch[i]
				if sn.Stat.Czxid > zxid {
					// Its descendants were created after it, so
					// they are left out too: the walk yields parents
					// first and the learner's load needs each one.
					ss.skipped++
					continue
				}
				n.Path, n.Data, n.ACLID, n.Stat = sn.Path, sn.Data, sn.ACLID, sn.Stat
				if n.ACLID != db.OpenACLID {
					if _, ok := known[n.ACLID]; !ok {
						n.ACLID = db.OpenACLID
						ss.placeholders++
					}
				}
				if err := put(&n); err != nil {
					return err
				}
			}
			select {
			case <-s.stop:
				return errStopping
			default:
			}
		}
	})
	if err != nil {
		return cw.n, fmt.Errorf("writing the snapshot at 0x%x to a learner: %w", zxid, err)
	}
	if ss.skipped > 0 || ss.placeholders > 0 {
		s.logger.Debug().Str("zxid", fmt.Sprintf("0x%x", zxid)).Int("createdSince", ss.skipped).
			Int("aclSetSince", ss.placeholders).Msg("SNAP stream left changes after its zxid to the txns that follow it")
	}
	return cw.n, nil
}

// WriteSnapStream writes a SNAP stream of the live tree to w and returns
// its zxid: StartSnapStream and WriteTo in one, for a caller that sends
// the zxid after the stream (a leader sends it before, in the SNAP packet,
// and uses the two steps).
func (s *Server) WriteSnapStream(w io.Writer) (zxid int64, err error) {
	ss := s.StartSnapStream()
	_, err = ss.WriteTo(w)
	return ss.Zxid(), err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// DefaultSnapshotSizeFactor is zookeeper.snapshotSizeFactor's default.
const DefaultSnapshotSizeFactor = 0.33

// Errors of CommittedTxns.
var (
	// ErrTxnsNotLogged: the txn log does not reach back to the zxid
	// asked for (purged, or begun later by a snapshot).
	ErrTxnsNotLogged = errors.New("the txn log does not hold the txns asked for")
	// ErrTxnLogTooLarge: the txns asked for pass the size limit, or
	// syncing from the log is off (a negative limit).
	ErrTxnLogTooLarge = errors.New("the txns asked for pass the txn log sync limit")
)

// TxnLogSyncLimit is Java's ZKDatabase.calculateTxnLogSizeLimit: how many
// bytes of logged txns a leader may send a learner (DIFF) rather than a
// snapshot, factor (zookeeper.snapshotSizeFactor) times the size of the
// newest snapshot. As in Java, a factor above 1 counts as the default
// 0.33, a negative one turns syncing from the log off (-1 is returned),
// and 0 is returned, meaning no limit, when there is no snapshot. gozk
// counts a snapshot's size as its encoded records, which is what Java's
// uncompressed snapshot file holds.
func (s *Server) TxnLogSyncLimit(factor float64) (int64, error) {
	if factor < 0 {
		return -1, nil
	}
	if factor > 1 {
		factor = DefaultSnapshotSizeFactor
	}
	infos, err := s.store.Snapshots()
	if err != nil {
		return 0, err
	}
	for _, info := range infos {
		if info.Err == nil {
			return int64(float64(info.Bytes) * factor), nil
		}
	}
	return 0, nil
}

// javaLogRecordOverhead is what a txn takes in Java's log file besides its
// bytes: the Adler32 (a long), the length (an int) and the 'B' ending it.
const javaLogRecordOverhead = 8 + 4 + 1

// errStopScan ends a txn log scan early.
var errStopScan = errors.New("stop")

// CommittedTxns calls fn for every logged txn with from <= zxid <= to, in
// zxid order, for a DIFF from the txn log, as Java's
// ZKDatabase.getProposalsFromTxnLog(from, maxBytes) yields them; from is
// the learner's last zxid, whose own txn (when the log holds it) comes
// first, as Java's LearnerHandler expects. data is only valid during the
// call. It fails before calling fn:
//   - with ErrTxnsNotLogged when the log holds no txn at or below from
//     (Java's test: the log must start at or before the learner's zxid);
//   - with ErrTxnLogTooLarge when the txns would take more than maxBytes
//     in Java's log format (record framing included, preallocation not),
//     or maxBytes is negative; 0 is no limit (see TxnLogSyncLimit).
//
// fn's error stops the walk and is returned as is.
func (s *Server) CommittedTxns(from, to int64, maxBytes int64, fn func(zxid int64, data []byte) error) error {
	log := s.txnLog
	if err := checkLogReaches(log, from); err != nil {
		return err
	}
	if maxBytes < 0 {
		return fmt.Errorf("%w: syncing from the txn log is off", ErrTxnLogTooLarge)
	}
	if maxBytes > 0 {
		var size int64
		err := log.Replay(from, func(zxid int64, data []byte) error {
			if zxid > to {
				return errStopScan
			}
			size += int64(len(data)) + javaLogRecordOverhead
			if size > maxBytes {
				return fmt.Errorf("%w: the txns from 0x%x to 0x%x take more than %d bytes", ErrTxnLogTooLarge, from, to, maxBytes)
			}
			return nil
		})
		if err != nil && err != errStopScan {
			return err
		}
	}
	// A purge may have run since the check above. It only drops the
	// oldest txns, and a scan reads the log as it was when the scan
	// began: if the log still reaches from once the scan has begun, the
	// scan sees every txn from there on.
	checked := false
	err := log.Replay(from, func(zxid int64, data []byte) error {
		if zxid > to {
			return errStopScan
		}
		if !checked {
			checked = true
			if err := checkLogReaches(log, from); err != nil {
				return err
			}
		}
		return fn(zxid, data)
	})
	if err == errStopScan {
		err = nil
	}
	return err
}

// checkLogReaches returns ErrTxnsNotLogged unless log holds a txn at or
// below zxid.
func checkLogReaches(log *persistence.TxnLog, zxid int64) error {
	first, err := log.FirstZxid()
	if err != nil {
		return err
	}
	if first == 0 {
		return fmt.Errorf("%w: it is empty (purged before 0x%x)", ErrTxnsNotLogged, log.PurgedBefore())
	}
	if first > zxid {
		return fmt.Errorf("%w: it starts at 0x%x, after 0x%x (purged before 0x%x)", ErrTxnsNotLogged, first, zxid, log.PurgedBefore())
	}
	return nil
}
