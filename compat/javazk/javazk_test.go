package javazk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigRender(t *testing.T) {
	got := Config{DataDir: "/d", Port: 1234, Extra: []string{"extendedTypesEnabled=true"}}.Render()
	for _, line := range []string{
		"tickTime=2000", "dataDir=/d", "clientPort=1234", "clientPortAddress=127.0.0.1",
		"4lw.commands.whitelist=*", "admin.enableServer=false", "extendedTypesEnabled=true",
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("zoo.cfg lacks %q:\n%s", line, got)
		}
	}
	admin := Config{DataDir: "/d", Port: 1, AdminPort: 2, TickTime: 500}.Render()
	for _, line := range []string{"tickTime=500", "admin.enableServer=true", "admin.serverPort=2", "admin.serverAddress=127.0.0.1"} {
		if !strings.Contains(admin, line+"\n") {
			t.Errorf("zoo.cfg with AdminServer lacks %q:\n%s", line, admin)
		}
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestLookupDebianLayout(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"zookeeper.jar", "zookeeper-jute.jar", "slf4j-simple.jar", "unrelated.jar"} {
		touch(t, filepath.Join(dir, f))
	}
	java := filepath.Join(dir, "java")
	touch(t, java)
	t.Setenv(EnvJava, java)
	t.Setenv(EnvLibDir, dir)
	t.Setenv(EnvClasspath, "")
	inst, err := Lookup()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "zookeeper.jar"), filepath.Join(dir, "zookeeper-jute.jar")}
	if strings.Join(inst.Classpath, ":") != strings.Join(want, ":") || inst.Java != java {
		t.Errorf("Lookup = %+v, want class path %v", inst, want)
	}
	if inst.LogBinding != filepath.Join(dir, "slf4j-simple.jar") {
		t.Errorf("LogBinding = %q", inst.LogBinding)
	}
}

func TestLookupReleaseLayout(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"zookeeper-3.8.0.jar", "zookeeper-jute-3.8.0.jar", "netty-handler-4.1.jar", "slf4j-simple-1.7.jar"} {
		touch(t, filepath.Join(dir, f))
	}
	java := filepath.Join(dir, "java")
	touch(t, java)
	t.Setenv(EnvJava, java)
	t.Setenv(EnvLibDir, dir)
	t.Setenv(EnvClasspath, "")
	inst, err := Lookup()
	if err != nil {
		t.Fatal(err)
	}
	if len(inst.Classpath) != 3 || !strings.HasSuffix(inst.LogBinding, "slf4j-simple-1.7.jar") {
		t.Errorf("Lookup = %+v", inst)
	}
}

func TestLookupMissing(t *testing.T) {
	t.Setenv(EnvJava, filepath.Join(t.TempDir(), "no-java"))
	if _, err := Lookup(); err == nil {
		t.Fatal("Lookup found a java that does not exist")
	}
	java := filepath.Join(t.TempDir(), "java")
	touch(t, java)
	t.Setenv(EnvJava, java)
	t.Setenv(EnvLibDir, t.TempDir())
	t.Setenv(EnvClasspath, "")
	if _, err := Lookup(); err == nil {
		t.Fatal("Lookup found ZooKeeper in an empty directory")
	}
}

// TestStartSkipsWithoutJava checks that a machine without the oracle
// skips rather than fails, which keeps "go test ./..." Java-free.
func TestStartSkipsWithoutJava(t *testing.T) {
	t.Setenv(EnvJava, filepath.Join(t.TempDir(), "no-java"))
	t.Setenv(EnvRequireJava, "")
	started := false
	t.Run("start", func(t *testing.T) {
		Start(t, Options{})
		started = true
	})
	if started {
		t.Fatal("Start returned although java is missing")
	}
}
