package conf

import (
	"strconv"
	"strings"
	"time"
)

// sysLookup finds a system property under any of its names; a value
// that came from zoo.cfg wins over a -D flag, as zoo.cfg is applied last
// in Java.
func (c *Config) sysLookup(names ...string) (Property, bool) {
	var found *Property
	for _, n := range names {
		if p, ok := c.System[n]; ok {
			if p.Line > 0 {
				return p, true
			}
			if found == nil {
				found = &p
			}
		}
	}
	if found == nil {
		return Property{}, false
	}
	return *found, true
}

// zk is the system property name of a zoo.cfg key that Java takes as
// zookeeper.<key>.
func zk(key string) string { return "zookeeper." + key }

// sysInt reads a number as Integer.getInteger (and Long.getLong) do: a
// value that does not decode leaves the default, with a warning here.
func (c *Config) sysInt(dst *int, names ...string) {
	p, ok := c.sysLookup(names...)
	if !ok {
		return
	}
	v, ok := decodeJavaInt(p.Value, 32)
	if !ok {
		c.warnAt(p, "%q is not a number; using the default %d as Java does", p.Value, *dst)
		return
	}
	*dst = int(v)
}

func (c *Config) sysMillis(dst *time.Duration, names ...string) {
	ms := int(dst.Milliseconds())
	c.sysInt(&ms, names...)
	*dst = time.Duration(ms) * time.Millisecond
}

// sysBool reads a boolean as Boolean.parseBoolean does ("true" in any
// case is true, anything else false); a value that is neither true nor
// false gets a warning.
func (c *Config) sysBool(dst *bool, names ...string) {
	p, ok := c.sysLookup(names...)
	if !ok {
		return
	}
	*dst = strings.EqualFold(p.Value, "true")
	if !*dst && !strings.EqualFold(p.Value, "false") {
		c.warnAt(p, "%q is not true or false; taken as false as Java does", p.Value)
	}
}

func (c *Config) sysString(dst *string, names ...string) {
	if p, ok := c.sysLookup(names...); ok {
		*dst = p.Value
	}
}

func (c *Config) sysList(dst *[]string, names ...string) {
	p, ok := c.sysLookup(names...)
	if !ok {
		return
	}
	*dst = nil
	for _, s := range strings.Split(p.Value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*dst = append(*dst, s)
		}
	}
}

