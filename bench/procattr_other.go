//go:build !linux

package bench

import "os/exec"

// setProcAttr has nothing portable to add outside Linux.
func setProcAttr(cmd *exec.Cmd) {}
