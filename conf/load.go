package conf

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JVMFlagsSource names where -D flags come from in messages.
const JVMFlagsSource = "SERVER_JVMFLAGS/JVMFLAGS"

// Load reads a zoo.cfg as Java 3.8's QuorumPeerConfig.parse does, and
// applies the -D flags found in jvmFlags (the contents of SERVER_JVMFLAGS
// and JVMFLAGS), which zoo.cfg overrides as in Java. It reads the
// dynamicConfigFile it names, <dataDir>/myid when that file exists, and
// <path>.dynamic.next. A config that Java refuses is refused with an
// *Error naming the file, the line and the key; one that Java accepts
// loads, with Warnings for what Java would warn about.
func Load(path string, jvmFlags string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	props, err := ParseProperties(bytes.NewReader(data))
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
		c.System[p.Key] = p
		c.Properties[p.Key] = p
	}
	l := &loader{c: c, cfg: map[string]Property{}, minTO: -1, maxTO: -1}
	for _, p := range props {
		l.cfg[p.Key] = p // the last of duplicate keys wins, as in Java
	}
	if err := l.parse(); err != nil {
		return nil, err
	}
	if err := c.applySystemProperties(); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadDefaults is Defaults with the -D flags of jvmFlags applied, for a
// server started without a zoo.cfg: the system properties Java reads
// (jute.maxbuffer, zookeeper.4lw.commands.whitelist, zookeeper.admin.*,
// zookeeper.snapCount, ...) take effect as they would with one. A value
// gozk cannot run with is refused with an *Error naming the flag.
func LoadDefaults(jvmFlags string) (*Config, error) {
	c := Defaults()
	for _, p := range SystemProperties(jvmFlags) {
		c.System[p.Key] = p
		c.Properties[p.Key] = p
	}
	if err := c.applySystemProperties(); err != nil {
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
		out = append(out, Property{Key: k, Value: v, Raw: v})
	}
	return out
}

func (c *Config) errorAt(p Property, msg string, args ...any) error {
	file, key := c.File, p.Key
	if p.Line == 0 {
		file = JVMFlagsSource
	} else if orig, ok := strings.CutPrefix(key, "zookeeper."); ok && c.Properties[orig].Line == p.Line {
		key = orig // a zoo.cfg key taken as a system property: name it as written
	}
	return &Error{File: file, Line: p.Line, Key: key, Msg: fmt.Sprintf(msg, args...)}
}

func (c *Config) warnAt(p Property, msg string, args ...any) {
	c.Warnings = append(c.Warnings, c.errorAt(p, msg, args...).Error())
}

func (c *Config) warn(key, msg string, args ...any) {
	c.Warnings = append(c.Warnings, (&Error{File: c.File, Key: key, Msg: fmt.Sprintf(msg, args...)}).Error())
}

// loader holds the state of one QuorumPeerConfig.parse.
type loader struct {
	c            *Config
	cfg          map[string]Property // zoo.cfg's keys
	minTO, maxTO int                 // -1 when not set
	clientPortP  Property
}

// sortedKeys returns the zoo.cfg keys in line order, so that the first
// mistake in the file is the one reported.
func sortedKeys(m map[string]Property) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := m[keys[i]], m[keys[j]]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return keys[i] < keys[j]
	})
	return keys
}

func (l *loader) intKey(dst *int) func(Property) error {
	return func(p Property) error {
		v, ok := parseJavaInt(p.Value)
		if !ok {
			return l.c.errorAt(p, "%q is not a whole number", p.Value)
		}
		*dst = v
		return nil
	}
}

func (l *loader) longKey(dst *int64) func(Property) error {
	return func(p Property) error {
		v, ok := parseJavaLong(p.Value)
		if !ok {
			return l.c.errorAt(p, "%q is not a whole number", p.Value)
		}
		*dst = v
		return nil
	}
}

