// Package watches is the server's watch registry: which connection wants to
// hear about which path, and who gets a notification when the data tree
// changes.
//
// # Model
//
// Like Apache ZooKeeper, the registry keeps two tables, a data table and a
// child table. An entry is one (connection, path) pair in one table and
// holds a set of modes: one-shot (getData, exists, getChildren), persistent
// and persistent-recursive (addWatch). Each table is indexed both ways,
// path to connections and connection to paths, so memory grows with the
// number of watches and closing a connection costs only its own watches.
//
//	getData / exists (also on a missing node)  data table, one-shot
//	getChildren                                child table, one-shot
//	addWatch PERSISTENT                        both tables, persistent
//	addWatch PERSISTENT_RECURSIVE              both tables, recursive
//
// A recursive watch sits in both tables because that is what 3.8.0 does
// (3.9 keeps it in the data table only). It shows in three places a client
// can see: mntr's zk_watch_count counts it twice, checkWatches with
// Children succeeds on it, and removeWatches with Data leaves its child
// table half behind, which keeps delivering NodeDeleted for the path and
// its descendants.
//
// # Firing
//
// Trigger takes the events the data tree reports, one call per event, and
// follows the ZooKeeper rules: NodeCreated and NodeDataChanged fire the
// data table at the path, NodeChildrenChanged the child table, NodeDeleted
// the data table and then the child table (a connection already notified
// by the first is not notified again, but its one-shot child watch is still
// used up). Every connection with an entry at the path is selected, except
// that a recursive-only entry ignores NodeChildrenChanged; recursive
// entries on the ancestors are selected too for every other event type,
// and the ancestor walk happens only while some recursive watch exists.
// A selected connection receives one notification per Trigger call, with
// the changed node's path, however many of its watches matched. One-shot
// modes are used up, persistent modes stay.
//
// # Deliberate difference from 3.8.0: modes combine
//
// In 3.8.0 a later registration replaces the mode of an earlier one on the
// same path and table, so a getData watch turns a persistent watch into a
// one-shot (ZOOKEEPER-4466). This package implements the fixed behaviour of
// 3.9: the modes of one entry combine, a one-shot firing removes only the
// one-shot mode, and re-adding a mode an entry holds is a no-op.
//
// # checkWatches and removeWatches
//
// Only the 3.8 watcher types exist (Children, Data, Any); the server
// rejects the others before calling in. Children and Data look at that
// table's entry whatever its modes, so a path holding only a persistent or
// recursive watch passes checkWatches with Children, Data and Any, and
// removeWatches with Children or Data removes that table's half of it. Any
// looks at both tables. Removal is per connection. checkWatches copies
// 3.8.0, which looks the path up without the connection: it succeeds when
// any connection watches the path in that table, or when the caller has a
// recursive watch on exactly that path.
//
// # Reports
//
// The four-letter words wchs, wchc and wchp of 3.8.0 report the data table
// only, and keep listing a connection whose data watches have all fired or
// been removed until the connection closes; DataWatchSummary, ByWatcher and
// ByPath reproduce that. mntr's zk_watch_count counts entries of both
// tables (WatchCount). SetTriggerObserver feeds the per-event-type watch
// count summaries of mntr with the numbers Java records.
//
// # Concurrency
//
// Every method is safe for concurrent use; one mutex guards both tables.
// Trigger calls are serialised among themselves and notify after releasing
// the registry lock, so Notify may call back into the registry (but not
// into Trigger) and notifications of successive Trigger calls reach each
// connection in call order. SetDelivery replaces the Notify calls with one
// call per Trigger that gets every selected connection, so that the server
// can encode a notification once and write it to all of them as a batch.
package watches
