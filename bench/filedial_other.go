//go:build !linux

package bench

// fileDialer opens the sessions of the connect workload; elsewhere than
// on Linux with net.Dial (see filedial_linux.go).
type fileDialer struct{ addr string }

func newFileDialer(addr string) (*fileDialer, error) { return &fileDialer{addr: addr}, nil }

func (d *fileDialer) dial(o dialOptions) (*conn, error) { return dial(d.addr, o) }
