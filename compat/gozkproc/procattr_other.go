//go:build !linux

package gozkproc

import "os/exec"

// setProcAttr has nothing to add outside Linux.
func setProcAttr(cmd *exec.Cmd) {}
