// Package fle is Apache ZooKeeper's fast leader election, as spoken on the
// election port by ZooKeeper 3.8 servers, so that gozk and Java servers
// elect their leader together in one ensemble.
//
// This file set holds the wire format, apart from any I/O:
//
//   - the initial message a server sends on each election connection it
//     opens (InitialMessage: protocol version, its server id, its
//     election addresses), and the rule that only the connection opened
//     by the server with the larger id is kept (KeepsConnection);
//   - the length-prefixed frames that follow on the connection
//     (AppendFrame, ReadFrame), bounded as Java bounds them;
//   - the notification each frame carries (Notification): a server's
//     state, the vote it casts (leader, zxid, peer epoch), its election
//     round and, from version 2 on, its quorum configuration. Decoding
//     accepts every size Java accepts, including the 28- and 40-byte
//     notifications of servers older than 3.4 and 3.5.
//
// Every decoder is bounded and returns an error naming what is wrong;
// none panics on any input (fuzzed).
package fle
