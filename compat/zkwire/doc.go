// Package zkwire is a deliberately small ZooKeeper client that speaks the
// wire protocol frame by frame, for compatibility tests.
//
// Ordinary client libraries hide exactly what a compatibility test has to
// see: they pick xids and opcodes themselves, validate paths and flags
// before sending, retry, reconnect and resend watches on their own, and
// turn error replies into exceptions without showing the reply header.
// zkwire does none of that. A Client is one TCP connection: Connect writes
// a ConnectRequest (optionally resuming a session, as an "old client"
// without the readOnly byte, with any lastZxidSeen, or as raw bytes) plus
// any frames to pipeline behind it in the same write, and returns the
// decoded ConnectResponse. After that one reader goroutine delivers every
// incoming frame, replies and notifications alike, in wire order.
//
// Requests go out with Do (any opcode, any xid, a jute record or raw body
// bytes) or SendRaw (arbitrary bytes: malformed frames, bogus length
// prefixes, several frames in one write). The typed helpers (Create,
// GetData, Multi, AddWatch, ...) are thin wrappers over Call, which sends a
// request with the next xid and waits for the reply carrying that xid;
// notifications that arrive meanwhile are kept in order for Next.
//
// Error replies become a *ServerError, which matches the proto.ErrCode
// with errors.Is and keeps the reply header for zxid checks.
package zkwire
