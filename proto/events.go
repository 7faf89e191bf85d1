package proto

// EventType is WatcherEvent.type.
type EventType int32

// The event types. Only NodeCreated through NodeChildrenChanged are sent
// by servers; the others are made by clients.
const (
	EventNone                   EventType = -1
	EventNodeCreated            EventType = 1
	EventNodeDeleted            EventType = 2
	EventNodeDataChanged        EventType = 3
	EventNodeChildrenChanged    EventType = 4
	EventDataWatchRemoved       EventType = 5
	EventChildWatchRemoved      EventType = 6
	EventPersistentWatchRemoved EventType = 7
)

func (e EventType) String() string {
	switch e {
	case EventNone:
		return "None"
	case EventNodeCreated:
		return "NodeCreated"
	case EventNodeDeleted:
		return "NodeDeleted"
	case EventNodeDataChanged:
		return "NodeDataChanged"
	case EventNodeChildrenChanged:
		return "NodeChildrenChanged"
	case EventDataWatchRemoved:
		return "DataWatchRemoved"
	case EventChildWatchRemoved:
		return "ChildWatchRemoved"
	case EventPersistentWatchRemoved:
		return "PersistentWatchRemoved"
	}
	return "Unknown"
}

// KeeperState is WatcherEvent.state.
type KeeperState int32

// The keeper states. Servers only send SyncConnected.
const (
	StateUnknown           KeeperState = -1
	StateDisconnected      KeeperState = 0
	StateNoSyncConnected   KeeperState = 1
	StateSyncConnected     KeeperState = 3
	StateAuthFailed        KeeperState = 4
	StateConnectedReadOnly KeeperState = 5
	StateSaslAuthenticated KeeperState = 6
	StateClosed            KeeperState = 7
	StateExpired           KeeperState = -112
)

// WatcherType is the type field of checkWatches and removeWatches.
type WatcherType int32

// The watcher types of ZooKeeper 3.8 (3.9 adds 4 and 5; 3.8 rejects them
// with MarshallingError).
const (
	WatcherChildren WatcherType = 1
	WatcherData     WatcherType = 2
	WatcherAny      WatcherType = 3
)

// Valid reports whether t is a watcher type 3.8 accepts.
func (t WatcherType) Valid() bool { return t >= WatcherChildren && t <= WatcherAny }

// AddWatchMode is the mode field of addWatch.
type AddWatchMode int32

// The addWatch modes.
const (
	AddWatchPersistent          AddWatchMode = 0
	AddWatchPersistentRecursive AddWatchMode = 1
)

// Valid reports whether m is an addWatch mode.
func (m AddWatchMode) Valid() bool {
	return m == AddWatchPersistent || m == AddWatchPersistentRecursive
}
