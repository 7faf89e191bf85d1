package sasl

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/types"
)

func init() {
	RegisterServerLoginModule(Krb5LoginModule, buildGSSAPIServer)
}

// buildGSSAPIServer is the registry's builder for a section whose login
// module is Krb5LoginModule, as Java's ZooKeeperSaslServer switches to
// GSSAPI when its login subject holds a Kerberos principal.
func property(lookup func(string) (string, bool), name string) string {
	if lookup == nil {
		return ""
	}
	v, _ := lookup(name)
	return v
}

func buildGSSAPIServer(entry JAASEntry, opts ServerOptions) (ServerFactory, error) {
	name := ""
	if opts.Section != nil {
		name = opts.Section.Name
	}
	login, err := Krb5LoginFromEntry(name, entry)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: %w", err)
	}
	f, err := NewGSSAPIServerFactory(GSSAPIServerConfig{
		Login:       login,
		Krb5Conf:    Krb5ConfPath(opts.Property),
		RemoveHost:  opts.RemoveHostFromPrincipal,
		RemoveRealm: opts.RemoveRealmFromPrincipal,
		AuthToLocal: property(opts.Property, AuthToLocalProperty),
		Logf:        opts.Logf,
	})
	if err != nil {
		// Name the mechanism: the caller's message names the section
		// and the login module, not what they select.
		return nil, fmt.Errorf("GSSAPI: %w", err)
	}
	return f, nil
}

// GSSAPIServerConfig is the acceptor's side of GSSAPI.
type GSSAPIServerConfig struct {
	// Login names the service principal and its keytab (the Server
	// section's Krb5LoginModule entry; QuorumServer's for quorum SASL).
	Login Krb5Login
	// Krb5Conf is the krb5.conf path (see Krb5ConfPath). The acceptor
	// only needs it for the default realm and the clock skew, so a
	// missing file is not an error when the principal names its realm.
	Krb5Conf string
	// RemoveHost and RemoveRealm are zookeeper.kerberos.removeHostFromPrincipal
	// and removeRealmFromPrincipal, for the default Authorize.
	RemoveHost, RemoveRealm bool
	// AuthToLocal is zookeeper.security.auth_to_local, the rules that
	// make a principal's short name ("" = "DEFAULT"); see
	// KerberosNameRules.
	AuthToLocal string
	// Authorize decides whether the authenticated principal may act as
	// the authorization id the client asked for, and returns the id the
	// connection gets. Nil means ZooKeeper's client-port rule: always
	// allowed, the id shaped from the principal (ShapeAuthorizationID).
	// Quorum SASL sets its own (the principal must equal the authorization
	// id and name an ensemble member's host).
	Authorize func(authenticationID, authorizationID string) (string, error)
	// Logf, when set, gets the lines Java's callback handler logs.
	Logf func(level, format string, args ...any)
}

// GSSAPIServerFactory holds an acceptor's keytab and starts one Server per
// connection.
type GSSAPIServerFactory struct {
	cfg          GSSAPIServerConfig
	keytab       *keytab.Keytab
	principal    types.PrincipalName
	realm        string
	defaultRealm string
	rules        *KerberosNameRules
	skew         time.Duration
}

