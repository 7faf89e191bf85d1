package acl

import (
	"errors"
	"fmt"
	"hash"
)

// Built-in provider classes a zoo.cfg may name in authProvider.<x>. Java
// loads any class; gozk maps these to its own providers.
const (
	ClassSASLProvider     = "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"
	ClassX509Provider     = "org.apache.zookeeper.server.auth.X509AuthenticationProvider"
	ClassEnsembleProvider = "org.apache.zookeeper.server.auth.EnsembleAuthenticationProvider"
	ClassDigestProvider   = "org.apache.zookeeper.server.auth.DigestAuthenticationProvider"
	ClassIPProvider       = "org.apache.zookeeper.server.auth.IPAuthenticationProvider"
)

// Schemes that have no provider of their own but mean something in ACLs
// and identities.
const (
	SchemeWorld    = "world"
	SchemeAuth     = "auth"
	SchemeSuper    = "super"
	SchemeSASL     = "sasl"
	SchemeX509     = "x509"
	SchemeEnsemble = "ensemble"
)

// Config is the authentication part of a server's configuration. Start
// from DefaultConfig: the zero value has digest authentication disabled.
type Config struct {
	// SkipACL is skipACL=yes: every permission check passes.
	SkipACL bool
	// SuperDigest is zookeeper.DigestAuthenticationProvider.superDigest,
	// "super:<base64>"; a digest auth producing exactly this id is super.
	// "" means none.
	SuperDigest string
	// DigestEnabled is zookeeper.DigestAuthenticationProvider.enabled
	// (Java default true). Naming ClassDigestProvider in ExtraProviders
	// registers digest even when this is false, as in Java.
	DigestEnabled bool
	// DigestAlg is zookeeper.DigestAuthenticationProvider.digestAlg, a
	// Java MessageDigest name, case-insensitive ("" = SHA1). It is
	// checked even when digest is disabled: Java fails to start then too.
	DigestAlg string
	// ExtraProviders are the class names of the authProvider.<x> keys.
	// ClassSASLProvider, ClassX509Provider and ClassEnsembleProvider add
	// the sasl, x509 and ensemble schemes; the digest and ip classes are
	// accepted too. Any other class is an error (Java would log a warning
	// and go on without it). Java registers x509 by itself when a secure
	// client port is configured; the caller adds ClassX509Provider then.
	ExtraProviders []string

	// X509SuperUser is zookeeper.X509AuthenticationProvider.superUser, the
	// subject DN of the TLS super user ("" = none).
	X509SuperUser string
	// SASLSuperUsers are the values of zookeeper.superUser and every
	// zookeeper.superUser.<suffix>.
	SASLSuperUsers []string
	// LetAnySASLUserDoX is zookeeper.letAnySaslUserDoX: a sasl ACL entry
	// with this id matches every sasl identity ("" = none).
	LetAnySASLUserDoX string
	// EnsembleNames are the names of zookeeper.ensembleAuthName (see
	// SplitTrimmed). nil means the property is unset and the ensemble
	// scheme accepts anything; an empty non-nil slice accepts only empty
	// auth data.
	EnsembleNames []string

	// EnforceAuthEnabled and EnforceAuthSchemes are
	// zookeeper.enforce.auth.enabled and zookeeper.enforce.auth.schemes
	// (see SplitTrimmed).
	EnforceAuthEnabled bool
	EnforceAuthSchemes []string
	// SessionRequireClientSASLAuth is
	// zookeeper.sessionRequireClientSASLAuth; when true it replaces the
	// two settings above with "enforce sasl".
	SessionRequireClientSASLAuth bool
}

// DefaultConfig returns Java's defaults: digest on with SHA1, nothing
// else.
func DefaultConfig() Config {
	return Config{DigestEnabled: true, DigestAlg: DefaultDigestAlg}
}

// Checker answers authentication and permission questions for one server
// configuration. It is immutable and safe for concurrent use.
type Checker struct {
	skipACL     bool
	superDigest string
	newHash     func() hash.Hash

	digest, sasl, x509, ensemble bool

	x509SuperUser     string
	saslSuperUsers    []string
	letAnySASLUserDoX string
	ensembleNames     map[string]bool // nil: accept any name

	enforceSchemes []string // nil: nothing enforced
}

// NewChecker validates cfg and builds a Checker. It fails where Java
// would refuse to start (an unknown digest algorithm, enforced
// authentication without schemes or with a scheme that has no provider)
// and on authProvider classes gozk does not have.
func NewChecker(cfg Config) (*Checker, error) {
	newHash, err := digestHash(cfg.DigestAlg)
	if err != nil {
		return nil, err
	}
	c := &Checker{
		skipACL:           cfg.SkipACL,
		superDigest:       cfg.SuperDigest,
		newHash:           newHash,
		digest:            cfg.DigestEnabled,
		x509SuperUser:     cfg.X509SuperUser,
		letAnySASLUserDoX: cfg.LetAnySASLUserDoX,
	}
	for _, class := range cfg.ExtraProviders {
		switch class {
		case ClassSASLProvider:
			c.sasl = true
		case ClassX509Provider:
			c.x509 = true
		case ClassEnsembleProvider:
			c.ensemble = true
		case ClassDigestProvider:
			c.digest = true
		case ClassIPProvider:
			// always registered
		default:
			return nil, fmt.Errorf("acl: authentication provider class %q is not available in gozk", class)
		}
	}
	for _, u := range cfg.SASLSuperUsers {
		if u != "" {
			c.saslSuperUsers = append(c.saslSuperUsers, u)
		}
	}
	if cfg.EnsembleNames != nil {
		c.ensembleNames = make(map[string]bool, len(cfg.EnsembleNames))
		for _, n := range cfg.EnsembleNames {
			c.ensembleNames[n] = true
		}
	}
	switch {
	case cfg.SessionRequireClientSASLAuth:
		c.enforceSchemes = []string{SchemeSASL}
	case cfg.EnforceAuthEnabled:
		if len(cfg.EnforceAuthSchemes) == 0 {
			return nil, errors.New("acl: zookeeper.enforce.auth.enabled is true but zookeeper.enforce.auth.schemes is empty")
		}
		c.enforceSchemes = append([]string(nil), cfg.EnforceAuthSchemes...)
	}
	for _, scheme := range c.enforceSchemes {
		if !c.hasProvider(scheme) {
			return nil, fmt.Errorf("acl: enforced authentication scheme %q is not available", scheme)
		}
	}
	return c, nil
}

// hasProvider reports whether scheme has a registered provider: what
// ProviderRegistry.getProvider finds.
func (c *Checker) hasProvider(scheme string) bool {
	switch scheme {
	case SchemeIP:
		return true
	case SchemeDigest:
		return c.digest
	case SchemeSASL:
		return c.sasl
	case SchemeX509:
		return c.x509
	case SchemeEnsemble:
		return c.ensemble
	}
	return false
}

// HasProvider reports whether the server knows the auth scheme (auth
// packets with other schemes fail, ACLs naming them are invalid).
func (c *Checker) HasProvider(scheme string) bool { return c.hasProvider(scheme) }

// SkipACL reports whether skipACL=yes is in force.
func (c *Checker) SkipACL() bool { return c.skipACL }