// applySystemProperties reads the settings Java takes from system
// properties. Java parses these leniently, so a bad value here is a
// warning, not an error; only values gozk cannot run with are refused.
func (c *Config) applySystemProperties() error {
	c.sysInt(&c.MaxCnxns, zk("maxCnxns"))
	c.sysInt(&c.GlobalOutstandingLimit, zk("globalOutstandingLimit"))
	c.sysInt(&c.SnapCount, zk("snapCount"))
	c.sysInt(&c.CommitLogCount, zk("commitLogCount"))
	if p, ok := c.sysLookup(zk("testingonly.initialZxid")); ok {
		v, err := strconv.ParseInt(strings.TrimSpace(p.Value), 10, 64)
		if err != nil || v < 0 || v > 0xffffffff {
			return c.errorAt(p, "initialZxid %q is not a counter from 0 to 4294967295", p.Value)
		}
		c.InitialZxid = v
	}
	c.sysBool(&c.ForceSnapshotSync, zk("forceSnapshotSync"))
	c.sysMillis(&c.ObserverElectionDelay, zk("observer.election.DelayMs"))
	c.sysMillis(&c.ObserverReconnectDelay, zk("observer.reconnectDelayMs"))
	if p, ok := c.sysLookup(zk("snapshotSizeFactor")); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p.Value), 64)
		if err != nil {
			// Java's Double.parseDouble fails there and it keeps 0.33.
			c.warnAt(p, "%q is not a number; using 0.33", p.Value)
			f = 0.33
		}
		c.SnapshotSizeFactor = f
	}
	// Java's NIO selector threads are gozk's event loops.
	c.sysInt(&c.NumSelectorThreads, zk("nio.numSelectorThreads"))
	if p, ok := c.sysLookup(zk("nio.numSelectorThreads")); ok && c.NumSelectorThreads < 1 && p.Value != "" {
		if _, isNum := decodeJavaInt(p.Value, 32); isNum {
			return c.errorAt(p, "numSelectorThreads must be at least 1")
		}
	}
	// Read with Integer.getInteger, so -D sets it, and so does
	// nio.sessionlessCnxnTimeout in zoo.cfg.
	c.sysMillis(&c.SessionlessCnxnTimeout, zk("nio.sessionlessCnxnTimeout"))
	c.sysInt(&c.TLSHandshakeLimit, zk("netty.server.outstandingHandshake.limit"))
	c.sysBool(&c.EarlyDropSecureHandshakes, zk("netty.server.earlyDropSecureConnectionHandshakes"))
	if err := c.applyConnectionThrottle(); err != nil {
		return err
	}
	if p, ok := c.sysLookup(zk("nio.sessionlessCnxnTimeout")); ok && c.SessionlessCnxnTimeout <= 0 {
		// Java cannot run its connection expiry with no interval.
		c.warnAt(p, "sessionlessCnxnTimeout must be positive; using 10000")
		c.SessionlessCnxnTimeout = 10 * time.Second
	}
	if p, ok := c.sysLookup(zk("snapCount")); ok && c.SnapCount < 2 {
		c.warnAt(p, "snapCount should be 2 or more; using 2")
		c.SnapCount = 2
	}
	// skipACL and forceSync compare with "yes" and "no".
	if p, ok := c.sysLookup(zk("skipACL")); ok {
		c.SkipACL = p.Value == "yes"
		if p.Value != "yes" && p.Value != "no" {
			c.warnAt(p, "%q is not yes or no; taken as no as Java does", p.Value)
		}
	}
	if p, ok := c.sysLookup(zk("forceSync")); ok {
		c.ForceSync = p.Value != "no"
		if p.Value != "yes" && p.Value != "no" {
			c.warnAt(p, "%q is not yes or no; taken as yes as Java does", p.Value)
		}
	}
	c.sysMillis(&c.FsyncWarning, zk("fsync.warningthresholdms"), "fsync.warningthresholdms")
	// jute.maxbuffer and znode.container.* have no zookeeper. prefix, so
	// Java cannot take them from zoo.cfg; gozk also accepts them there.
	c.sysInt(&c.JuteMaxBuffer, "jute.maxbuffer", zk("jute.maxbuffer"))
	c.sysInt(&c.JuteMaxBufferExtra, zk("jute.maxbuffer.extrasize"))
	c.sysBool(&c.ExtendedTypesEnabled, zk("extendedTypesEnabled"))
	c.sysMillis(&c.ContainerCheckInterval, "znode.container.checkIntervalMs", zk("znode.container.checkIntervalMs"))
	c.sysInt(&c.ContainerMaxPerMinute, "znode.container.maxPerMinute", zk("znode.container.maxPerMinute"))
	c.sysMillis(&c.ContainerMaxNeverUsed, "znode.container.maxNeverUsedIntervalMs", zk("znode.container.maxNeverUsedIntervalMs"))
	c.sysBool(&c.EnforceQuota, zk("enforceQuota"))
	c.sysString(&c.SuperDigest, zk("DigestAuthenticationProvider.superDigest"))
	c.sysBool(&c.DigestAuthEnabled, zk("DigestAuthenticationProvider.enabled"))
	c.sysString(&c.DigestAlg, zk("DigestAuthenticationProvider.digestAlg"))
	c.sysBool(&c.DigestEnabled, zk("digest.enabled"))
	c.sysString(&c.FourLetterWhitelist, zk("4lw.commands.whitelist"))
	c.sysBool(&c.EnforceAuthEnabled, zk("enforce.auth.enabled"))
	c.sysList(&c.EnforceAuthSchemes, zk("enforce.auth.schemes"))
	c.sysBool(&c.RequireClientSASLAuth, zk("sessionRequireClientSASLAuth"))
	c.applySASL()
	for _, k := range sortedKeys(c.System) {
		if strings.HasPrefix(k, zk("authProvider.")) {
			c.AuthProviders = append(c.AuthProviders, c.System[k].Value)
		}
	}
	c.sysInt(&c.Quorum.ElectionPortBindRetry, zk("electionPortBindRetry"))
	c.sysMillis(&c.Quorum.CnxTimeout, zk("cnxTimeout"))
	c.sysMillis(&c.Quorum.QuorumCnxnTimeout, zk("quorumCnxnTimeoutMs"))
	if c.Quorum.QuorumCnxnTimeout < 0 {
		c.Quorum.QuorumCnxnTimeout = 0 // Java's -1: tickTime x syncLimit
	}
	c.sysMillis(&c.Quorum.MinNotificationInterval, zk("fastleader.minNotificationInterval"))
	c.sysMillis(&c.Quorum.MaxNotificationInterval, zk("fastleader.maxNotificationInterval"))
	c.sysBool(&c.DataDirAutocreate, zk("datadir.autocreate"))

	// admin.*: the AdminServer runs unless enableServer is exactly "false".
	if p, ok := c.sysLookup(zk("admin.enableServer")); ok {
		c.AdminEnableServer = p.Value != "false"
	}
	c.sysString(&c.AdminServerAddress, zk("admin.serverAddress"))
	c.sysString(&c.AdminCommandURL, zk("admin.commandURL"))
	c.sysInt(&c.AdminServerPort, zk("admin.serverPort"))
	c.sysMillis(&c.AdminIdleTimeout, zk("admin.idleTimeout"))
	c.sysBool(&c.AdminPortUnification, zk("admin.portUnification"))
	c.sysBool(&c.AdminForceHTTPS, zk("admin.forceHttps"))

	// metricsProvider.<x> go to the provider, which parses httpPort with
	// Integer.parseInt (a bad value stops a Java server from starting)
	// and exportJvmInfo with Boolean.parseBoolean.
	if v, ok := c.MetricsProviderConfig["httpHost"]; ok {
		c.MetricsHTTPHost = v
	}
	if v, ok := c.MetricsProviderConfig["exportJvmInfo"]; ok {
		c.MetricsExportJVMInfo = strings.EqualFold(v, "true")
	}
	if v, ok := c.MetricsProviderConfig["httpPort"]; ok {
		port, ok := parseJavaInt(v)
		if ok {
			c.MetricsHTTPPort = port
		} else if c.PrometheusEnabled() {
			p := c.Properties["metricsProvider.httpPort"]
			return c.errorAt(p, "%q is not a whole number", v)
		}
	}

	c.applyTLS(&c.ClientTLS, "ssl.")
	c.applyTLS(&c.QuorumTLS, "ssl.quorum.")
	c.sysBool(&c.ClientPortUnification, zk("client.portUnification"))
	c.sysBool(&c.ClientCertReload, zk("client.certReload"))

	// What gozk cannot run with, although Java would start.
	if c.TickTime <= 0 {
		p, _ := c.Properties["tickTime"]
		return c.errorAt(p, "tickTime must be positive")
	}
	if c.JuteMaxBuffer <= 0 {
		p, _ := c.sysLookup("jute.maxbuffer", zk("jute.maxbuffer"))
		return c.errorAt(p, "jute.maxbuffer must be positive")
	}
	return nil
}

