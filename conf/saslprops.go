package conf

import "strings"

// SASLConfig holds the system properties of SASL on the client port, as
// a Java 3.8.0 server reads them.
type SASLConfig struct {
	// LoginConfig is java.security.auth.login.config, the JAAS file ("" =
	// none: no SASL, as on a Java server without one).
	LoginConfig string
	// ServerSection is zookeeper.sasl.serverconfig, the JAAS section the
	// server logs in with ("Server").
	ServerSection string
	// SuperPassword is zookeeper.SASLAuthenticationProvider.superPassword
	// (HasSuperPassword when set, even to "").
	SuperPassword    string
	HasSuperPassword bool
	// SuperUsers are zookeeper.superUser and every
	// zookeeper.superUser.<suffix>: SASL ids that also get super.
	SuperUsers []string
	// LetAnySASLUserDoX is zookeeper.letAnySaslUserDoX.
	LetAnySASLUserDoX string
	// AllowFailedClients is zookeeper.allowSaslFailedClients
	// (Boolean.getBoolean: "true" in any case).
	AllowFailedClients bool
	// RemoveHostFromPrincipal and RemoveRealmFromPrincipal are
	// zookeeper.kerberos.removeHostFromPrincipal and
	// removeRealmFromPrincipal, true only when exactly "true" as Java
	// compares them.
	RemoveHostFromPrincipal  bool
	RemoveRealmFromPrincipal bool
}

// SystemProperty returns a system property as Java's System.getProperty
// would (a -D flag, or a zoo.cfg key as zookeeper.<key>).
func (c *Config) SystemProperty(name string) (string, bool) {
	p, ok := c.sysLookup(name)
	return p.Value, ok
}

func (c *Config) applySASL() {
	s := &c.SASL
	s.ServerSection = "Server"
	c.sysString(&s.LoginConfig, "java.security.auth.login.config")
	c.sysString(&s.ServerSection, zk("sasl.serverconfig"))
	if p, ok := c.sysLookup(zk("SASLAuthenticationProvider.superPassword")); ok {
		s.SuperPassword, s.HasSuperPassword = p.Value, true
	}
	// Java walks every system property named zookeeper.superUser or
	// zookeeper.superUser.<anything>.
	s.SuperUsers = nil
	for _, k := range sortedKeys(c.System) {
		if k == zk("superUser") || strings.HasPrefix(k, zk("superUser.")) {
			s.SuperUsers = append(s.SuperUsers, c.System[k].Value)
		}
	}
	c.sysString(&s.LetAnySASLUserDoX, zk("letAnySaslUserDoX"))
	if p, ok := c.sysLookup(zk("allowSaslFailedClients")); ok {
		s.AllowFailedClients = strings.EqualFold(p.Value, "true")
	}
	if p, ok := c.sysLookup(zk("kerberos.removeHostFromPrincipal")); ok {
		s.RemoveHostFromPrincipal = p.Value == "true"
	}
	if p, ok := c.sysLookup(zk("kerberos.removeRealmFromPrincipal")); ok {
		s.RemoveRealmFromPrincipal = p.Value == "true"
	}
}
