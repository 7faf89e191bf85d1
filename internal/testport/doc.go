// Package testport hands out loopback TCP ports for servers that tests
// and benchmarks start and that bind the port themselves later (Java
// servers, gozk processes, ensemble members named in a zoo.cfg).
//
// A port that was merely free a moment ago can be taken before the
// server binds it: by the source port of an outgoing connection when it
// lies in the kernel's ephemeral range, or by another test binary that
// `go test` runs at the same time and that picked the same port. Ports
// here come from below the ephemeral range, and each is reserved for the
// life of the process with an advisory lock on a file named after it in
// the system's temporary directory, which every gozk test binary honours.
//
// Refusing hands out a port held bound and refusing dials, for tests of a
// server address that cannot be used.
package testport
