package gozkproc

import (
	"os/exec"
	"syscall"
)

// setProcAttr asks the kernel to kill the server when the test process
// dies, so that a test binary killed by a timeout leaves no server behind.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
