package sasl

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/jcmturner/gokrb5/v8/config"
)

// Krb5Login is what a JAAS entry for com.sun.security.auth.module.Krb5LoginModule
// says about the credentials to use. Only the options that decide which
// key or ticket is used are read; the others (debug, refreshKrb5Config,
// doNotPrompt...) change nothing here.
type Krb5Login struct {
	// Principal is the principal option as written: "zookeeper/host@REALM",
	// or without the realm (the krb5.conf default realm then applies).
	Principal string
	// KeyTab is the keyTab option, read only when UseKeyTab is set.
	KeyTab    string
	UseKeyTab bool
	// StoreKey and IsInitiator are read as Java reads them: a server
	// needs its key (storeKey=true, or isInitiator=false), a client needs
	// to be an initiator.
	StoreKey    bool
	IsInitiator bool
	// UseTicketCache and TicketCache let a client take its TGT from a
	// credential cache (kinit) instead of a keytab.
	UseTicketCache bool
	TicketCache    string
	// Where the entry is, for messages.
	Section string
	Line    int
}

// javaTrue is how Krb5LoginModule reads a boolean option.
func javaTrue(v string) bool { return strings.EqualFold(v, "true") }

// Krb5LoginFromEntry reads the Krb5LoginModule options of one JAAS entry.
func Krb5LoginFromEntry(section string, e JAASEntry) (Krb5Login, error) {
	l := Krb5Login{Section: section, Line: e.Line, IsInitiator: true}
	if e.LoginModule != Krb5LoginModule {
		return l, fmt.Errorf("JAAS section %s: login module %s is not %s", section, e.LoginModule, Krb5LoginModule)
	}
	// Java's option names are case-sensitive; so are these.
	o := e.Options
	l.Principal = o["principal"]
	l.KeyTab = o["keyTab"]
	l.UseKeyTab = javaTrue(o["useKeyTab"])
	l.StoreKey = javaTrue(o["storeKey"])
	if v, ok := o["isInitiator"]; ok {
		l.IsInitiator = javaTrue(v)
	}
	l.UseTicketCache = javaTrue(o["useTicketCache"])
	l.TicketCache = o["ticketCache"]
	if l.KeyTab != "" && !l.UseKeyTab {
		return l, fmt.Errorf("%s: keyTab=%q is set but useKeyTab is not true, so Java's Krb5LoginModule would not read it", l.where(), l.KeyTab)
	}
	return l, nil
}

func (l Krb5Login) where() string {
	if l.Line > 0 {
		return fmt.Sprintf("JAAS section %s (line %d)", l.Section, l.Line)
	}
	return "JAAS section " + l.Section
}

// Krb5LoginFromSection reads the section's first Krb5LoginModule entry.
func Krb5LoginFromSection(s *JAASSection) (Krb5Login, error) {
	if s == nil {
		return Krb5Login{}, errors.New("no JAAS section")
	}
	for _, e := range s.Entries {
		if e.LoginModule == Krb5LoginModule {
			return Krb5LoginFromEntry(s.Name, e)
		}
	}
	return Krb5Login{}, fmt.Errorf("JAAS section %s has no %s entry", s.Name, Krb5LoginModule)
}

// Krb5ConfPath is the krb5.conf gozk reads, as the JDK finds it: the
// java.security.krb5.conf property, then (unlike the JDK, as MIT's tools
// do) the KRB5_CONFIG environment variable, then /etc/krb5.conf.
func Krb5ConfPath(property func(string) (string, bool)) string {
	if property != nil {
		if v, ok := property("java.security.krb5.conf"); ok && v != "" {
			return v
		}
	}
	if v := os.Getenv("KRB5_CONFIG"); v != "" {
		// MIT allows a list; the first file is the main one.
		return strings.Split(v, ":")[0]
	}
	return "/etc/krb5.conf"
}

// loadKrb5Conf reads path; a missing file is not an error when the
// caller can do without (an acceptor whose principal names its realm),
// so it returns an empty configuration and the reason.
func loadKrb5Conf(path string) (*config.Config, error) {
	if _, err := os.Stat(path); err != nil {
		return config.New(), fmt.Errorf("krb5.conf %s: %w", path, err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		// gokrb5 returns what it could read along with an error for
		// lines it does not support; the realm and KDC sections are what
		// matter, so only give up when there is nothing.
		var uv config.UnsupportedDirective
		if errors.As(err, &uv) && cfg != nil {
			return cfg, nil
		}
		return config.New(), fmt.Errorf("krb5.conf %s: %v", path, err)
	}
	return cfg, nil
}

// KerberosName is a principal split as ZooKeeper's KerberosName splits it:
// service[/host]@REALM, or a bare name with neither host nor realm.
type KerberosName struct {
	Service, Host, Realm string
}

var kerberosNameRE = regexp.MustCompile(`^([^/@]*)(/([^/@]*))?@([^/@]*)$`)

// ParseKerberosName splits name; a name with an @ that does not fit the
// pattern is malformed, as in Java.
func ParseKerberosName(name string) (KerberosName, error) {
	m := kerberosNameRE.FindStringSubmatch(name)
	if m == nil {
		if strings.Contains(name, "@") {
			return KerberosName{}, fmt.Errorf("malformed Kerberos name: %s", name)
		}
		return KerberosName{Service: name}, nil
	}
	return KerberosName{Service: m[1], Host: m[3], Realm: m[4]}, nil
}

func (n KerberosName) String() string {
	s := n.Service
	if n.Host != "" {
		s += "/" + n.Host
	}
	if n.Realm != "" {
		s += "@" + n.Realm
	}
	return s
}

// ShapeAuthorizationID is what ZooKeeper's server callback handler makes
// of a Kerberos client's name: the short name (the auth_to_local rules),
// then "/host" unless zookeeper.kerberos.removeHostFromPrincipal is true,
// then "@REALM" unless zookeeper.kerberos.removeRealmFromPrincipal is
// true. The error says why no name came out (a malformed principal, no
// rule for its realm); Java then logs it and leaves the id unshaped.
func ShapeAuthorizationID(authenticationID string, rules *KerberosNameRules, removeHost, removeRealm bool) (string, error) {
	n, err := ParseKerberosName(authenticationID)
	if err != nil {
		return "", err
	}
	short, err := rules.ShortName(n)
	if err != nil {
		return "", err
	}
	if !removeHost && n.Host != "" {
		short += "/" + n.Host
	}
	if !removeRealm && n.Realm != "" {
		short += "@" + n.Realm
	}
	return short, nil
}

// DefaultClientServiceName is zookeeper.sasl.client.username's default:
// the first component of the principal a client asks a ticket for.
const DefaultClientServiceName = "zookeeper"

// ClientServicePrincipal is the principal Java's ZooKeeper client asks a
// service ticket for when it connects to host: username/host, with
// "@realm" when zookeeper.server.realm is set.
func ClientServicePrincipal(username, host, realm string) string {
	if username == "" {
		username = DefaultClientServiceName
	}
	p := username + "/" + host
	if realm != "" {
		p += "@" + realm
	}
	return p
}