// boolKey parses as the config parser does: true or false in any case,
// anything else is an error.
func (l *loader) boolKey(dst *bool) func(Property) error {
	return func(p Property) error {
		switch strings.ToLower(p.Value) {
		case "true":
			*dst = true
		case "false":
			*dst = false
		default:
			return l.c.errorAt(p, "invalid option %q; choose 'true' or 'false'", p.Value)
		}
		return nil
	}
}

func (l *loader) strKey(dst *string) func(Property) error {
	return func(p Property) error { *dst = p.Value; return nil }
}

func (l *loader) msKey(dst *time.Duration) func(Property) error {
	return func(p Property) error {
		v, ok := parseJavaInt(p.Value)
		if !ok {
			return l.c.errorAt(p, "%q is not a whole number", p.Value)
		}
		*dst = time.Duration(v) * time.Millisecond
		return nil
	}
}

// parserKeys are the keys QuorumPeerConfig.parseProperties reads itself;
// every other key becomes the system property zookeeper.<key>.
func (l *loader) parserKeys() map[string]func(Property) error {
	c, q := l.c, &l.c.Quorum
	var tick, snapRetain, purge int
	var ignoredLong int64
	var ignoredBool bool
	tick = int(c.TickTime.Milliseconds())
	snapRetain = c.AutopurgeSnapRetainCount
	return map[string]func(Property) error{
		"dataDir":    func(p Property) error { c.DataDir = p.Value; return nil },
		"dataLogDir": func(p Property) error { c.DataLogDir = p.Value; return nil },
		"clientPort": func(p Property) error {
			l.clientPortP = p
			return l.intKey(&c.ClientPort)(p)
		},
		"localSessionsEnabled":          l.boolKey(&c.LocalSessionsEnabled),
		"localSessionsUpgradingEnabled": l.boolKey(&c.LocalSessionsUpgradingEnabled),
		"clientPortAddress":             l.strKey(&c.ClientPortAddress),
		"secureClientPort":              l.intKey(&c.SecureClientPort),
		"secureClientPortAddress":       l.strKey(&c.SecureClientPortAddress),
		"observerMasterPort": func(p Property) error {
			if err := l.intKey(&q.ObserverMasterPort)(p); err != nil {
				return err
			}
			if q.ObserverMasterPort < 0 {
				q.ObserverMasterPort = 0 // Java: not set
			}
			return nil
		},
		"clientPortListenBacklog": l.intKey(&c.ClientPortListenBacklog),
		"tickTime": func(p Property) error {
			if err := l.intKey(&tick)(p); err != nil {
				return err
			}
			c.TickTime = time.Duration(tick) * time.Millisecond
			return nil
		},
		"maxClientCnxns":              l.intKey(&c.MaxClientCnxns),
		"minSessionTimeout":           l.intKey(&l.minTO),
		"maxSessionTimeout":           l.intKey(&l.maxTO),
		"initLimit":                   l.intKey(&q.InitLimit),
		"syncLimit":                   l.intKey(&q.SyncLimit),
		"connectToLearnerMasterLimit": l.intKey(&q.ConnectToLearnerMasterLimit),
		"electionAlg": func(p Property) error {
			if err := l.intKey(&q.ElectionAlg)(p); err != nil {
				return err
			}
			if q.ElectionAlg != 3 {
				return c.errorAt(p, "invalid electionAlg value %d; only 3 is supported", q.ElectionAlg)
			}
			return nil
		},
		"quorumListenOnAllIPs": l.boolKey(&q.QuorumListenOnAllIPs),
		"peerType": func(p Property) error {
			switch strings.ToLower(p.Value) {
			case "observer":
				q.PeerType = Observer
			case "participant":
				q.PeerType = Participant
			default:
				return c.errorAt(p, "unrecognised peer type %q (participant or observer)", p.Value)
			}
			return nil
		},
		"syncEnabled":       l.boolKey(&q.SyncEnabled),
		"dynamicConfigFile": l.strKey(&q.DynamicConfigFile),
		"autopurge.snapRetainCount": func(p Property) error {
			if err := l.intKey(&snapRetain)(p); err != nil {
				return err
			}
			c.AutopurgeSnapRetainCount = snapRetain
			if snapRetain < 3 {
				c.AutopurgeSnapRetainCount = 3
				c.warnAt(p, "invalid autopurge.snapRetainCount %d; using 3", snapRetain)
			}
			return nil
		},
		"autopurge.purgeInterval": func(p Property) error {
			if err := l.intKey(&purge)(p); err != nil {
				return err
			}
			c.AutopurgeInterval = 0
			if purge > 0 {
				c.AutopurgeInterval = time.Duration(purge) * time.Hour
			}
			return nil
		},
		"standaloneEnabled":                     l.boolKey(&c.StandaloneEnabled),
		"reconfigEnabled":                       l.boolKey(&c.ReconfigEnabled),
		"sslQuorum":                             l.boolKey(&q.SSLQuorum),
		"portUnification":                       l.boolKey(&q.PortUnification),
		"sslQuorumReloadCertFiles":              l.boolKey(&q.SSLQuorumReloadCertFiles),
		"quorum.auth.enableSasl":                l.boolKey(&q.AuthEnableSASL),
		"quorum.auth.serverRequireSasl":         l.boolKey(&q.AuthServerRequireSASL),
		"quorum.auth.learnerRequireSasl":        l.boolKey(&q.AuthLearnerRequireSASL),
		"quorum.auth.learner.saslLoginContext":  l.strKey(&q.AuthLearnerLoginContext),
		"quorum.auth.server.saslLoginContext":   l.strKey(&q.AuthServerLoginContext),
		"quorum.auth.kerberos.servicePrincipal": l.strKey(&q.AuthServicePrincipal),
		"quorum.cnxn.threads.size":              l.intKey(&q.CnxnThreads),
		// The JVM pause monitor has no Go counterpart; its keys are
		// checked as Java checks them and otherwise ignored.
		"jvm.pause.info-threshold.ms":             l.longKey(&ignoredLong),
		"jvm.pause.warn-threshold.ms":             l.longKey(&ignoredLong),
		"jvm.pause.sleep.time.ms":                 l.longKey(&ignoredLong),
		"jvm.pause.monitor":                       l.boolKey(&ignoredBool),
		"metricsProvider.className":               l.strKey(&c.MetricsProviderClassName),
		"multiAddress.enabled":                    l.boolKey(&q.MultiAddressEnabled),
		"multiAddress.reachabilityCheckTimeoutMs": l.msKey(&q.MultiAddressReachabilityCheckTimeout),
		"multiAddress.reachabilityCheckEnabled":   l.boolKey(&q.MultiAddressReachabilityCheckEnabled),
		"oraclePath":                              func(p Property) error { q.OraclePath = p.Value; return nil },
	}
}

