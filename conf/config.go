package conf

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is a parsed zoo.cfg plus the -D system properties in effect.
type Config struct {
	File string // the zoo.cfg path, "" for the built-in defaults

	ClientPort             int
	ClientPortAddress      string
	DataDir                string
	DataLogDir             string
	TickTime               time.Duration
	MinSessionTimeout      int32 // ms, 0 = 2 x tickTime
	MaxSessionTimeout      int32 // ms, 0 = 20 x tickTime
	MaxClientCnxns         int
	MaxCnxns               int
	GlobalOutstandingLimit int
	SnapCount              int
	SkipACL                bool
	ForceSync              bool
	FsyncWarning           time.Duration
	JuteMaxBuffer          int
	JuteMaxBufferExtra     int // -1 = same as JuteMaxBuffer
	ExtendedTypesEnabled   bool
	ContainerCheckInterval time.Duration
	ContainerMaxPerMinute  int
	ContainerMaxNeverUsed  time.Duration
	EnforceQuota           bool
	SuperDigest            string
	DigestAuthEnabled      bool
	DigestAlg              string
	DigestEnabled          bool
	ReconfigEnabled        bool
	StandaloneEnabled      bool
	FourLetterWhitelist    string
	AuthProviders          []string
	EnforceAuthEnabled     bool     // zookeeper.enforce.auth.enabled
	EnforceAuthSchemes     []string // zookeeper.enforce.auth.schemes
	RequireClientSASLAuth  bool     // zookeeper.sessionRequireClientSASLAuth

	// AdminEnableServer is admin.enableServer: the AdminServer runs unless
	// it is exactly "false" (Java 3.8).
	AdminEnableServer bool
	// AdminServerAddress is admin.serverAddress, the AdminServer's bind
	// address (default 0.0.0.0).
	AdminServerAddress string
	// AdminServerPort is admin.serverPort (default 8080).
	AdminServerPort int
	// AdminCommandURL is admin.commandURL, the URL prefix of the commands
	// (default /commands).
	AdminCommandURL string
	// AdminIdleTimeout is admin.idleTimeout (ms in zoo.cfg, default 30000).
	AdminIdleTimeout time.Duration

	// MetricsProviderClassName is metricsProvider.className; the Prometheus
	// provider is PrometheusMetricsProviderClass.
	MetricsProviderClassName string
	// MetricsHTTPHost is metricsProvider.httpHost, the Prometheus endpoint's
	// bind address (default 0.0.0.0).
	MetricsHTTPHost string
	// MetricsHTTPPort is metricsProvider.httpPort (default 7000).
	MetricsHTTPPort int
	// MetricsExportJVMInfo is metricsProvider.exportJvmInfo (default true;
	// gozk exports Go runtime metrics in its place).
	MetricsExportJVMInfo bool

	// AutopurgeSnapRetainCount is autopurge.snapRetainCount: snapshots (and
	// the logs needed to replay them) to keep; at least 3.
	AutopurgeSnapRetainCount int
	// AutopurgeInterval is autopurge.purgeInterval (hours in zoo.cfg); 0
	// (or negative) turns autopurge off.
	AutopurgeInterval time.Duration

	// Warnings are settings Java accepts with a warning (a value raised to
	// its minimum, ...), each "file:line: key: message".
	Warnings []string

	// Properties holds every key as given (zoo.cfg keys and -D flags), for
	// the conf and envi commands and for later features.
	Properties map[string]Property
	// Servers lists the server.N lines; gozk serves standalone only when
	// there is at most one participant and standaloneEnabled holds.
	Servers map[string]Property
}

// Defaults is what `gozk server` runs with when no zoo.cfg is given:
// standalone on 127.0.0.1:2181 with its data in ./data.
func Defaults() *Config {
	return &Config{
		ClientPort:             2181,
		ClientPortAddress:      "127.0.0.1",
		DataDir:                "data",
		TickTime:               2000 * time.Millisecond,
		MaxClientCnxns:         60,
		GlobalOutstandingLimit: 1000,
		SnapCount:              100000,
		ForceSync:              true,
		FsyncWarning:           time.Second,
		JuteMaxBuffer:          0xfffff,
		JuteMaxBufferExtra:     -1,
		ContainerCheckInterval: time.Minute,
		ContainerMaxPerMinute:  10000,
		DigestAuthEnabled:      true,
		DigestAlg:              "SHA1",
		DigestEnabled:          true,
		StandaloneEnabled:      true,
		FourLetterWhitelist:    "srvr",
		Properties:             map[string]Property{},
		Servers:                map[string]Property{},

		AdminEnableServer:        true,
		AdminServerAddress:       "0.0.0.0",
		AdminServerPort:          8080,
		AdminCommandURL:          "/commands",
		AdminIdleTimeout:         30 * time.Second,
		MetricsProviderClassName: DefaultMetricsProviderClass,
		MetricsHTTPHost:          "0.0.0.0",
		MetricsHTTPPort:          7000,
		MetricsExportJVMInfo:     true,
		AutopurgeSnapRetainCount: 3,
	}
}

