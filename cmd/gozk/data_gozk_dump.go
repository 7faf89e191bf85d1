package main

import "fmt"

// dumpGozkLog prints the txns of gozk's own store in dir.
func dumpGozkLog(d *txnDumper, dir string, from int64) error {
	return fmt.Errorf("%s: reading gozk's store is not wired yet", dir)
}

// loadGozkSnapshot reads the newest snapshot of gozk's store in dir.
func loadGozkSnapshot(dir string) (*snapshotDump, error) {
	return nil, fmt.Errorf("%s: reading gozk's store is not wired yet", dir)
}