func (l *loader) parse() error {
	c := l.c
	handlers := l.parserKeys()
	_, hasDynamicFile := l.cfg["dynamicConfigFile"]
	for _, k := range sortedKeys(l.cfg) {
		p := l.cfg[k]
		c.Properties[k] = p
		if h, ok := handlers[k]; ok {
			if err := h(p); err != nil {
				return err
			}
			continue
		}
		if strings.HasPrefix(k, "metricsProvider.") {
			c.MetricsProviderConfig[k[len("metricsProvider."):]] = p.Value
			continue
		}
		if hasDynamicFile && (strings.HasPrefix(k, "server.") || strings.HasPrefix(k, "group") || strings.HasPrefix(k, "weight")) {
			return c.errorAt(p, "must be in the separate dynamic config file (dynamicConfigFile is set)")
		}
		sp := p
		sp.Key = "zookeeper." + k
		c.System[sp.Key] = sp
	}
	q := &c.Quorum
	if !q.AuthEnableSASL && q.AuthServerRequireSASL {
		return l.keyError("quorum.auth.serverRequireSasl", "quorum.auth.enableSasl is disabled, so quorum.auth.serverRequireSasl cannot be enabled")
	}
	if !q.AuthEnableSASL && q.AuthLearnerRequireSASL {
		return l.keyError("quorum.auth.learnerRequireSasl", "quorum.auth.enableSasl is disabled, so quorum.auth.learnerRequireSasl cannot be enabled")
	}
	if !q.AuthLearnerRequireSASL && q.AuthServerRequireSASL {
		return l.keyError("quorum.auth.serverRequireSasl", "quorum.auth.learnerRequireSasl is disabled, so quorum.auth.serverRequireSasl cannot be enabled")
	}
	if c.DataDir == "" {
		return &Error{File: c.File, Key: "dataDir", Msg: "dataDir is not set"}
	}
	if !filepath.IsAbs(c.DataDir) {
		c.warn("dataDir", "%s is relative; prepend ./ to indicate that you're sure", c.DataDir)
	}
	if c.ClientPort == 0 {
		if c.ClientPortAddress != "" {
			return l.keyError("clientPortAddress", "clientPortAddress is set but clientPort is not set")
		}
	} else if c.ClientPort < 0 || c.ClientPort > 65535 {
		return l.keyError("clientPort", "port %d out of range", c.ClientPort)
	}
	if c.SecureClientPort == 0 {
		if c.SecureClientPortAddress != "" {
			return l.keyError("secureClientPortAddress", "secureClientPortAddress is set but secureClientPort is not set")
		}
	} else if c.SecureClientPort < 0 || c.SecureClientPort > 65535 {
		return l.keyError("secureClientPort", "port %d out of range", c.SecureClientPort)
	}
	tick := int(c.TickTime.Milliseconds())
	if tick == 0 {
		return l.keyError("tickTime", "tickTime is not set")
	}
	if l.minTO == -1 {
		l.minTO = 2 * tick
	}
	if l.maxTO == -1 {
		l.maxTO = 20 * tick
	}
	if l.minTO > l.maxTO {
		return l.keyError("minSessionTimeout", "minSessionTimeout %d must not be larger than maxSessionTimeout %d", l.minTO, l.maxTO)
	}
	c.MinSessionTimeout, c.MaxSessionTimeout = int32(l.minTO), int32(l.maxTO)
	switch c.MetricsProviderClassName {
	case DefaultMetricsProviderClass, PrometheusMetricsProviderClass:
	default:
		return l.keyError("metricsProvider.className", "metrics provider class %q was not found (gozk has %s and %s)",
			c.MetricsProviderClassName, DefaultMetricsProviderClass, PrometheusMetricsProviderClass)
	}
	if q.DynamicConfigFile == "" {
		var lines []ensembleLine
		for _, k := range sortedKeys(l.cfg) {
			p := l.cfg[k]
			lines = append(lines, ensembleLine{Key: k, Raw: p.Raw, Line: p.Line})
		}
		return l.setupQuorum(c.File, lines, true)
	}
	return l.readDynamicFiles()
}

