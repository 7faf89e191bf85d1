package bench

import (
	"os/exec"
	"syscall"
)

// setProcAttr has the kernel kill a started server when this process dies,
// so an interrupted comparison leaves no servers behind.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
