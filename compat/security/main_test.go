//go:build interop

package security

import (
	"os"
	"testing"

	"github.com/gozk/gozk/compat/gozkproc"
)

// TestMain removes the gozk binary gozkproc builds when GOZK_BIN is unset.
func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }
