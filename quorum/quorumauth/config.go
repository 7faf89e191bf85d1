package quorumauth

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/sasl"
)

// JAASProperty is the system property naming the JAAS file.
const JAASProperty = "java.security.auth.login.config"

// HostPattern in quorum.auth.kerberos.servicePrincipal stands for the
// host name of the server being connected to.
const HostPattern = "_HOST"

// ServicePrincipal is the Kerberos principal a learner asks for to reach
// the server at host: principal as configured, or, when it is exactly
// service/_HOST, service/host in lower case (Java's
// SecurityUtils.getServerPrincipal).
func ServicePrincipal(principal, host string) string {
	// Java's String.split("[/]") drops trailing empty parts.
	parts := strings.Split(principal, "/")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) != 2 || parts[1] != HostPattern {
		return principal
	}
	return parts[0] + "/" + strings.ToLower(host)
}

// FromConfig builds the two sides of quorum SASL as Java's QuorumPeer
// does at start-up: with quorum.auth.enableSasl=false both are nil (no
// authentication, Java's NullQuorumAuthServer and NullQuorumAuthLearner);
// otherwise the JAAS file must hold both the server section
// (quorum.auth.server.saslLoginContext, QuorumServer by default) and the
// learner section (quorum.auth.learner.saslLoginContext, QuorumLearner),
// whatever the require settings, or the server does not start. maxToken
// bounds the tokens read from peers.
func FromConfig(c *conf.Config, maxToken int, log zerolog.Logger) (*Server, *Learner, error) {
	q := &c.Quorum
	if !q.AuthEnableSASL {
		return nil, nil, nil
	}
	props := sasl.WithJavaDefaults(func(name string) (string, bool) {
		p, ok := c.System[name]
		return p.Value, ok
	})
	setting, ok := props(JAASProperty)
	if !ok || setting == "" {
		return nil, nil, fmt.Errorf("quorum.auth.enableSasl=true needs a JAAS file (-D%s) with sections %s and %s", JAASProperty, q.AuthServerLoginContext, q.AuthLearnerLoginContext)
	}
	jaas, path, err := sasl.LoadJAAS(setting, props)
	if err != nil {
		return nil, nil, fmt.Errorf("quorum SASL: %w", err)
	}
	serverSection, ok := jaas.Section(q.AuthServerLoginContext)
	if !ok {
		return nil, nil, fmt.Errorf("quorum SASL: JAAS file %s has no section %q (quorum.auth.server.saslLoginContext)", path, q.AuthServerLoginContext)
	}
	learnerSection, ok := jaas.Section(q.AuthLearnerLoginContext)
	if !ok {
		return nil, nil, fmt.Errorf("quorum SASL: JAAS file %s has no section %q (quorum.auth.learner.saslLoginContext)", path, q.AuthLearnerLoginContext)
	}
	logf := func(level, format string, args ...any) {
		lvl, err := zerolog.ParseLevel(strings.ToLower(level))
		if err != nil {
			lvl = zerolog.InfoLevel
		}
		log.WithLevel(lvl).Msgf(format, args...)
	}
	hosts := map[string]bool{}
	for _, s := range q.Ensemble.Servers {
		for _, a := range s.Addrs {
			hosts[a.Host] = true
		}
	}
	factory, err := serverFactory(serverSection, props, hosts, logf)
	if err != nil {
		return nil, nil, fmt.Errorf("quorum SASL: JAAS file %s: %w", path, err)
	}
	srv := &Server{
		Require:  q.AuthServerRequireSASL,
		NewSASL:  factory.NewServer,
		MaxToken: maxToken,
		Log:      log,
	}
	newClient, closeClient, err := clientFactory(learnerSection, path, q.AuthServicePrincipal, props)
	if err != nil {
		return nil, nil, fmt.Errorf("quorum SASL: JAAS file %s: %w", path, err)
	}
	learner := &Learner{
		Require:  q.AuthLearnerRequireSASL,
		NewSASL:  newClient,
		MaxToken: maxToken,
		Log:      log,
		close:    closeClient,
	}
	mech := "DIGEST-MD5"
	if hasKerberos(serverSection) {
		mech = "GSSAPI"
	}
	log.Info().Str("jaas", path).Str("server", serverSection.Name).Str("learner", learnerSection.Name).Str("mechanism", mech).
		Bool("quorum.auth.learnerRequireSasl", learner.Require).Bool("quorum.auth.serverRequireSasl", srv.Require).
		Msg("quorum SASL authentication enabled")
	return srv, learner, nil
}

func hasKerberos(s *sasl.JAASSection) bool {
	for _, e := range s.Entries {
		if e.LoginModule == sasl.Krb5LoginModule {
			return true
		}
	}
	return false
}

// serverFactory picks the server mechanism as Java's does: GSSAPI when
// the section logs in with Kerberos, DIGEST-MD5 over the section's
// user_NAME options otherwise.
func serverFactory(section *sasl.JAASSection, props sasl.Properties, hosts map[string]bool, logf func(string, string, ...any)) (sasl.ServerFactory, error) {
	if hasKerberos(section) {
		login, err := sasl.Krb5LoginFromSection(section)
		if err != nil {
			return nil, err
		}
		return sasl.NewGSSAPIServerFactory(sasl.GSSAPIServerConfig{
			Login:     login,
			Krb5Conf:  sasl.Krb5ConfPath(props),
			Authorize: authorizer(hosts),
			Logf:      logf,
		})
	}
	return sasl.NewDigestServerFactory(sasl.DigestServerConfig{
		Protocol:   sasl.QuorumProtocol,
		ServerName: sasl.QuorumServerName,
		Users:      section.DigestUsers(),
		Property:   props,
		Authorize:  authorizer(hosts),
		Logf:       logf,
	})
}

// errNoCredentials is what a learner section without username or
// password leads to: Java starts with it and fails each exchange.
var errNoCredentials = errors.New("has no username and password options for DIGEST-MD5")

// clientFactory returns how a learner starts its side of an exchange
// with the server at a host, and what ends its login (nil when there is
// none to end).
func clientFactory(section *sasl.JAASSection, path, principal string, props sasl.Properties) (func(host string) (sasl.Client, error), func(), error) {
	if hasKerberos(section) {
		// Java logs in once, at start-up: a learner that cannot get its
		// ticket-granting ticket keeps the server from starting.
		initiator, err := sasl.NewGSSAPIInitiatorFromSection(section, props)
		if err != nil {
			return nil, nil, err
		}
		return func(host string) (sasl.Client, error) {
			return initiator.NewClient(ServicePrincipal(principal, host))
		}, initiator.Close, nil
	}
	user, okUser := section.Option("username")
	password, okPassword := section.Option("password")
	return func(string) (sasl.Client, error) {
		if !okUser || !okPassword {
			return nil, fmt.Errorf("JAAS section %s of %s %w", section.Name, path, errNoCredentials)
		}
		// Java's learner names itself as the authorization id too.
		return sasl.NewDigestClient(sasl.DigestClientConfig{
			Username:        user,
			Password:        password,
			AuthorizationID: user,
			Protocol:        sasl.QuorumProtocol,
			ServerName:      sasl.QuorumServerName,
		})
	}, nil, nil
}

// authorizer is Java's SaslQuorumServerCallbackHandler rule: a learner
// acts only as itself, and a principal service/host@REALM only from a
// host of the ensemble; the id is kept as it is.
func authorizer(hosts map[string]bool) func(authn, authz string) (string, error) {
	return func(authn, authz string) (string, error) {
		if authn != authz {
			return "", fmt.Errorf("%s may not act as %s", authn, authz)
		}
		if host, ok := principalHost(authz); ok && !hosts[host] {
			return "", fmt.Errorf("%s is not authorized to connect: host %q is not a server of the ensemble", authz, host)
		}
		return authz, nil
	}
}
