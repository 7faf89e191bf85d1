package conf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseProperties(t *testing.T) {
	in := "# comment\n! also\n  a=1\nb : 2\nc 3\nd=x\\\n   y\ne=tab\\there\nf=\\u0041\\\\z\n\ng=last\ng=wins\nh=\n"
	props, err := ParseProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1", "b": "2", "c": "3", "d": "xy", "e": "tab\there", "f": "A\\z", "g": "wins", "h": ""}
	got := map[string]string{}
	for _, p := range props {
		got[p.Key] = p.Value
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if props[0].Line != 3 || props[3].Line != 6 {
		t.Errorf("line numbers: %+v", props[:4])
	}
}

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "zoo.cfg")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadStandalone(t *testing.T) {
	p := write(t, "tickTime=2000\ndataDir=/var/lib/zk\nclientPort=2181\nclientPortAddress=127.0.0.1\n"+
		"maxClientCnxns=10\nskipACL=yes\njute.maxbuffer=2000000\nextendedTypesEnabled=true\n"+
		"znode.container.checkIntervalMs=500\nDigestAuthenticationProvider.superDigest=super:abc\n")
	c, err := Load(p, "-Dzookeeper.enforceQuota=true -Xmx1g -Djute.maxbuffer=5")
	if err != nil {
		t.Fatal(err)
	}
	if c.TickTime != 2*time.Second || c.DataDir != "/var/lib/zk" || c.ClientAddr() != "127.0.0.1:2181" ||
		c.MaxClientCnxns != 10 || !c.SkipACL || c.JuteMaxBuffer != 2000000 || !c.ExtendedTypesEnabled ||
		c.ContainerCheckInterval != 500*time.Millisecond || c.SuperDigest != "super:abc" || !c.EnforceQuota {
		t.Fatalf("%+v", c)
	}
}

// TestLoadDefaultsAppliesJVMFlags: without a zoo.cfg, the -D flags of
// SERVER_JVMFLAGS/JVMFLAGS still apply to the built-in defaults.
func TestLoadDefaultsAppliesJVMFlags(t *testing.T) {
	c, err := LoadDefaults("-Xmx1g -Djute.maxbuffer=4194304 -Dzookeeper.4lw.commands.whitelist=* " +
		"-Dzookeeper.admin.serverPort=9090 -Dzookeeper.snapCount=500 -Dzookeeper.forceSync=no")
	if err != nil {
		t.Fatal(err)
	}
	if c.JuteMaxBuffer != 4194304 || c.FourLetterWhitelist != "*" || c.AdminServerPort != 9090 ||
		c.SnapCount != 500 || c.ForceSync {
		t.Fatalf("flags not applied: jute.maxbuffer %d, whitelist %q, admin port %d, snapCount %d, forceSync %v",
			c.JuteMaxBuffer, c.FourLetterWhitelist, c.AdminServerPort, c.SnapCount, c.ForceSync)
	}
	if c.ClientAddr() != "127.0.0.1:2181" || c.DataDir != "data" || c.File != "" {
		t.Fatalf("defaults changed: %s %s %q", c.ClientAddr(), c.DataDir, c.File)
	}
	if c, err := LoadDefaults(""); err != nil || c.JuteMaxBuffer != Defaults().JuteMaxBuffer {
		t.Fatalf("no flags: %v %+v", err, c)
	}
	_, err = LoadDefaults("-Djute.maxbuffer=0")
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), JVMFlagsSource) || !strings.Contains(err.Error(), "jute.maxbuffer") {
		t.Fatalf("bad flag: %v", err)
	}
}