// The metricsProvider.className values Java 3.8 ships.
const (
	DefaultMetricsProviderClass    = "org.apache.zookeeper.metrics.impl.DefaultMetricsProvider"
	PrometheusMetricsProviderClass = "org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider"
)

// PrometheusEnabled reports whether metricsProvider.className selects the
// Prometheus provider (the /metrics endpoint on MetricsHTTPHost:Port).
func (c *Config) PrometheusEnabled() bool {
	return c.MetricsProviderClassName == PrometheusMetricsProviderClass
}

// Error is a configuration mistake with its place.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
	case e.Key != "":
		return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load reads a zoo.cfg and applies the -D flags found in jvmFlags (the
// contents of SERVER_JVMFLAGS and JVMFLAGS), which zoo.cfg overrides as in
// Java.
func Load(path string, jvmFlags string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	props, err := ParseProperties(f)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	c := Defaults()
	c.File = path
	c.ClientPort = 0
	c.ClientPortAddress = ""
	c.DataDir = ""
	c.TickTime = 3000 * time.Millisecond
	for _, p := range SystemProperties(jvmFlags) {
		c.Properties[p.Key] = p
	}
	for _, p := range props {
		if strings.HasPrefix(p.Key, "server.") {
			c.Servers[p.Key] = p
			continue
		}
		c.Properties[p.Key] = p
	}
	if err := c.apply(); err != nil {
		return nil, err
	}
	return c, nil
}

// SystemProperties extracts -Dkey=value flags from a JVM flag string.
func SystemProperties(flags string) []Property {
	var out []Property
	for _, f := range strings.Fields(flags) {
		if !strings.HasPrefix(f, "-D") {
			continue
		}
		kv := strings.TrimPrefix(f, "-D")
		k, v, _ := strings.Cut(kv, "=")
		out = append(out, Property{Key: k, Value: v})
	}
	return out
}

// lookup finds a setting under its zoo.cfg name or its system property
// name (zookeeper.<key>), zoo.cfg's own spelling first.
func (c *Config) lookup(keys ...string) (Property, bool) {
	for _, k := range keys {
		if p, ok := c.Properties[k]; ok {
			return p, true
		}
		if p, ok := c.Properties["zookeeper."+k]; ok {
			return p, true
		}
	}
	return Property{}, false
}

func (c *Config) errorAt(p Property, msg string, args ...any) error {
	return &Error{File: c.File, Line: p.Line, Key: p.Key, Msg: fmt.Sprintf(msg, args...)}
}

func (c *Config) intSetting(dst *int, keys ...string) error {
	p, ok := c.lookup(keys...)
	if !ok {
		return nil
	}
	v, err := strconv.ParseInt(p.Value, 10, 32)
	if err != nil {
		return c.errorAt(p, "%q is not a whole number", p.Value)
	}
	*dst = int(v)
	return nil
}

func (c *Config) msSetting(dst *time.Duration, keys ...string) error {
	var v int
	p, ok := c.lookup(keys...)
	if !ok {
		return nil
	}
	if err := c.intSetting(&v, keys...); err != nil {
		return err
	}
	if v < 0 {
		return c.errorAt(p, "%q must not be negative", p.Value)
	}
	*dst = time.Duration(v) * time.Millisecond
	return nil
}

// boolSetting parses true/false strictly, as ZooKeeper's config parser
// does for its own keys.
func (c *Config) boolSetting(dst *bool, keys ...string) error {
	p, ok := c.lookup(keys...)
	if !ok {
		return nil
	}
	switch strings.ToLower(p.Value) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		return c.errorAt(p, "%q is not true or false", p.Value)
	}
	return nil
}

// yesNoSetting reads skipACL and forceSync, which Java compares with
// "yes" and "no".
func (c *Config) yesNoSetting(dst *bool, keys ...string) error {
	p, ok := c.lookup(keys...)
	if !ok {
		return nil
	}
	switch strings.ToLower(p.Value) {
	case "yes", "true":
		*dst = true
	case "no", "false":
		*dst = false
	default:
		return c.errorAt(p, "%q is not yes or no", p.Value)
	}
	return nil
}

