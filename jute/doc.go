// Package jute implements the jute binary encoding that ZooKeeper uses for
// every record on the client wire, in the transaction log, in snapshots and
// between quorum peers.
//
// The encoding is big-endian and untagged: a record is its fields
// concatenated. Buffers, strings and vectors carry a 32-bit length where -1
// means null, which is distinct from empty.
//
// Reader is bounded: every length and count is checked against the bytes
// that remain and against the configured jute.maxbuffer before anything is
// allocated, and a violation becomes a *DecodeError naming the field. Reader
// keeps the first error (a "sticky" error) so generated decoders stay
// straight-line code; callers check Err once at the end.
//
// Writer appends to a byte slice that can be reused across records, so
// encoding into a warmed-up Writer allocates nothing.
//
// Strings follow Java's jute encoding: each UTF-16 code unit is written on
// its own, so characters outside the Basic Multilingual Plane travel as two
// three-byte surrogate sequences (CESU-8). Reader turns such pairs back into
// ordinary UTF-8, Writer produces them, and everything else passes through
// byte for byte.
//
// The code generator in jute/cmd/jutegen turns a .jute IDL file into Go
// types with Encode and Decode methods built on this package.
package jute