// keyError reports a problem with a zoo.cfg key at its line (or without
// a line when the key is not in the file).
func (l *loader) keyError(key, msg string, args ...any) error {
	if p, ok := l.cfg[key]; ok {
		return l.c.errorAt(p, msg, args...)
	}
	return &Error{File: l.c.File, Key: key, Msg: fmt.Sprintf(msg, args...)}
}

// readDynamicFiles reads dynamicConfigFile and, when it exists,
// <zoo.cfg>.dynamic.next.
func (l *loader) readDynamicFiles() error {
	c, q := l.c, &l.c.Quorum
	path := q.DynamicConfigFile
	lines, err := readEnsembleFile(path)
	if err != nil {
		p := l.cfg["dynamicConfigFile"]
		return c.errorAt(p, "%v", err)
	}
	for _, el := range lines {
		if el.Key == "version" {
			return &Error{File: path, Line: el.Line, Key: "version", Msg: "a dynamic config file must not hold a version (it comes from the file name)"}
		}
	}
	if v, ok := versionFromFilename(path); ok {
		if v < 0 {
			// Java turns the suffix into unsigned hex, which its verifier
			// then cannot read back as a long.
			return &Error{File: path, Key: "dynamicConfigFile", Msg: fmt.Sprintf("the version in the file name, %s, is negative", path[strings.LastIndexByte(path, '.')+1:])}
		}
		lines = append(lines, ensembleLine{Key: "version", Raw: strconv.FormatInt(v, 16)})
	}
	if err := l.setupQuorum(path, lines, false); err != nil {
		return err
	}
	next := c.File + ".dynamic.next"
	if _, err := os.Stat(next); err == nil {
		nl, err := readEnsembleFile(next)
		if err != nil {
			c.warn("dynamicConfigFile", "%s: %v; ignoring it", next, err)
			return nil
		}
		e, err := parseEnsemble(next, nl, l.multiAddressProperty())
		if err != nil {
			return err
		}
		q.Next = e
	}
	return nil
}