func (c *Config) apply() error {
	steps := []func() error{
		func() error { return c.intSetting(&c.ClientPort, "clientPort") },
		func() error { return c.msSetting(&c.TickTime, "tickTime") },
		func() error { return c.intSetting(&c.MaxClientCnxns, "maxClientCnxns") },
		func() error { return c.intSetting(&c.MaxCnxns, "maxCnxns") },
		func() error { return c.intSetting(&c.GlobalOutstandingLimit, "globalOutstandingLimit") },
		func() error { return c.intSetting(&c.SnapCount, "snapCount") },
		func() error { return c.yesNoSetting(&c.SkipACL, "skipACL") },
		func() error { return c.yesNoSetting(&c.ForceSync, "forceSync") },
		func() error { return c.msSetting(&c.FsyncWarning, "fsync.warningthresholdms") },
		func() error { return c.intSetting(&c.JuteMaxBuffer, "jute.maxbuffer") },
		func() error { return c.intSetting(&c.JuteMaxBufferExtra, "jute.maxbuffer.extrasize") },
		func() error { return c.boolSetting(&c.ExtendedTypesEnabled, "extendedTypesEnabled") },
		func() error { return c.msSetting(&c.ContainerCheckInterval, "znode.container.checkIntervalMs") },
		func() error { return c.intSetting(&c.ContainerMaxPerMinute, "znode.container.maxPerMinute") },
		func() error { return c.msSetting(&c.ContainerMaxNeverUsed, "znode.container.maxNeverUsedIntervalMs") },
		func() error { return c.boolSetting(&c.EnforceQuota, "enforceQuota") },
		func() error { return c.boolSetting(&c.DigestAuthEnabled, "DigestAuthenticationProvider.enabled") },
		func() error { return c.boolSetting(&c.DigestEnabled, "digest.enabled") },
		func() error { return c.boolSetting(&c.ReconfigEnabled, "reconfigEnabled") },
		func() error { return c.boolSetting(&c.StandaloneEnabled, "standaloneEnabled") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	if err := c.applyAdminMetricsPurge(); err != nil {
		return err
	}
	var minTO, maxTO int
	if err := c.intSetting(&minTO, "minSessionTimeout"); err != nil {
		return err
	}
	if err := c.intSetting(&maxTO, "maxSessionTimeout"); err != nil {
		return err
	}
	c.MinSessionTimeout, c.MaxSessionTimeout = int32(minTO), int32(maxTO)
	if p, ok := c.lookup("clientPortAddress"); ok {
		c.ClientPortAddress = p.Value
		if _, has := c.lookup("clientPort"); !has {
			return c.errorAt(p, "clientPortAddress is set but clientPort is not")
		}
	}
	if p, ok := c.lookup("DigestAuthenticationProvider.superDigest", "superDigest"); ok {
		c.SuperDigest = p.Value
	}
	if p, ok := c.lookup("DigestAuthenticationProvider.digestAlg"); ok {
		c.DigestAlg = p.Value
	}
	// Java reads these with Boolean.parseBoolean: anything but "true" is
	// false.
	if p, ok := c.lookup("enforce.auth.enabled"); ok {
		c.EnforceAuthEnabled = strings.EqualFold(p.Value, "true")
	}
	if p, ok := c.lookup("sessionRequireClientSASLAuth"); ok {
		c.RequireClientSASLAuth = strings.EqualFold(p.Value, "true")
	}
	if p, ok := c.lookup("enforce.auth.schemes"); ok {
		for _, s := range strings.Split(p.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				c.EnforceAuthSchemes = append(c.EnforceAuthSchemes, s)
			}
		}
	}
	if p, ok := c.lookup("4lw.commands.whitelist"); ok {
		c.FourLetterWhitelist = p.Value
	}
	for k, p := range c.Properties {
		if strings.HasPrefix(k, "authProvider.") || strings.HasPrefix(k, "zookeeper.authProvider.") {
			c.AuthProviders = append(c.AuthProviders, p.Value)
		}
	}
	if p, ok := c.lookup("dataDir"); ok {
		c.DataDir = p.Value
	}
	if p, ok := c.lookup("dataLogDir"); ok {
		c.DataLogDir = p.Value
	}
	if c.DataDir == "" {
		return &Error{File: c.File, Key: "dataDir", Msg: "dataDir is not set"}
	}
	if c.TickTime <= 0 {
		p, _ := c.lookup("tickTime")
		return c.errorAt(p, "tickTime must be positive")
	}
	if c.ClientPort <= 0 || c.ClientPort > 65535 {
		p, ok := c.lookup("clientPort")
		if !ok {
			return &Error{File: c.File, Key: "clientPort", Msg: "clientPort is not set"}
		}
		return c.errorAt(p, "%q is not a port number", p.Value)
	}
	if c.JuteMaxBuffer <= 0 {
		p, _ := c.lookup("jute.maxbuffer")
		return c.errorAt(p, "must be positive")
	}
	tick := int32(c.TickTime.Milliseconds())
	minEff, maxEff := c.MinSessionTimeout, c.MaxSessionTimeout
	if minEff <= 0 {
		minEff = 2 * tick
	}
	if maxEff <= 0 {
		maxEff = 20 * tick
	}
	if minEff > maxEff {
		p, _ := c.lookup("minSessionTimeout")
		return c.errorAt(p, "minSessionTimeout %d must not be larger than maxSessionTimeout %d", minEff, maxEff)
	}
	if len(c.Servers) > 1 || (len(c.Servers) == 1 && !c.StandaloneEnabled) {
		var first Property
		for _, p := range c.Servers {
			if first.Line == 0 || p.Line < first.Line {
				first = p
			}
		}
		return c.errorAt(first, "this configuration describes an ensemble; this gozk release runs standalone servers only")
	}
	return nil
}

// ClientAddr returns clientPortAddress:clientPort (all interfaces when no
// address is set, as Java binds).
func (c *Config) ClientAddr() string {
	host := c.ClientPortAddress
	if host == "" {
		host = "0.0.0.0"
	}
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(c.ClientPort)
}

func (c *Config) warnAt(p Property, msg string, args ...any) {
	c.Warnings = append(c.Warnings, c.errorAt(p, msg, args...).Error())
}

// applyAdminMetricsPurge reads the AdminServer, metrics provider and
// autopurge keys.
func (c *Config) applyAdminMetricsPurge() error {
	// admin.*: Java reads these as system properties; enableServer is on
	// unless exactly "false", the numbers fall back to their defaults when
	// they do not parse (Integer.getInteger).
	if p, ok := c.lookup("admin.enableServer"); ok {
		c.AdminEnableServer = p.Value != "false"
	}
	if p, ok := c.lookup("admin.serverAddress"); ok {
		c.AdminServerAddress = p.Value
	}
	if p, ok := c.lookup("admin.commandURL"); ok {
		c.AdminCommandURL = p.Value
	}
	if p, ok := c.lookup("admin.serverPort"); ok {
		if v, err := strconv.ParseInt(p.Value, 10, 32); err == nil {
			c.AdminServerPort = int(v)
		} else {
			c.warnAt(p, "%q is not a whole number; using %d as Java does", p.Value, c.AdminServerPort)
		}
	}
	if p, ok := c.lookup("admin.idleTimeout"); ok {
		if v, err := strconv.ParseInt(p.Value, 10, 32); err == nil {
			c.AdminIdleTimeout = time.Duration(v) * time.Millisecond
		} else {
			c.warnAt(p, "%q is not a whole number; using %d as Java does", p.Value, c.AdminIdleTimeout.Milliseconds())
		}
	}

	// metricsProvider.*: keys of the config parser itself, handed to the
	// provider; the Prometheus provider parses httpPort with
	// Integer.parseInt (a bad value stops the server) and exportJvmInfo
	// with Boolean.parseBoolean.
	if p, ok := c.Properties["metricsProvider.className"]; ok {
		c.MetricsProviderClassName = p.Value
	}
	if p, ok := c.Properties["metricsProvider.httpHost"]; ok {
		c.MetricsHTTPHost = p.Value
	}
	if p, ok := c.Properties["metricsProvider.exportJvmInfo"]; ok {
		c.MetricsExportJVMInfo = strings.EqualFold(p.Value, "true")
	}
	if p, ok := c.Properties["metricsProvider.httpPort"]; ok {
		v, err := strconv.ParseInt(p.Value, 10, 32)
		if err != nil {
			if c.PrometheusEnabled() {
				return c.errorAt(p, "%q is not a whole number", p.Value)
			}
		} else {
			c.MetricsHTTPPort = int(v)
		}
	}

	// autopurge.*: parsed with Integer.parseInt; a retain count under 3
	// is raised to 3 with a warning.
	if p, ok := c.Properties["autopurge.snapRetainCount"]; ok {
		v, err := strconv.ParseInt(p.Value, 10, 32)
		if err != nil {
			return c.errorAt(p, "%q is not a whole number", p.Value)
		}
		c.AutopurgeSnapRetainCount = int(v)
		if v < 3 {
			c.AutopurgeSnapRetainCount = 3
			c.warnAt(p, "invalid autopurge.snapRetainCount %d; using 3", v)
		}
	}
	if p, ok := c.Properties["autopurge.purgeInterval"]; ok {
		v, err := strconv.ParseInt(p.Value, 10, 32)
		if err != nil {
			return c.errorAt(p, "%q is not a whole number", p.Value)
		}
		if v > 0 {
			c.AutopurgeInterval = time.Duration(v) * time.Hour
		}
	}
	return nil
}
