package javazk

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultLibDir is where Debian's zookeeper package puts its jars.
const DefaultLibDir = "/usr/share/java"

// Environment variables that override where Java and ZooKeeper are found.
const (
	EnvJava        = "GOZK_JAVA"
	EnvClasspath   = "GOZK_ZOOKEEPER_CLASSPATH"
	EnvLibDir      = "GOZK_ZOOKEEPER_LIB"
	EnvRequireJava = "GOZK_REQUIRE_JAVA"
	EnvLog         = "GOZK_JAVA_LOG"
)

// InstallHint says how to get the oracle on a Debian-like machine.
const InstallHint = "apt-get install -y zookeeper zookeeper-bin default-jdk-headless"

// ErrUnavailable means java or the ZooKeeper jars could not be found.
var ErrUnavailable = errors.New("javazk: Apache ZooKeeper is not available")

// Installation is a java binary and a class path holding ZooKeeper.
type Installation struct {
	Java      string
	Classpath []string
	// LogBinding is the slf4j-simple jar used when logging is wanted, or
	// "" when none was found.
	LogBinding string
	// ServletAPI is the javax.servlet jar the AdminServer (Jetty) needs at
	// run time, added to the class path only when the AdminServer is on;
	// "" when none was found. Debian's zookeeper.jar manifest does not
	// name it, so without it the AdminServer fails to start.
	ServletAPI string
}

// Lookup finds java and the ZooKeeper jars (see the package comment). The
// error wraps ErrUnavailable and says what was missing.
func Lookup() (Installation, error) {
	var inst Installation
	java, err := findJava()
	if err != nil {
		return inst, err
	}
	inst.Java = java

	if cp := os.Getenv(EnvClasspath); cp != "" {
		inst.Classpath = filepath.SplitList(cp)
		return inst, nil
	}
	dir := os.Getenv(EnvLibDir)
	if dir == "" {
		dir = DefaultLibDir
	}
	if binding := filepath.Join(dir, "slf4j-simple.jar"); fileExists(binding) {
		inst.LogBinding = binding
	}
	if servlet := filepath.Join(dir, "servlet-api.jar"); fileExists(servlet) {
		inst.ServletAPI = servlet
	}
	// Debian: zookeeper.jar's manifest Class-Path names its dependencies
	// by absolute path, so the two ZooKeeper jars are enough; adding the
	// whole of /usr/share/java would drag in conflicting versions.
	if main := filepath.Join(dir, "zookeeper.jar"); fileExists(main) {
		inst.Classpath = []string{main}
		if jute := filepath.Join(dir, "zookeeper-jute.jar"); fileExists(jute) {
			inst.Classpath = append(inst.Classpath, jute)
		}
		return inst, nil
	}
	// An Apache binary release's lib/: every jar belongs to ZooKeeper.
	jars, _ := filepath.Glob(filepath.Join(dir, "*.jar"))
	sort.Strings(jars)
	hasZK := false
	for _, j := range jars {
		base := filepath.Base(j)
		if strings.HasPrefix(base, "zookeeper-3.") && !strings.HasPrefix(base, "zookeeper-jute") {
			hasZK = true
		}
		if strings.HasPrefix(base, "slf4j-simple") {
			inst.LogBinding = j
			continue
		}
		if strings.HasPrefix(base, "javax.servlet-api") || strings.HasPrefix(base, "servlet-api") {
			inst.ServletAPI = j
		}
		inst.Classpath = append(inst.Classpath, j)
	}
	if !hasZK {
		return inst, fmt.Errorf("%w: no zookeeper.jar in %s (set %s or %s, or %s)",
			ErrUnavailable, dir, EnvLibDir, EnvClasspath, InstallHint)
	}
	return inst, nil
}

func findJava() (string, error) {
	if j := os.Getenv(EnvJava); j != "" {
		if !fileExists(j) {
			return "", fmt.Errorf("%w: %s=%s does not exist", ErrUnavailable, EnvJava, j)
		}
		return j, nil
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		if j := filepath.Join(home, "bin", "java"); fileExists(j) {
			return j, nil
		}
	}
	j, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: java is not on PATH (set %s or JAVA_HOME, or %s)", ErrUnavailable, EnvJava, InstallHint)
	}
	return j, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// JavaRequired reports whether GOZK_REQUIRE_JAVA asks for a missing
// oracle to fail tests rather than skip them.
func JavaRequired() bool {
	v := os.Getenv(EnvRequireJava)
	return v != "" && v != "0" && v != "false"
}