func TestLoadErrorsNameLineAndKey(t *testing.T) {
	cases := []struct{ cfg, want string }{
		{"dataDir=/d\nclientPort=2181\ntickTime=abc\n", ":3: tickTime:"},
		{"clientPort=2181\n", "dataDir is not set"},
		{"dataDir=/d\nclientPort=2181\nstandaloneEnabled=maybe\n", ":3: standaloneEnabled:"},
		{"dataDir=/d\nclientPort=2181\nminSessionTimeout=9000\nmaxSessionTimeout=4000\n", ":3: minSessionTimeout:"},
		{"dataDir=/d\nclientPortAddress=1.2.3.4\n", "clientPort is not"},
		{"dataDir=/d\nclientPort=99999\n", "clientPort"},
		{"dataDir=/d\nclientPort=2181\nserver.1=a:1:2\nserver.2=b:1:2\n", ": initLimit: initLimit is not set"},
		{"dataDir=/d\nclientPort=2181\ninitLimit=1\nsyncLimit=1\nserver.1=a:1:2\nserver.2=b:1:2:x\n", ":6: server.2:"},
		{"dataDir=/d\nclientPort=2181\nnio.numSelectorThreads=0\n", ":3: nio.numSelectorThreads: numSelectorThreads must be at least 1"},
	}
	for _, c := range cases {
		_, err := Load(write(t, c.cfg), "")
		var ce *Error
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %q: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}

func TestAdminMetricsAutopurge(t *testing.T) {
	c, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if !c.AdminEnableServer || c.AdminServerAddress != "0.0.0.0" || c.AdminServerPort != 8080 ||
		c.AdminCommandURL != "/commands" || c.AdminIdleTimeout != 30*time.Second ||
		c.MetricsProviderClassName != DefaultMetricsProviderClass || c.PrometheusEnabled() ||
		c.MetricsHTTPHost != "0.0.0.0" || c.MetricsHTTPPort != 7000 || !c.MetricsExportJVMInfo ||
		c.AutopurgeSnapRetainCount != 3 || c.AutopurgeInterval != 0 {
		t.Fatalf("defaults: %+v", c)
	}
	c, err = Load(write(t, "dataDir=/d\nclientPort=2181\nadmin.enableServer=false\nadmin.serverAddress=127.0.0.1\n"+
		"admin.serverPort=9090\nadmin.commandURL=/cmd\nadmin.idleTimeout=5000\n"+
		"metricsProvider.className="+PrometheusMetricsProviderClass+"\nmetricsProvider.httpHost=127.0.0.1\n"+
		"metricsProvider.httpPort=7070\nmetricsProvider.exportJvmInfo=false\n"+
		"autopurge.snapRetainCount=1\nautopurge.purgeInterval=24\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.AdminEnableServer || c.AdminServerAddress != "127.0.0.1" || c.AdminServerPort != 9090 ||
		c.AdminCommandURL != "/cmd" || c.AdminIdleTimeout != 5*time.Second || !c.PrometheusEnabled() ||
		c.MetricsHTTPHost != "127.0.0.1" || c.MetricsHTTPPort != 7070 || c.MetricsExportJVMInfo ||
		c.AutopurgeSnapRetainCount != 3 || c.AutopurgeInterval != 24*time.Hour {
		t.Fatalf("set: %+v", c)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], ":12: autopurge.snapRetainCount:") {
		t.Fatalf("warnings: %q", c.Warnings)
	}
	for _, bad := range []string{"autopurge.purgeInterval=x\n", "autopurge.snapRetainCount=x\n",
		"metricsProvider.className=" + PrometheusMetricsProviderClass + "\nmetricsProvider.httpPort=x\n"} {
		if _, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"+bad), ""); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
}

// TestExampleConfig loads conf/zoo.cfg.example as shipped, and again with
// every documented standalone key uncommented, which must load without a
// warning: the example documents what gozk reads.
func TestExampleConfig(t *testing.T) {
	data, err := os.ReadFile("zoo.cfg.example")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text := strings.ReplaceAll(string(data), "dataDir=/var/lib/zookeeper", "dataDir="+dir)
	c, err := Load(write(t, text), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.TickTime != 2*time.Second || c.ClientPort != 2181 || len(c.Warnings) != 0 {
		t.Fatalf("%+v %q", c, c.Warnings)
	}
	var all []string
	keys := 0
	for _, line := range strings.Split(text, "\n") {
		if k, ok := strings.CutPrefix(line, "#"); ok && len(k) > 0 && strings.Contains(k, "=") && !strings.ContainsAny(k[:1], " #-") {
			key, _, _ := strings.Cut(k, "=")
			if strings.HasPrefix(key, "server.") || strings.HasPrefix(key, "group.") || strings.HasPrefix(key, "weight.") ||
				key == "dynamicConfigFile" || strings.Contains(k, "<") {
				continue
			}
			line = k
			keys++
		}
		all = append(all, line)
	}
	c, err = Load(write(t, strings.Join(all, "\n")), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 || keys < 80 {
		t.Fatalf("%d keys, warnings %q", keys, c.Warnings)
	}
}

func TestDataDirAutocreate(t *testing.T) {
	c, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"), "-Dzookeeper.datadir.autocreate=false")
	if err != nil || c.DataDirAutocreate {
		t.Fatalf("%v %+v", err, c)
	}
	if d := Defaults(); !d.DataDirAutocreate || d.MinSessionTimeout != 4000 || d.MaxSessionTimeout != 40000 {
		t.Fatalf("defaults %+v", d)
	}
}

func TestNumSelectorThreads(t *testing.T) {
	cases := []struct {
		cfg, flags string
		want       int
	}{
		{"", "", 0},
		{"nio.numSelectorThreads=3\n", "", 3},
		{"", "-Dzookeeper.nio.numSelectorThreads=2", 2},
		// Integer.getInteger falls back to the default on a bad number.
		{"nio.numSelectorThreads=many\n", "", 0},
	}
	for _, c := range cases {
		cfg, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"+c.cfg), c.flags)
		if err != nil {
			t.Fatalf("%q %q: %v", c.cfg, c.flags, err)
		}
		if cfg.NumSelectorThreads != c.want {
			t.Errorf("%q %q: NumSelectorThreads %d, want %d", c.cfg, c.flags, cfg.NumSelectorThreads, c.want)
		}
	}
}

// TestTLSHandshakeLimit: zookeeper.netty.server.outstandingHandshake.limit
// from -D or zoo.cfg (which wins); none by default; a value that is not
// a number is warned about and leaves none, as Integer.getInteger does.
func TestTLSHandshakeLimit(t *testing.T) {
	cases := []struct {
		cfg, flags string
		want       int
		warned     bool
	}{
		{"", "", -1, false},
		{"", "-Dzookeeper.netty.server.outstandingHandshake.limit=250", 250, false},
		{"netty.server.outstandingHandshake.limit=10\n", "-Dzookeeper.netty.server.outstandingHandshake.limit=250", 10, false},
		{"netty.server.outstandingHandshake.limit=many\n", "", -1, true},
	}
	for _, c := range cases {
		cfg, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"+c.cfg), c.flags)
		if err != nil {
			t.Fatalf("%q %q: %v", c.cfg, c.flags, err)
		}
		if cfg.TLSHandshakeLimit != c.want {
			t.Errorf("%q %q: TLSHandshakeLimit %d, want %d", c.cfg, c.flags, cfg.TLSHandshakeLimit, c.want)
		}
		if warned := strings.Contains(strings.Join(cfg.Warnings, "\n"), "not a number"); warned != c.warned {
			t.Errorf("%q %q: warned %v, want %v: %q", c.cfg, c.flags, warned, c.warned, cfg.Warnings)
		}
	}
}

// TestEarlyDropSecureHandshakes: the Java system property, from -D or
// zoo.cfg; off by default.
func TestEarlyDropSecureHandshakes(t *testing.T) {
	for _, c := range []struct {
		cfg, flags string
		want       bool
	}{
		{"", "", false},
		{"", "-Dzookeeper.netty.server.earlyDropSecureConnectionHandshakes=true", true},
		{"netty.server.earlyDropSecureConnectionHandshakes=TRUE\n", "", true},
		{"netty.server.earlyDropSecureConnectionHandshakes=false\n", "-Dzookeeper.netty.server.earlyDropSecureConnectionHandshakes=true", false},
	} {
		cfg, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"+c.cfg), c.flags)
		if err != nil {
			t.Fatalf("%q %q: %v", c.cfg, c.flags, err)
		}
		if cfg.EarlyDropSecureHandshakes != c.want {
			t.Errorf("%q %q: EarlyDropSecureHandshakes %v, want %v", c.cfg, c.flags, cfg.EarlyDropSecureHandshakes, c.want)
		}
	}
}

func TestSessionlessCnxnTimeout(t *testing.T) {
	cases := []struct {
		cfg, flags string
		want       time.Duration
		warned     bool
	}{
		{"", "", 10 * time.Second, false},
		{"", "-Dzookeeper.nio.sessionlessCnxnTimeout=250", 250 * time.Millisecond, false},
		// zoo.cfg keys become zookeeper.* system properties, and win.
		{"nio.sessionlessCnxnTimeout=3000\n", "-Dzookeeper.nio.sessionlessCnxnTimeout=250", 3 * time.Second, false},
		{"nio.sessionlessCnxnTimeout=soon\n", "", 10 * time.Second, true},
		{"", "-Dzookeeper.nio.sessionlessCnxnTimeout=0", 10 * time.Second, true},
	}
	for _, c := range cases {
		cfg, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"+c.cfg), c.flags)
		if err != nil {
			t.Fatalf("%q %q: %v", c.cfg, c.flags, err)
		}
		if cfg.SessionlessCnxnTimeout != c.want {
			t.Errorf("%q %q: SessionlessCnxnTimeout %v, want %v", c.cfg, c.flags, cfg.SessionlessCnxnTimeout, c.want)
		}
		if warned := strings.Contains(strings.Join(cfg.Warnings, "\n"), "sessionlessCnxnTimeout"); warned != c.warned {
			t.Errorf("%q %q: warned %v, want %v: %q", c.cfg, c.flags, warned, c.warned, cfg.Warnings)
		}
	}
}
