package sasl

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// Mechanism names as they travel in ZooKeeper's SASL packets and JAAS
// terms.
const (
	MechanismDigestMD5 = "DIGEST-MD5"
	MechanismGSSAPI    = "GSSAPI"
)

// Login module classes a JAAS section names; the first decides the
// mechanism (see NewServerFactory).
const (
	// DigestLoginModule is ZooKeeper's module for DIGEST-MD5: its
	// user_NAME="password" options are the accounts the server accepts.
	DigestLoginModule = "org.apache.zookeeper.server.auth.DigestLoginModule"
	// Krb5LoginModule puts a Kerberos principal in the login subject,
	// which makes a Java server speak GSSAPI instead of DIGEST-MD5.
	Krb5LoginModule = "com.sun.security.auth.module.Krb5LoginModule"
)

// Server is the server side of one SASL exchange (Java's SaslServer).
type Server interface {
	// Evaluate takes the client's token (empty for the first) and
	// returns the token to send back; Complete is true once done.
	Evaluate(response []byte) (challenge []byte, err error)
	Complete() bool
	AuthorizationID() string // valid once Complete
	Mechanism() string
}

// Client is the client side (Java's SaslClient), for quorum SASL and
// tests.
type Client interface {
	HasInitialResponse() bool
	Evaluate(challenge []byte) (response []byte, err error)
	Complete() bool
	Mechanism() string
}

// ErrAuthentication wraps every refusal of the peer's credentials or
// tokens (a wrong password, a malformed or replayed token), as opposed to
// a misconfiguration of this side. errors.Is(err, ErrAuthentication)
// tells them apart.
var ErrAuthentication = errors.New("sasl: authentication failed")

// ErrUncaught marks the refusals where the JDK's mechanism throws an
// unchecked exception rather than a SaslException (a maxbuf that is not
// a number, a user name that is not a valid Kerberos name). Java's
// ZooKeeperServer.processSasl does not catch those, and the connection is
// dropped without an answer; package server does the same. These errors
// wrap ErrAuthentication too.
var ErrUncaught = errors.New("the JDK fails here with an unchecked exception")

// ServerFactory starts the server side of one exchange per connection for
// the mechanism a JAAS section selects.
type ServerFactory interface {
	Mechanism() string
	NewServer() (Server, error)
}

// ServerOptions are the server-wide settings a mechanism may need beyond
// its JAAS section.
type ServerOptions struct {
	// Section is the JAAS section the server logs in with ("Server" unless
	// zookeeper.sasl.serverconfig says otherwise).
	Section *JAASSection
	// SuperPassword is zookeeper.SASLAuthenticationProvider.superPassword:
	// when set it is the DIGEST-MD5 password of the user "super",
	// replacing any user_super option.
	SuperPassword    string
	HasSuperPassword bool
	// RemoveHostFromPrincipal and RemoveRealmFromPrincipal are
	// zookeeper.kerberos.removeHostFromPrincipal and
	// zookeeper.kerberos.removeRealmFromPrincipal ("true" exactly, as
	// Java compares them).
	RemoveHostFromPrincipal  bool
	RemoveRealmFromPrincipal bool
	// Property looks up a Java system property (a -D flag or zoo.cfg
	// key), for mechanisms with settings of their own (javax.security.sasl.qop,
	// sun.security.krb5.*). Nil means none is set.
	Property func(name string) (string, bool)
	// Logf, when set, receives the lines Java's callback handler logs
	// (an unknown user, the authenticated ids).
	Logf func(level, format string, args ...any)
}

// ServerMechanismBuilder builds a ServerFactory from the section entry
// whose login module it was registered for.
type ServerMechanismBuilder func(entry JAASEntry, opts ServerOptions) (ServerFactory, error)

var (
	registryMu sync.Mutex
	registry   = map[string]ServerMechanismBuilder{}
)

// RegisterServerLoginModule makes NewServerFactory use build when a
// section holds an entry for the login module class. It is how GSSAPI
// (Krb5LoginModule) plugs in; DigestLoginModule is the default for every
// section without a registered module, as Java's server falls back to
// DIGEST-MD5 whenever the login subject holds no Kerberos principal.
func RegisterServerLoginModule(class string, build ServerMechanismBuilder) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[class] = build
}

// RegisteredServerLoginModules lists the classes registered so far.
func RegisteredServerLoginModules() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]string, 0, len(registry))
	for c := range registry {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// NewServerFactory picks the mechanism for opts.Section as Java's
// ZooKeeperSaslServer does: an entry whose login module has a registered
// builder (Krb5LoginModule once GSSAPI is linked in) decides it;
// otherwise the server speaks DIGEST-MD5 with the section's user_NAME
// options.
func NewServerFactory(opts ServerOptions) (ServerFactory, error) {
	if opts.Section == nil {
		return nil, errors.New("sasl: no JAAS section to log in with")
	}
	registryMu.Lock()
	var build ServerMechanismBuilder
	var entry JAASEntry
	for _, e := range opts.Section.Entries {
		if b, ok := registry[e.LoginModule]; ok {
			build, entry = b, e
			break
		}
	}
	registryMu.Unlock()
	if build != nil {
		f, err := build(entry, opts)
		if err != nil {
			return nil, fmt.Errorf("sasl: section %s, login module %s: %w", opts.Section.Name, entry.LoginModule, err)
		}
		return f, nil
	}
	for _, e := range opts.Section.Entries {
		if e.LoginModule == Krb5LoginModule {
			return nil, fmt.Errorf("sasl: section %s uses %s (GSSAPI), which this build does not include", opts.Section.Name, Krb5LoginModule)
		}
	}
	return NewDigestServerFactory(DigestServerConfig{
		Users:                    opts.Section.DigestUsers(),
		SuperPassword:            opts.SuperPassword,
		HasSuperPassword:         opts.HasSuperPassword,
		RemoveHostFromPrincipal:  opts.RemoveHostFromPrincipal,
		RemoveRealmFromPrincipal: opts.RemoveRealmFromPrincipal,
		Property:                 opts.Property,
		Logf:                     opts.Logf,
	})
}