// NewGSSAPIServerFactory loads the keytab and checks it holds a key for
// the principal, so that a misconfiguration shows at start, not at the
// first client.
func NewGSSAPIServerFactory(cfg GSSAPIServerConfig) (*GSSAPIServerFactory, error) {
	l := cfg.Login
	if l.Principal == "" {
		return nil, fmt.Errorf("%s: Krb5LoginModule has no principal option", l.where())
	}
	if l.Principal == "*" {
		return nil, fmt.Errorf("%s: principal=\"*\" (any principal of the keytab) is not supported; name the service principal", l.where())
	}
	if !l.UseKeyTab || l.KeyTab == "" {
		return nil, fmt.Errorf("%s: a GSSAPI server needs its key: set useKeyTab=true and keyTab=\"/path/to/keytab\"", l.where())
	}
	if !l.StoreKey && l.IsInitiator {
		// Java's Krb5LoginModule keeps no key in the subject then, and
		// its GSSAPI server cannot accept a ticket.
		return nil, fmt.Errorf("%s: storeKey is not true, so the key is not kept for accepting tickets (Java fails the same way); set storeKey=true", l.where())
	}
	f := &GSSAPIServerFactory{cfg: cfg, skew: 5 * time.Minute}
	krbCfg, confErr := loadKrb5Conf(cfg.Krb5Conf)
	if confErr == nil {
		f.defaultRealm = krbCfg.LibDefaults.DefaultRealm
		if krbCfg.LibDefaults.Clockskew > 0 {
			f.skew = krbCfg.LibDefaults.Clockskew
		}
	}
	rules, err := ParseKerberosNameRules(cfg.AuthToLocal, f.defaultRealm)
	if err != nil {
		return nil, err
	}
	f.rules = rules
	name, realm, hasRealm := strings.Cut(l.Principal, "@")
	if !hasRealm {
		if f.defaultRealm == "" {
			if confErr != nil {
				return nil, fmt.Errorf("%s: principal %q names no realm and there is no default realm: %v", l.where(), l.Principal, confErr)
			}
			return nil, fmt.Errorf("%s: principal %q names no realm and %s sets no default_realm", l.where(), l.Principal, cfg.Krb5Conf)
		}
		realm = f.defaultRealm
	}
	f.realm = realm
	f.principal = types.NewPrincipalName(1, name) // KRB_NT_PRINCIPAL; name types are not compared
	kt, err := keytab.Load(l.KeyTab)
	if err != nil {
		return nil, fmt.Errorf("%s: keyTab %s: %v", l.where(), l.KeyTab, err)
	}
	found := false
	for _, e := range kt.Entries {
		if e.Principal.Realm == realm && strings.Join(e.Principal.Components, "/") == name {
			found = true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: keyTab %s has no key for %s@%s", l.where(), l.KeyTab, name, realm)
	}
	f.keytab = kt
	return f, nil
}

// Mechanism is "GSSAPI".
func (f *GSSAPIServerFactory) Mechanism() string { return MechanismGSSAPI }

// Principal is the service principal, with its realm.
func (f *GSSAPIServerFactory) Principal() string {
	return f.principal.PrincipalNameString() + "@" + f.realm
}

// DefaultRealm is krb5.conf's default_realm ("" without one).
func (f *GSSAPIServerFactory) DefaultRealm() string { return f.defaultRealm }

// NewServer starts the acceptor side of one exchange.
func (f *GSSAPIServerFactory) NewServer() (Server, error) {
	return &gssapiServer{f: f}, nil
}

type gssapiServerStage int

const (
	awaitingAPReq gssapiServerStage = iota
	awaitingEmpty                   // context established; the client's empty answer to the AP-REP comes next
	awaitingLayer                   // the layer offer was sent; the client's choice comes next
	serverDone
	serverFailed
)

// gssapiServer is one acceptor exchange, in the steps of the JDK's
// GssKrb5Server: accept the AP-REQ; when the client asked for mutual
// authentication answer with an AP-REP and wait for its empty response,
// else go on at once; offer the security layers in a wrap token; read
// the client's choice and authorization id.
type gssapiServer struct {
	f       *GSSAPIServerFactory
	stage   gssapiServerStage
	key     types.EncryptionKey // the key wrap tokens use
	seq     uint64              // our next sequence number
	peer    string              // the client's principal
	authzID string
}

func (s *gssapiServer) Mechanism() string       { return MechanismGSSAPI }
func (s *gssapiServer) Complete() bool          { return s.stage == serverDone }
func (s *gssapiServer) AuthorizationID() string { return s.authzID }

// Evaluate takes the client's next token.
func (s *gssapiServer) Evaluate(response []byte) ([]byte, error) {
	var out []byte
	var err error
	switch s.stage {
	case awaitingAPReq:
		out, err = s.accept(response)
	case awaitingEmpty:
		out, err = s.offerLayers(response)
	case awaitingLayer:
		err = s.readLayerChoice(response)
	case serverDone:
		return nil, errors.New("sasl: GSSAPI: the exchange is already complete")
	default:
		return nil, errors.New("sasl: GSSAPI: the exchange already failed")
	}
	if err != nil {
		s.stage = serverFailed
		return nil, err
	}
	return out, nil
}

func authFailed(format string, args ...any) error {
	return fmt.Errorf("%w: GSSAPI: %s", ErrAuthentication, fmt.Sprintf(format, args...))
}

func (s *gssapiServer) accept(token []byte) ([]byte, error) {
	req, err := parseAPReqToken(token)
	if err != nil {
		return nil, authFailed("%v", err)
	}
	f := s.f
	sname := req.Ticket.SName.PrincipalNameString()
	if sname != f.principal.PrincipalNameString() || req.Ticket.Realm != f.realm {
		return nil, authFailed("the ticket is for %s@%s, this server is %s", sname, req.Ticket.Realm, f.Principal())
	}
	settings := service.NewSettings(f.keytab, service.MaxClockSkew(f.skew), service.DecodePAC(false), service.KeytabPrincipal(sname))
	ok, creds, err := service.VerifyAPREQ(&req, settings)
	if err != nil || !ok {
		return nil, authFailed("ticket for %s not accepted: %v", f.Principal(), describeKrbErr(err))
	}
	cksum, err := parseGSSChecksum(req.Authenticator.Cksum)
	if err != nil {
		return nil, authFailed("%v", err)
	}
	s.peer = creds.CName().PrincipalNameString() + "@" + creds.Realm()
	// Wrap tokens use the initiator's subkey when it sent one (MIT and
	// the JDK always do), else the ticket's session key; the acceptor
	// sends no subkey of its own, as the JDK's does by default.
	s.key = req.Ticket.DecryptedEncPart.Key
	if req.Authenticator.SubKey.KeyType != 0 && len(req.Authenticator.SubKey.KeyValue) > 0 {
		s.key = req.Authenticator.SubKey
	}
	mutual := cksum&gssFlagMutual != 0 || types.IsFlagSet(&req.APOptions, flags.APOptionMutualRequired)
	if !mutual {
		// The context is established with no token to send (the JDK's
		// client asks for no mutual authentication unless
		// javax.security.sasl.server.authentication is true, and
		// ZooKeeper does not set it). Our sequence numbers then start at
		// the initiator's (RFC 4121 4.2.6), and, as the JDK's server does,
		// the layer offer goes out at once.
		s.seq = uint64(req.Authenticator.SeqNumber)
		return s.offerLayers(nil)
	}
	seq := randomSeq()
	s.seq = uint64(seq)
	rep, err := makeAPRep(req.Authenticator, req.Ticket.DecryptedEncPart.Key, seq)
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: %v", err)
	}
	s.stage = awaitingEmpty
	return rep, nil
}