// versionFromFilename is Java's getVersionFromFilename: the text after
// the last dot, as hex.
func versionFromFilename(path string) (int64, bool) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(path[i+1:], 16, 64)
	return v, err == nil
}

func readEnsembleFile(path string) ([]ensembleLine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	props, err := ParseProperties(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	last := map[string]Property{}
	for _, p := range props {
		last[p.Key] = p
	}
	var lines []ensembleLine
	for _, k := range sortedKeys(last) {
		lines = append(lines, ensembleLine{Key: k, Raw: last[k].Raw, Line: last[k].Line})
	}
	return lines, nil
}

// multiAddressProperty is what Java's server-line parser consults:
// the system property zookeeper.multiAddress.enabled.
func (l *loader) multiAddressProperty() bool {
	p, ok := l.c.System["zookeeper.multiAddress.enabled"]
	return ok && strings.EqualFold(p.Value, "true")
}

// setupQuorum is QuorumPeerConfig.setupQuorumPeerConfig: the server
// lines, myid, this server's client address and role, and the checks of
// a distributed configuration. compat is set when the lines come from
// zoo.cfg itself.
func (l *loader) setupQuorum(file string, lines []ensembleLine, compat bool) error {
	c, q := l.c, &l.c.Quorum
	if !compat {
		for _, el := range lines {
			if !strings.HasPrefix(el.Key, "server.") && !strings.HasPrefix(el.Key, "group") &&
				!strings.HasPrefix(el.Key, "weight") && el.Key != "version" {
				return &Error{File: file, Line: el.Line, Key: el.Key, Msg: "unrecognised parameter in a dynamic config file"}
			}
		}
	}
	e, err := parseEnsemble(file, lines, l.multiAddressProperty())
	if err != nil {
		return err
	}
	q.Ensemble = e
	voters, observers := len(e.Voters()), len(e.Observers())
	switch {
	case voters == 0:
		if !c.StandaloneEnabled {
			return l.keyError("standaloneEnabled", "standaloneEnabled is false, so there must be at least one participant server.N line")
		}
		if observers > 0 {
			s := e.Servers[e.Observers()[0]]
			return &Error{File: file, Line: s.Line, Key: s.Key, Msg: "observers without participants is an invalid configuration"}
		}
	case voters == 1 && c.StandaloneEnabled:
		if observers > 0 {
			s := e.Servers[e.Observers()[0]]
			return &Error{File: file, Line: s.Line, Key: s.Key, Msg: "observers without a quorum is an invalid configuration (one participant and standaloneEnabled=true)"}
		}
		s := e.Servers[e.Voters()[0]]
		c.Warnings = append(c.Warnings, (&Error{File: file, Line: s.Line, Key: s.Key,
			Msg: "only one server specified; running standalone (ignoring the server line)"}).Error())
	default:
		if voters <= 2 {
			c.warn("server.N", "no server failure will be tolerated; you need at least 3 servers")
		} else if voters%2 == 0 {
			c.warn("server.N", "non-optimal configuration, consider an odd number of servers")
		}
	}
	if err := l.readMyID(); err != nil {
		return err
	}
	if err := l.setupClientPort(); err != nil {
		return err
	}
	if q.ServerID >= 0 {
		role := Participant
		if s, ok := e.Servers[q.ServerID]; ok && s.Type == Observer {
			role = Observer
		}
		if role != q.PeerType {
			l.c.warn("peerType", "peer type from the server list (%s) does not match peerType (%s); using the server list", role, q.PeerType)
			q.PeerType = role
		}
	} else if q.PeerType != Participant {
		// Java compares with the list even without a myid, where the
		// server is not an observer of it.
		l.c.warn("peerType", "peer type from the server list (participant) does not match peerType (%s); using the server list", q.PeerType)
		q.PeerType = Participant
	}
	q.Distributed = !c.StandaloneEnabled || voters > 1
	if q.Distributed {
		if q.InitLimit == 0 {
			return l.keyError("initLimit", "initLimit is not set")
		}
		if q.SyncLimit == 0 {
			return l.keyError("syncLimit", "syncLimit is not set")
		}
		if q.ServerID < 0 {
			return &Error{File: filepath.Join(c.DataDir, "myid"), Key: "myid", Msg: "myid file is missing (an ensemble member needs its server id in <dataDir>/myid)"}
		}
	}
	return nil
}

// readMyID reads <dataDir>/myid when it is a regular file, as Java does
// whether or not the server runs standalone: its first line must be a
// number with nothing around it.
func (l *loader) readMyID() error {
	path := filepath.Join(l.c.DataDir, "myid")
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	id, err := ReadMyID(path)
	if err != nil {
		return err
	}
	l.c.Quorum.ServerID = id
	return nil
}

// ReadMyID reads a myid file as Java does (the first line, a decimal
// long). The error is Java's "serverid ... is not a number".
func ReadMyID(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return -1, &Error{File: path, Key: "myid", Msg: err.Error()}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line, shown := "", "null"
	if sc.Scan() {
		line = strings.TrimSuffix(sc.Text(), "\r")
		shown = line
	}
	id, ok := parseJavaLong(line)
	if !ok {
		return -1, &Error{File: path, Line: 1, Key: "myid", Msg: fmt.Sprintf("serverid %s is not a number", shown)}
	}
	return id, nil
}

// setupClientPort checks this server's line against clientPort and
// clientPortAddress and takes its client address from whichever has one.
func (l *loader) setupClientPort() error {
	c, q := l.c, &l.c.Quorum
	if q.ServerID < 0 {
		return nil
	}
	s, ok := q.Ensemble.Servers[q.ServerID]
	if !ok {
		return nil
	}
	if c.ClientPort != 0 && s.ClientPort != 0 {
		static := c.ClientPortAddress
		wildcard := static == "" || isWildcard(static)
		if (!wildcard && (!sameHost(static, s.ClientHost) || c.ClientPort != s.ClientPort)) ||
			(wildcard && c.ClientPort != s.ClientPort) {
			return &Error{File: s.File, Line: s.Line, Key: s.Key, Msg: fmt.Sprintf(
				"client address for this server (id = %d) in the static config is %s, different from the client address %s in the server line",
				q.ServerID, c.ClientAddr(), s.ClientAddr())}
		}
	}
	if s.ClientPort != 0 {
		c.ClientPortAddress = s.ClientHost
		c.ClientPort = s.ClientPort
	} else if c.ClientPort != 0 {
		s.ClientHost = c.ClientPortAddress
		if s.ClientHost == "" {
			s.ClientHost = "0.0.0.0"
		}
		s.ClientPort = c.ClientPort
		s.ClientFromStatic = true
	}
	return nil
}

func isWildcard(host string) bool {
	ip := net.ParseIP(javaHost(strings.Trim(host, "[]")))
	return ip != nil && ip.IsUnspecified()
}

// sameHost compares two host names as InetSocketAddress equality does
// after resolution: IP literals by value, "localhost" as loopback,
// names by name.
func sameHost(a, b string) bool {
	norm := func(h string) string {
		h = javaHost(strings.Trim(h, "[]"))
		if strings.EqualFold(h, "localhost") {
			return "127.0.0.1"
		}
		if ip := net.ParseIP(h); ip != nil {
			return ip.String()
		}
		return strings.ToLower(h)
	}
	return norm(a) == norm(b)
}
