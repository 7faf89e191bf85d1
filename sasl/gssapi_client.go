package sasl

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// GSSAPIInitiator is a logged-in Kerberos client (the JAAS subject of a
// Client or QuorumLearner section): it holds the TGT and the service
// tickets it got, and starts one Client per connection.
type GSSAPIInitiator struct {
	login     Krb5Login
	cfg       *config.Config
	principal string // with realm
	property  func(string) (string, bool)

	mu sync.Mutex
	cl *client.Client
}

// NewGSSAPIInitiatorFromSection logs in with the section's
// Krb5LoginModule entry (for quorum SASL: the QuorumLearner section).
// property looks up Java system properties (java.security.krb5.conf,
// zookeeper.server.realm); nil means none is set.
func NewGSSAPIInitiatorFromSection(s *JAASSection, property func(string) (string, bool)) (*GSSAPIInitiator, error) {
	login, err := Krb5LoginFromSection(s)
	if err != nil {
		return nil, err
	}
	return NewGSSAPIInitiator(login, Krb5ConfPath(property), property)
}

// NewGSSAPIInitiator logs in to the KDC of krb5conf with the keytab (or
// ticket cache) that login names, as Krb5LoginModule does at login.
func NewGSSAPIInitiator(login Krb5Login, krb5conf string, property func(string) (string, bool)) (*GSSAPIInitiator, error) {
	if !login.IsInitiator {
		return nil, fmt.Errorf("%s: isInitiator=false: this principal cannot start a GSSAPI exchange", login.where())
	}
	cfg, err := loadKrb5Conf(krb5conf)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", login.where(), err)
	}
	i := &GSSAPIInitiator{login: login, cfg: cfg, property: property}
	var cl *client.Client
	switch {
	case login.UseKeyTab && login.KeyTab != "":
		if login.Principal == "" {
			return nil, fmt.Errorf("%s: useKeyTab=true needs a principal option", login.where())
		}
		name, realm, ok := strings.Cut(login.Principal, "@")
		if !ok {
			realm = cfg.LibDefaults.DefaultRealm
			if realm == "" {
				return nil, fmt.Errorf("%s: principal %q names no realm and %s sets no default_realm", login.where(), login.Principal, krb5conf)
			}
		}
		kt, err := keytab.Load(login.KeyTab)
		if err != nil {
			return nil, fmt.Errorf("%s: keyTab %s: %v", login.where(), login.KeyTab, err)
		}
		cl = client.NewWithKeytab(name, realm, kt, cfg, client.DisablePAFXFAST(true))
	case login.UseTicketCache:
		path := login.TicketCache
		if path == "" {
			path = defaultTicketCache()
		}
		cc, err := credentials.LoadCCache(path)
		if err != nil {
			return nil, fmt.Errorf("%s: ticket cache %s: %v", login.where(), path, err)
		}
		cl, err = client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true))
		if err != nil {
			return nil, fmt.Errorf("%s: ticket cache %s: %v", login.where(), path, err)
		}
	default:
		return nil, fmt.Errorf("%s: Krb5LoginModule needs useKeyTab=true with keyTab and principal, or useTicketCache=true", login.where())
	}
	if err := cl.Login(); err != nil {
		return nil, fmt.Errorf("%s: Kerberos login as %s failed: %v", login.where(), login.Principal, err)
	}
	i.cl = cl
	i.principal = cl.Credentials.CName().PrincipalNameString() + "@" + cl.Credentials.Realm()
	return i, nil
}

// defaultTicketCache is where MIT's kinit writes: KRB5CCNAME, else
// /tmp/krb5cc_<uid>.
func defaultTicketCache() string {
	if v := os.Getenv("KRB5CCNAME"); v != "" {
		return strings.TrimPrefix(v, "FILE:")
	}
	return fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
}

// Principal is the logged-in principal, with its realm.
func (i *GSSAPIInitiator) Principal() string { return i.principal }

// Close forgets the tickets.
func (i *GSSAPIInitiator) Close() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.cl != nil {
		i.cl.Destroy()
	}
}

// NewClient starts one exchange with servicePrincipal (for quorum SASL,
// quorumauth.ServicePrincipal(quorum.auth.kerberos.servicePrincipal, host)).
// A principal without a realm gets zookeeper.server.realm, else the
// client's realm, as Java's SecurityUtils.createSaslClient does. The
// authorization id sent is the client's principal, as Java's.
func (i *GSSAPIInitiator) NewClient(servicePrincipal string) (Client, error) {
	if !strings.Contains(servicePrincipal, "@") {
		realm := ""
		if i.property != nil {
			realm, _ = i.property("zookeeper.server.realm")
		}
		if realm == "" {
			realm = i.cl.Credentials.Realm()
		}
		servicePrincipal += "@" + realm
	}
	name, realm, _ := strings.Cut(servicePrincipal, "@")
	if name == "" || realm == "" || strings.Contains(realm, "@") {
		return nil, fmt.Errorf("sasl: GSSAPI: malformed service principal %q", servicePrincipal)
	}
	return &gssapiClient{i: i, service: name, realm: realm, authzID: i.principal}, nil
}

