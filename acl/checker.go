package acl

import (
	"errors"
	"fmt"

	"github.com/gozk/gozk/proto"
)

// Errors of Authenticate. Every one of them is answered the same way by
// Java: ReplyHeader(xid, 0, AuthFailed), then the connection is closed;
// except ErrEnsembleRejected, where Java closes the connection before its
// AuthFailed reply can be written, so the client sees no reply at all.
var (
	// ErrNoProvider: the scheme has no provider (unknown, disabled, or
	// one of world, auth, super).
	ErrNoProvider = errors.New("acl: no authentication provider for scheme")
	// ErrAuthFailed: the provider refused the credentials.
	ErrAuthFailed = errors.New("acl: authentication failed")
	// ErrCertificateRequired wraps ErrAuthFailed for an x509 auth packet:
	// Java re-validates the connection's TLS client certificate chain and
	// succeeds only if there is one it trusts. A server with such a
	// certificate at hand may answer OK and add X509Identities instead.
	ErrCertificateRequired = fmt.Errorf("%w: x509 needs a trusted TLS client certificate", ErrAuthFailed)
	// ErrEnsembleRejected: the ensemble name is not one of
	// zookeeper.ensembleAuthName; close without replying.
	ErrEnsembleRejected = errors.New("acl: unexpected ensemble name")
)

// Authenticate handles an auth packet (opcode 100) and returns the
// identities to add to the connection (with AddIdentity, in the order
// returned), or an error, after which the server answers AuthFailed and
// closes the connection (see the Err values). auth is the packet's auth
// buffer, nil when it was null. remoteIP is the peer address as
// IPIdentity takes it.
//
//   - ip: always succeeds and returns the remote address again.
//   - digest: never fails for real data: auth is "user:password", decoded
//     as Java decodes bytes; the identity is digest:DigestID, preceded by
//     super:"" when it equals the configured SuperDigest. A null buffer
//     fails, as Java's NullPointerException does.
//   - sasl: always fails; SASL runs through opcode 102.
//   - x509: ErrCertificateRequired.
//   - ensemble: succeeds with no identity when the data is empty or
//     names a configured ensemble (or none is configured).
func (c *Checker) Authenticate(scheme string, auth []byte, remoteIP string) ([]proto.Id, error) {
	if !c.hasProvider(scheme) {
		return nil, fmt.Errorf("%w %q", ErrNoProvider, scheme)
	}
	switch scheme {
	case SchemeIP:
		return []proto.Id{IPIdentity(remoteIP)}, nil
	case SchemeDigest:
		if auth == nil {
			return nil, fmt.Errorf("%w: digest without auth data", ErrAuthFailed)
		}
		id := digestIDWith(javaDecodeUTF8(auth), c.newHash)
		digestID := proto.Id{Scheme: SchemeDigest, Id: id}
		if c.superDigest != "" && id == c.superDigest {
			return []proto.Id{{Scheme: SchemeSuper, Id: ""}, digestID}, nil
		}
		return []proto.Id{digestID}, nil
	case SchemeSASL:
		return nil, fmt.Errorf("%w: sasl is negotiated with sasl packets", ErrAuthFailed)
	case SchemeX509:
		return nil, ErrCertificateRequired
	case SchemeEnsemble:
		if len(auth) == 0 || c.ensembleNames == nil || c.ensembleNames[javaDecodeUTF8(auth)] {
			return nil, nil
		}
		return nil, ErrEnsembleRejected
	}
	return nil, fmt.Errorf("%w %q", ErrNoProvider, scheme)
}

// X509Identities returns the identities a TLS connection gains once its
// client certificate chain is verified: x509:<subject DN>, preceded by
// super:<subject DN> when the subject is the configured X509SuperUser.
// subjectDN must be the RFC 2253 form Java's X500Principal.getName()
// prints.
func (c *Checker) X509Identities(subjectDN string) []proto.Id {
	x509 := proto.Id{Scheme: SchemeX509, Id: subjectDN}
	if c.x509SuperUser != "" && subjectDN == c.x509SuperUser {
		return []proto.Id{{Scheme: SchemeSuper, Id: subjectDN}, x509}
	}
	return []proto.Id{x509}
}

