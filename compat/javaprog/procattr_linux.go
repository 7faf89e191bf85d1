package javaprog

import (
	"os/exec"
	"syscall"
)

// setProcAttr asks the kernel to kill the JVM when the test process dies,
// so that a test binary killed by a timeout leaves no client behind.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