type gssapiClientStage int

const (
	clientInitial gssapiClientStage = iota
	clientAwaitingAPRep
	clientAwaitingLayers
	clientDone
	clientFailed
)

// gssapiClient is the JDK's GssKrb5Client's exchange: AP-REQ (asking for
// mutual authentication), check the AP-REP, then answer the server's
// layer offer with "no security layer" and the authorization id.
type gssapiClient struct {
	i       *GSSAPIInitiator
	service string
	realm   string
	authzID string

	stage      gssapiClientStage
	auth       types.Authenticator
	sessionKey types.EncryptionKey
	acceptorSK types.EncryptionKey
	seq        uint64
}

func (c *gssapiClient) Mechanism() string        { return MechanismGSSAPI }
func (c *gssapiClient) HasInitialResponse() bool { return true }
func (c *gssapiClient) Complete() bool           { return c.stage == clientDone }

func (c *gssapiClient) Evaluate(challenge []byte) ([]byte, error) {
	var out []byte
	var err error
	switch c.stage {
	case clientInitial:
		out, err = c.initial()
	case clientAwaitingAPRep:
		out, err = c.readAPRep(challenge)
	case clientAwaitingLayers:
		out, err = c.chooseLayer(challenge)
	case clientDone:
		return nil, errors.New("sasl: GSSAPI: the exchange is already complete")
	default:
		return nil, errors.New("sasl: GSSAPI: the exchange already failed")
	}
	if err != nil {
		c.stage = clientFailed
		return nil, err
	}
	return out, nil
}

func (c *gssapiClient) initial() ([]byte, error) {
	i := c.i
	i.mu.Lock()
	tkt, key, err := i.cl.GetServiceTicket(c.service)
	creds := i.cl.Credentials
	i.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: no service ticket for %s@%s: %v", c.service, c.realm, err)
	}
	if tkt.Realm != c.realm {
		return nil, fmt.Errorf("sasl: GSSAPI: the ticket for %s is of realm %s, not %s", c.service, tkt.Realm, c.realm)
	}
	auth, err := types.NewAuthenticator(creds.Domain(), creds.CName())
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: %v", err)
	}
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: %v", err)
	}
	if err := auth.GenerateSeqNumberAndSubKey(key.KeyType, et.GetKeyByteSize()); err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: %v", err)
	}
	auth.Cksum = makeGSSChecksum(gssFlagMutual | gssFlagReplay | gssFlagSequence | gssFlagConf | gssFlagInteg)
	req, err := messages.NewAPReq(tkt, key, auth)
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: %v", err)
	}
	types.SetFlag(&req.APOptions, flags.APOptionMutualRequired)
	msg, err := req.Marshal()
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: %v", err)
	}
	c.auth, c.sessionKey = auth, key
	c.seq = uint64(auth.SeqNumber)
	c.stage = clientAwaitingAPRep
	return frameContextToken(tokAPReq, msg), nil
}

func (c *gssapiClient) readAPRep(challenge []byte) ([]byte, error) {
	part, err := readAPRep(challenge, c.auth, c.sessionKey)
	if err != nil {
		return nil, fmt.Errorf("%w: GSSAPI: mutual authentication of %s@%s: %v", ErrAuthentication, c.service, c.realm, err)
	}
	if part.Subkey.KeyType != 0 && len(part.Subkey.KeyValue) > 0 {
		c.acceptorSK = part.Subkey
	}
	c.stage = clientAwaitingLayers
	return []byte{}, nil
}

func (c *gssapiClient) chooseLayer(challenge []byte) ([]byte, error) {
	plain, err := unwrapToken(challenge, true, func(acceptorSubkey bool) (types.EncryptionKey, error) {
		if acceptorSubkey {
			if c.acceptorSK.KeyType == 0 {
				return types.EncryptionKey{}, fmt.Errorf("%w: the wrap token says it uses an acceptor subkey the AP-REP did not carry", errToken)
			}
			return c.acceptorSK, nil
		}
		return c.auth.SubKey, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: GSSAPI: the server's security layer offer: %v", ErrAuthentication, err)
	}
	if len(plain) != 4 {
		return nil, fmt.Errorf("%w: GSSAPI: the server's security layer offer has %d bytes, not 4", ErrAuthentication, len(plain))
	}
	layers, _, _, _ := parseLayerMessage(plain)
	if layers&layerNone == 0 {
		return nil, fmt.Errorf("%w: GSSAPI: the server offers security layers %#x, without 1 (none)", ErrAuthentication, layers)
	}
	key, subkeyFlag := c.auth.SubKey, false
	if c.acceptorSK.KeyType != 0 {
		key, subkeyFlag = c.acceptorSK, true
	}
	// RFC 4752: with no security layer there is no buffer to size.
	tok, err := wrapToken(layerMessage(layerNone, 0, c.authzID), key, false, subkeyFlag, c.seq)
	if err != nil {
		return nil, fmt.Errorf("sasl: GSSAPI: wrap: %v", err)
	}
	c.seq++
	c.stage = clientDone
	return tok, nil
}