// SASLIdentities returns the identities a connection gains when its SASL
// exchange completes: sasl:<authorization id>, followed by super:"" when
// the id is one of the SASL super users.
func (c *Checker) SASLIdentities(authorizationID string) []proto.Id {
	ids := []proto.Id{{Scheme: SchemeSASL, Id: authorizationID}}
	for _, u := range c.saslSuperUsers {
		if u == authorizationID {
			return append(ids, proto.Id{Scheme: SchemeSuper, Id: ""})
		}
	}
	return ids
}

// Allowed reports whether a connection holding ids may use permission
// bits perm on a node whose ACL is acl (ZooKeeperServer.checkACL): always
// with skipACL, with an empty ACL, or with any super identity; otherwise
// when an entry granting any bit of perm is world:anyone or matches one of
// the identities of its scheme through that scheme's provider. Callers
// answer NoAuth on false. It does not allocate.
func (c *Checker) Allowed(acl []proto.ACL, perm int32, ids []proto.Id) bool {
	if c.skipACL || len(acl) == 0 {
		return true
	}
	for i := range ids {
		if ids[i].Scheme == SchemeSuper {
			return true
		}
	}
	for i := range acl {
		entry := &acl[i]
		if entry.Perms&perm == 0 {
			continue
		}
		if entry.Id.Scheme == SchemeWorld && entry.Id.Id == "anyone" {
			return true
		}
		if !c.hasProvider(entry.Id.Scheme) {
			continue
		}
		for j := range ids {
			if ids[j].Scheme == entry.Id.Scheme && c.matches(entry.Id.Scheme, ids[j].Id, entry.Id.Id) {
				return true
			}
		}
	}
	return false
}

// matches is the provider's matches(id, aclExpr) for a registered scheme.
func (c *Checker) matches(scheme, id, expr string) bool {
	switch scheme {
	case SchemeIP:
		return matchIP(id, expr)
	case SchemeDigest:
		return id == expr
	case SchemeSASL:
		return id == "super" || id == expr || (c.letAnySASLUserDoX != "" && expr == c.letAnySASLUserDoX)
	case SchemeX509:
		return (c.x509SuperUser != "" && id == c.x509SuperUser) || id == expr
	}
	return false // ensemble never matches
}

// authenticatedScheme reports whether identities of a registered scheme
// stand for an authenticated principal, the ones an "auth" ACL entry
// expands to.
func authenticatedScheme(scheme string) bool {
	return scheme == SchemeDigest || scheme == SchemeSASL || scheme == SchemeX509
}

// validACLID is the provider's isValid for a registered scheme.
func validACLID(scheme, id string) bool {
	switch scheme {
	case SchemeIP:
		return validIPACL(id)
	case SchemeDigest:
		return validDigestACL(id)
	case SchemeSASL:
		return validKerberosName(id)
	case SchemeX509:
		return validX500Name(id)
	}
	return false // ensemble ids are never valid
}

