//go:build !linux

package javazk

import "os/exec"

// setProcAttr has nothing to add outside Linux: there is no portable way
// to tie the JVM's life to the test process.
func setProcAttr(cmd *exec.Cmd) {}
