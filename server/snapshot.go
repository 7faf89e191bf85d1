package server

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
)

// walkBudget bounds the work a snapshot's tree walk does per hold of the
// tree's read lock (nodes plus child pointers copied): about 100µs, the
// longest a write waits for a snapshot.
const walkBudget = 1000

// snapThreshold draws the number of logged txns after which the sync
// stage asks for a snapshot: snapCount/2 + random(snapCount/2), as Java's
// SyncRequestProcessor does, so that ensemble members do not all snapshot
// at once.
func snapThreshold(snapCount int) int {
	snapCount = max(snapCount, 2) // Java's minimum
	return snapCount/2 + rand.IntN(snapCount/2)
}

// countLogged is called by the sync stage after each durable batch; it
// asks the snapshot loop for a snapshot once enough txns were logged since
// the last request. As in Java's SyncRequestProcessor, a request that
// comes while a snapshot is being written is dropped, not queued, and the
// count starts again: with a large tree under a heavy write load the
// snapshots then follow each other at the threshold's distance, not back
// to back.
func (s *Server) countLogged(n int) {
	s.sinceSnap += n
	if s.sinceSnap <= s.snapAfter {
		return
	}
	s.sinceSnap = 0
	s.snapAfter = snapThreshold(s.cfg.SnapCount)
	if s.snapping.Load() {
		s.logger.Warn().Msg("too busy to snapshot, skipping")
		return
	}
	select {
	case s.snapTrigger <- struct{}{}:
	default:
	}
}

// snapshotLoop takes the snapshots the sync stage asks for.
func (s *Server) snapshotLoop() {
	defer s.bg.Done()
	for {
		select {
		case <-s.stop:
			return
		case <-s.snapTrigger:
		}
		if !s.snapMu.TryLock() {
			s.logger.Warn().Msg("too busy to snapshot, skipping")
			continue
		}
		_, err := s.takeSnapshotLocked()
		s.snapMu.Unlock()
		if err != nil && !errors.Is(err, errStopping) {
			// Nothing is lost: the log keeps every txn after the newest
			// complete snapshot (a failed one never becomes one), so the
			// server goes on, unlike Java's, which exits.
			s.logger.Error().Err(err).Int64("failures", s.mon.metrics.SnapshotFailures.Load()).
				Msg("snapshot failed; the server goes on, and recovery uses the previous snapshot and the txn log")
		}
	}
}

var errStopping = errors.New("server is stopping")

// TakeSnapshot writes a snapshot of the tree and sessions now, without
// stopping the pipeline, and returns it once it is durable. If a snapshot
// is being written it waits for that one and then takes its own. When no
// txn was applied since the newest snapshot, that one is returned.
func (s *Server) TakeSnapshot() (persistence.SnapshotInfo, error) {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	return s.takeSnapshotLocked()
}

// takeSnapshotLocked takes a snapshot and counts it in
// gozk_snapshot_failures if it fails.
func (s *Server) takeSnapshotLocked() (persistence.SnapshotInfo, error) {
	info, err := s.writeSnapshot()
	if err != nil && !errors.Is(err, errStopping) {
		s.mon.metrics.SnapshotFailures.Add(1)
	}
	return info, err
}

