//go:build !linux

package netio

// claimAddr leaves the address to gnet: only Linux's SO_REUSEPORT spreads
// connections over several listeners (see claim_linux.go).
func claimAddr(addr string) (listenAddr string, reusePort bool, release func(), err error) {
	return addr, false, func() {}, nil
}