// FixupACL turns the ACL of a create or setACL request into the ACL to
// store (PrepRequestProcessor.fixupACL): exact duplicates are dropped
// (the first stays in place); world:anyone entries stay; each auth entry
// (whatever its id) becomes one entry per authenticated identity (digest,
// sasl, x509) of the connection, in ids order, with the same perms; every
// other entry must name a registered scheme whose provider accepts the id.
// An empty list, an auth entry without authenticated identities, or an
// invalid entry gives ErrInvalidACL. Duplicates created by the expansion
// stay, as in Java. acl is not modified; the result is acl itself when
// it is the single entry world:anyone, else a new slice.
func (c *Checker) FixupACL(acl []proto.ACL, ids []proto.Id) ([]proto.ACL, proto.ErrCode) {
	if len(acl) == 1 && acl[0].Id.Scheme == SchemeWorld && acl[0].Id.Id == "anyone" {
		// OPEN_ACL_UNSAFE, the ACL of nearly every create: nothing to
		// remove or expand, so the caller's slice is the answer and a write
		// builds no copies of it.
		return acl, proto.ErrOK
	}
	unique := removeDuplicateACL(acl)
	if len(unique) == 0 {
		return nil, proto.ErrInvalidACL
	}
	out := make([]proto.ACL, 0, len(unique))
	for _, entry := range unique {
		switch {
		case entry.Id.Scheme == SchemeWorld && entry.Id.Id == "anyone":
			out = append(out, entry)
		case entry.Id.Scheme == SchemeAuth:
			expanded := false
			for _, id := range ids {
				if c.hasProvider(id.Scheme) && authenticatedScheme(id.Scheme) {
					out = append(out, proto.ACL{Perms: entry.Perms, Id: id})
					expanded = true
				}
			}
			if !expanded {
				return nil, proto.ErrInvalidACL
			}
		default:
			if !c.hasProvider(entry.Id.Scheme) || !validACLID(entry.Id.Scheme, entry.Id.Id) {
				return nil, proto.ErrInvalidACL
			}
			out = append(out, entry)
		}
	}
	return out, proto.ErrOK
}

// removeDuplicateACL returns a new slice with the first occurrence of
// each distinct entry, in order. Java compares with a linear scan; a set
// gives the same result without quadratic cost on long lists.
func removeDuplicateACL(acl []proto.ACL) []proto.ACL {
	out := make([]proto.ACL, 0, len(acl))
	if len(acl) <= 16 {
	next:
		for _, entry := range acl {
			for _, kept := range out {
				if kept == entry {
					continue next
				}
			}
			out = append(out, entry)
		}
		return out
	}
	seen := make(map[proto.ACL]struct{}, len(acl))
	for _, entry := range acl {
		if _, dup := seen[entry]; dup {
			continue
		}
		seen[entry] = struct{}{}
		out = append(out, entry)
	}
	return out
}

// WhoAmI returns the whoAmI (opcode 107) reply for a connection holding
// ids, one ClientInfo per identity in ids order: the scheme and the
// provider's user name (digest: the part before ':'; ip, sasl, x509,
// ensemble: the id; schemes without a provider, such as super: "").
func (c *Checker) WhoAmI(ids []proto.Id) []proto.ClientInfo {
	out := make([]proto.ClientInfo, len(ids))
	for i, id := range ids {
		out[i].AuthScheme = id.Scheme
		switch {
		case !c.hasProvider(id.Scheme):
		case id.Scheme == SchemeDigest:
			out[i].User = digestUserName(id.Id)
		default:
			out[i].User = id.Id
		}
	}
	return out
}

// EnforcesAuth reports whether authentication is mandatory
// (zookeeper.enforce.auth.enabled or sessionRequireClientSASLAuth).
func (c *Checker) EnforcesAuth() bool { return len(c.enforceSchemes) > 0 }

// SASLAuthRequired reports whether sasl is one of the enforced schemes;
// a failed SASL exchange is then answered SessionClosedRequireSaslAuth
// instead of AuthFailed, and allowSaslFailedClients is ignored.
func (c *Checker) SASLAuthRequired() bool {
	for _, s := range c.enforceSchemes {
		if s == SchemeSASL {
			return true
		}
	}
	return false
}

// SatisfiesEnforcedAuth reports whether a connection holding ids may send
// requests other than auth and sasl: true when nothing is enforced or one
// identity has an enforced scheme. On false Java answers the request
// ReplyHeader(xid, 0, SessionClosedRequireSaslAuth) and closes.
func (c *Checker) SatisfiesEnforcedAuth(ids []proto.Id) bool {
	if len(c.enforceSchemes) == 0 {
		return true
	}
	for i := range ids {
		for _, s := range c.enforceSchemes {
			if ids[i].Scheme == s {
				return true
			}
		}
	}
	return false
}