func (s *Server) writeSnapshot() (persistence.SnapshotInfo, error) {
	s.snapping.Store(true)
	defer s.snapping.Store(false)
	began := time.Now()
	walk := s.tree.StartFuzzyWalk()
	s.logger.Info().Str("zxid", fmt.Sprintf("0x%x", walk.Zxid())).Msg("taking a snapshot")
	w, err := s.store.CreateSnapshot(walk.Zxid())
	if errors.Is(err, persistence.ErrSnapshotExists) {
		infos, lerr := s.store.Snapshots()
		if lerr == nil && len(infos) > 0 && infos[0].Zxid == walk.Zxid() {
			return infos[0], nil
		}
	}
	if err != nil {
		return persistence.SnapshotInfo{}, err
	}
	defer w.Abort() // no-op after Commit
	for _, sess := range s.tree.SessionList() {
		if err := w.AddSession(sess); err != nil {
			return persistence.SnapshotInfo{}, err
		}
	}
	batch := make([]db.SnapshotNode, 0, walkBudget)
	var dn proto.DataNode
	var ace proto.ACLCacheEntry
	for {
		batch = walk.Next(batch, walkBudget)
		if len(batch) == 0 {
			break
		}
		touchBytes(batch)
		for i := range batch {
			n := &batch[i]
			if n.ACLID != db.OpenACLID {
				ace.Id, ace.Acl = n.ACLID, n.ACL
				if err := w.AddACL(&ace); err != nil {
					return persistence.SnapshotInfo{}, err
				}
			}
			dn.Data, dn.Acl, dn.Stat = n.Data, n.ACLID, n.Stat
			if err := w.AddNode(n.Path, &dn); err != nil {
				return persistence.SnapshotInfo{}, err
			}
		}
		select {
		case <-s.stop:
			return persistence.SnapshotInfo{}, errStopping
		default:
		}
	}
	var digest *proto.ZxidDigest
	// A tree still within a SNAP's fuzzy window may hold effects of txns
	// after its zxid, which its digest would attribute to that zxid:
	// such a snapshot records none, and recovery from it compares no
	// digest until the next snapshot. Read before the walk's end, which
	// then reflects a tree out of the window (only a new tree, swapped in
	// under snapMu, starts one); a window that ended during the walk is
	// no obstacle: the txns whose effects the walk copied early are all
	// at most the zxid the digest is taken at, and recovery replays them.
	fuzzy := s.fuzzy.Load()
	if endZxid, d := walk.End(); s.tree.DigestEnabled() && !fuzzy {
		digest = &proto.ZxidDigest{Zxid: endZxid, DigestVersion: proto.DigestVersion, Digest: d}
	}
	info, err := w.Commit(digest)
	if err != nil {
		return info, err
	}
	s.logger.Info().Str("zxid", fmt.Sprintf("0x%x", info.Zxid)).Int64("nodes", info.Nodes).
		Int("sessions", info.Sessions).Int64("bytes", info.Bytes).Dur("tookMs", time.Since(began)).
		Msg("snapshot taken")
	s.RecordSnapshotTime(time.Since(began))
	return info, nil
}

// touchBytes reads the first and last byte of each node's path and data
// before they are encoded. The walk yields nodes in Java's hash order, so
// these bytes are scattered over the heap and each is a cache miss; here
// the loads are independent and the CPU overlaps them, where the encoder,
// copying one node after another, would wait for each in turn.
func touchBytes(batch []db.SnapshotNode) {
	var sink byte
	for i := range batch {
		n := &batch[i]
		if len(n.Path) > 0 {
			sink += n.Path[0] + n.Path[len(n.Path)-1]
		}
		if len(n.Data) > 0 {
			sink += n.Data[0] + n.Data[len(n.Data)/2] + n.Data[len(n.Data)-1]
		}
	}
	runtime.KeepAlive(sink) // keeps the loads
}

// purgeLoop is Java's autopurge: at start and then every PurgeInterval,
// keep the SnapRetainCount newest snapshots and the txns they need.
func (s *Server) purgeLoop() {
	defer s.bg.Done()
	ticker := time.NewTicker(s.cfg.PurgeInterval)
	defer ticker.Stop()
	for {
		res, err := s.store.Purge(s.cfg.SnapRetainCount)
		switch {
		case err != nil:
			s.logger.Error().Err(err).Msg("autopurge failed")
		case len(res.Snapshots) > 0 || res.LogBefore > 0:
			s.logger.Info().Int("snapshots", len(res.Snapshots)).Str("txnsBefore", fmt.Sprintf("0x%x", res.LogBefore)).
				Msg("autopurge removed old snapshots and txns")
		}
		select {
		case <-s.stop:
			return
		case <-ticker.C:
		}
	}
}
