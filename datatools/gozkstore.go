package datatools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

// storeParent maps a path given to the dump tools to the directory
// OpenStore expects: the store directory itself (gozk/ or gozk-snap/)
// stands for its parent.
func storeParent(dir, storeDir string) string {
	if filepath.Base(filepath.Clean(dir)) == storeDir {
		return filepath.Dir(filepath.Clean(dir))
	}
	return dir
}

// dumpGozkLog prints the txns of gozk's txn log in dir (a dataLogDir or
// its gozk/ store directory), from zxid from on.
func dumpGozkLog(d *txnDumper, dir string, from int64) error {
	dir = storeParent(dir, persistence.StoreDirName)
	if _, err := os.Stat(filepath.Join(dir, persistence.StoreDirName)); err != nil {
		return fmt.Errorf("%s holds no gozk txn log (%s/) and is not a log.N file", dir, persistence.StoreDirName)
	}
	log, err := persistence.Open(persistence.Options{Dir: dir, ReadOnly: true})
	if err != nil {
		return err
	}
	defer log.Close()
	if !d.json {
		fmt.Fprintf(d.w, "gozk txn log %s with txns up to 0x%x\n", log.Dir(), log.LastZxid())
	}
	err = log.Replay(max(from, 1), func(zxid int64, data []byte) error {
		return d.txn(data, true, zxid)
	})
	if err != nil {
		return err
	}
	if !d.json {
		fmt.Fprintf(d.w, "EOF reached after %d txns.\n", d.count)
	}
	return nil
}

// loadGozkSnapshot reads the newest intact snapshot of gozk's store in dir
// (a dataDir or its gozk-snap/ directory; the txn log is expected in the
// same dataDir).
func loadGozkSnapshot(dir string) (*snapshotDump, error) {
	dir = storeParent(dir, persistence.SnapshotDirName)
	if _, err := os.Stat(filepath.Join(dir, persistence.SnapshotDirName)); err != nil {
		return nil, fmt.Errorf("%s holds no gozk snapshots (%s/) and is not a snapshot file", dir, persistence.SnapshotDirName)
	}
	store, err := persistence.OpenStore(persistence.StoreOptions{DataDir: dir, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	infos, err := store.Snapshots()
	if err != nil {
		return nil, err
	}
	if len(infos) == 0 {
		return nil, &noSnapshotError{dir: dir}
	}
	for _, info := range infos {
		if info.Err != nil {
			continue
		}
		s := newSnapshotDump(info.Zxid)
		h := s.handler()
		_, err := store.ReadSnapshot(info.Zxid, persistence.SnapshotVisitor{
			Session: func(sess proto.SnapshotSession) error { return h.Session(sess.Id, sess.Timeout) },
			ACL:     func(e *proto.ACLCacheEntry) error { return h.ACL(*e) },
			Node: func(path string, n *proto.DataNode) error {
				return h.Node(&zkfiles.Node{Path: path, Data: n.Data, ACLID: n.Acl, Stat: n.Stat})
			},
		})
		if err != nil {
			return nil, err
		}
		s.digest = info.Digest
		return s, nil
	}
	return nil, fmt.Errorf("gozk's store in %s holds no intact snapshot", dir)
}

// ErrNoSnapshot is matched (errors.Is) by the error of DumpSnapshot on a
// gozk store that has no snapshot at all, which is what a new store looks
// like: it is sound, and the server recovers it from an empty tree and the
// txn log.
var ErrNoSnapshot = errors.New("datatools: the store has no snapshot yet")

type noSnapshotError struct{ dir string }

func (e *noSnapshotError) Error() string {
	return fmt.Sprintf("gozk's store in %s has no snapshot yet, which is normal for a new store: the server takes "+
		"its first once it has logged snapCount/2 to snapCount txns, and until then recovers from an empty tree and "+
		"the txn log (dump-log prints it)", e.dir)
}

func (e *noSnapshotError) Is(target error) bool { return target == ErrNoSnapshot }