// describeKrbErr prefers a KRB-ERROR's text, which names the reason
// (clock skew, replay...).
func describeKrbErr(err error) string {
	if err == nil {
		return "not valid"
	}
	var ke messages.KRBError
	if errors.As(err, &ke) {
		return ke.EText
	}
	return err.Error()
}

func (s *gssapiServer) offerLayers(response []byte) ([]byte, error) {
	if len(response) > 0 {
		return nil, authFailed("the client sent %d bytes where the empty answer to the AP-REP was expected", len(response))
	}
	tok, err := wrapToken(layerMessage(layerNone, maxBufferSize, ""), s.key, true, false, s.seq)
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: wrap: %v", err)
	}
	s.seq++
	s.stage = awaitingLayer
	return tok, nil
}

func (s *gssapiServer) readLayerChoice(response []byte) error {
	plain, err := unwrapToken(response, false, func(bool) (types.EncryptionKey, error) { return s.key, nil })
	if err != nil {
		return authFailed("%v", err)
	}
	layers, _, authz, err := parseLayerMessage(plain)
	if err != nil {
		return authFailed("%v", err)
	}
	if layers&layerNone == 0 || layers&(layerIntegrity|layerPrivacy) != 0 {
		return authFailed("the client chose security layer %#x; only 1 (none) was offered", layers)
	}
	if authz == "" {
		authz = s.peer
	}
	if s.f.cfg.Logf != nil {
		s.f.cfg.Logf("info", "Successfully authenticated client: authenticationID=%s;  authorizationID=%s.", s.peer, authz)
	}
	if s.f.cfg.Authorize != nil {
		id, err := s.f.cfg.Authorize(s.peer, authz)
		if err != nil {
			return fmt.Errorf("%w: GSSAPI: %s may not act as %s: %v", ErrAuthentication, s.peer, authz, err)
		}
		s.authzID = id
	} else {
		id, err := ShapeAuthorizationID(s.peer, s.f.rules, s.f.cfg.RemoveHost, s.f.cfg.RemoveRealm)
		if err == nil {
			if s.f.cfg.Logf != nil {
				s.f.cfg.Logf("info", "Setting authorizedID: %s", id)
			}
			authz = id
		} else {
			// No auth_to_local rule applies (by default: a principal of
			// another realm). Java then keeps whatever authorization id
			// the client asked for, which would let a cross-realm client
			// name itself anything; gozk keeps the authenticated
			// principal instead.
			if s.f.cfg.Logf != nil {
				s.f.cfg.Logf("error", "Failed to set name based on Kerberos authentication rules: %v (default realm %q); using the principal as it is", err, s.f.defaultRealm)
			}
			authz = s.peer
		}
		s.authzID = authz
	}
	s.stage = serverDone
	return nil
}