func (c *Config) applyTLS(t *TLSConfig, prefix string) {
	k := func(s string) string { return zk(prefix + s) }
	c.sysString(&t.KeyStoreLocation, k("keyStore.location"))
	c.sysString(&t.KeyStorePassword, k("keyStore.password"))
	c.sysString(&t.KeyStorePasswordPath, k("keyStore.passwordPath"))
	c.sysString(&t.KeyStoreType, k("keyStore.type"))
	c.sysString(&t.TrustStoreLocation, k("trustStore.location"))
	c.sysString(&t.TrustStorePassword, k("trustStore.password"))
	c.sysString(&t.TrustStorePasswordPath, k("trustStore.passwordPath"))
	c.sysString(&t.TrustStoreType, k("trustStore.type"))
	c.sysString(&t.Protocol, k("protocol"))
	c.sysList(&t.EnabledProtocols, k("enabledProtocols"))
	c.sysList(&t.CipherSuites, k("ciphersuites"))
	c.sysString(&t.ClientAuth, k("clientAuth"))
	c.sysBool(&t.HostnameVerification, k("hostnameVerification"))
	c.sysBool(&t.ClientHostnameVerification, k("clientHostnameVerification"))
	c.sysBool(&t.CRL, k("crl"))
	c.sysBool(&t.OCSP, k("ocsp"))
	c.sysMillis(&t.HandshakeDetectionTimeout, k("handshakeDetectionTimeoutMillis"))
	c.sysString(&t.AuthProvider, k("authProvider"))
}
