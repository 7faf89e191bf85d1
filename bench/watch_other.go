//go:build !linux

package bench

import "time"

func newWatchFleet(conns []*conn, node string, _ time.Duration) (watchFleet, error) {
	return newGoFleet(conns, node), nil
}
