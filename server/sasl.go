package server

import (
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/sasl"
)

// SASLConfig is SASL on the client port (opcode 102), configured as a
// Java 3.8.0 server configures it from system properties.
type SASLConfig struct {
	// Factory, when set, answers SASL packets and the fields below that
	// locate a JAAS file are ignored (tests use it).
	Factory sasl.ServerFactory
	// LoginConfig is java.security.auth.login.config; "" means no SASL:
	// every SASL packet gets a null token, as from a Java server without
	// a login configuration.
	LoginConfig string
	// ServerSection is zookeeper.sasl.serverconfig ("" = "Server").
	ServerSection string
	// SuperPassword (when HasSuperPassword) is
	// zookeeper.SASLAuthenticationProvider.superPassword.
	SuperPassword    string
	HasSuperPassword bool
	// zookeeper.kerberos.removeHostFromPrincipal / removeRealmFromPrincipal.
	RemoveHostFromPrincipal  bool
	RemoveRealmFromPrincipal bool
	// AllowFailedClients is zookeeper.allowSaslFailedClients: a failed
	// exchange leaves the connection open (unless sasl is enforced).
	AllowFailedClients bool
	// Properties answers ${name} in the JAAS file and mechanism settings.
	Properties sasl.Properties
}

// setupSASL prepares the client port's SASL as Java's
// ServerCnxnFactory.configureSaslLogin does at start-up: a JAAS file
// that cannot be read or parsed stops the server; a readable file
// without the server section leaves SASL off (Java says nothing; gozk
// logs it); otherwise the section picks the mechanism. A nil factory
// means SASL is off.
func setupSASL(cfg SASLConfig, logger zerolog.Logger) (sasl.ServerFactory, error) {
	if cfg.Factory != nil {
		return cfg.Factory, nil
	}
	if cfg.LoginConfig == "" {
		return nil, nil
	}
	section := cfg.ServerSection
	if section == "" {
		section = "Server"
	}
	props := sasl.WithJavaDefaults(cfg.Properties)
	jaas, path, err := sasl.LoadJAAS(cfg.LoginConfig, props)
	if err != nil {
		logger.Error().Str("file", path).Str("section", section).Err(err).Msg("cannot read the JAAS configuration (java.security.auth.login.config); the server does not start, as Java's does not")
		return nil, fmt.Errorf("java.security.auth.login.config: %w (the server cannot log in with its JAAS section %q)", err, section)
	}
	sec, ok := jaas.Section(section)
	if !ok {
		logger.Warn().Str("file", path).Str("section", section).Msg("the JAAS configuration has no such section (zookeeper.sasl.serverconfig); SASL on the client port is off and SASL clients get an empty token, as on Java")
		return nil, nil
	}
	f, err := sasl.NewServerFactory(sasl.ServerOptions{
		Section:                  sec,
		SuperPassword:            cfg.SuperPassword,
		HasSuperPassword:         cfg.HasSuperPassword,
		RemoveHostFromPrincipal:  cfg.RemoveHostFromPrincipal,
		RemoveRealmFromPrincipal: cfg.RemoveRealmFromPrincipal,
		Property:                 props,
		Logf:                     saslLogf(logger),
	})
	if err != nil {
		return nil, fmt.Errorf("could not configure server because SASL configuration did not allow the ZooKeeper server to authenticate itself properly (%s, section %s): %w", path, section, err)
	}
	users := 0
	if f.Mechanism() == sasl.MechanismDigestMD5 {
		users = len(sec.DigestUsers())
	}
	logger.Info().Str("file", path).Str("section", section).Str("mechanism", f.Mechanism()).Int("digestUsers", users).Msg("SASL on the client port")
	return f, nil
}

// saslLogf routes a mechanism's log lines (unknown user, authenticated
// ids) to the server's log.
func saslLogf(logger zerolog.Logger) func(level, format string, args ...any) {
	return func(level, format string, args ...any) {
		ev := logger.Info()
		switch level {
		case "warn":
			ev = logger.Warn()
		case "error":
			ev = logger.Error()
		case "debug":
			ev = logger.Debug()
		}
		ev.Msgf(format, args...)
	}
}

// handleSASL answers one SASL packet as Java's ZooKeeperServer.processSasl:
// the token goes to the connection's exchange; a completed exchange adds
// sasl:<id> (and super for a zookeeper.superUser); a failed one is
// answered AuthFailed (SessionClosedRequireSaslAuth when sasl is
// enforced) with a null token and the connection is closed, unless
// zookeeper.allowSaslFailedClients keeps it open.
func (s *Server) handleSASL(c *connection, xid int32, token []byte) {
	if s.sasl == nil {
		// No SASL is configured: Java answers with a null token and
		// zxid 0.
		c.reply(xid, 0, proto.ErrOK, &proto.SetSASLResponse{Token: nil})
		return
	}
	c.mu.Lock()
	exchange := c.saslExchange
	var err error
	if exchange == nil {
		exchange, err = s.sasl.NewServer()
		c.saslExchange = exchange
	}
	c.mu.Unlock()
	var challenge []byte
	if err == nil {
		challenge, err = exchange.Evaluate(token)
	}
	if err != nil && errors.Is(err, sasl.ErrUncaught) {
		// Java's mechanism throws an unchecked exception here, which
		// processSasl does not catch: the connection goes without an
		// answer.
		s.logger.Warn().Stringer("remote", c.nc.RemoteAddr()).Err(err).Msg("client failed to SASL authenticate; closing its connection without an answer, as Java does for this token")
		c.nc.Close()
		return
	}
	if err != nil {
		s.logger.Warn().Stringer("remote", c.nc.RemoteAddr()).Err(err).Msg("client failed to SASL authenticate")
		required := s.acl.SASLAuthRequired()
		if s.cfg.SASL.AllowFailedClients && !required {
			s.logger.Warn().Stringer("remote", c.nc.RemoteAddr()).Msg("keeping the client connection despite the SASL authentication failure (zookeeper.allowSaslFailedClients)")
			c.reply(xid, 0, proto.ErrOK, &proto.SetSASLResponse{Token: nil})
			return
		}
		code := proto.ErrAuthFailed
		if required {
			s.logger.Warn().Stringer("remote", c.nc.RemoteAddr()).Msg("closing the client connection: the server requires SASL authentication and the client's failed")
			code = proto.ErrSessionClosedRequireSaslAuth
		} else {
			s.logger.Warn().Stringer("remote", c.nc.RemoteAddr()).Msg("closing the client connection after its SASL authentication failure")
		}
		// Not counted in auth_failed_count: Java counts only failed TLS
		// handshakes there.
		s.replySASLFailure(c, xid, code)
		c.nc.CloseAfterFlush()
		return
	}
	if exchange.Complete() {
		id := exchange.AuthorizationID()
		added := s.acl.SASLIdentities(id)
		c.mu.Lock()
		ids := append([]proto.Id(nil), c.ids...)
		for _, a := range added {
			ids = acl.AddIdentity(ids, a)
		}
		c.ids = ids
		sid := int64(0)
		if c.session != nil {
			sid = c.session.id
		}
		c.mu.Unlock()
		s.logger.Info().Str("session", fmt.Sprintf("0x%x", sid)).Str("authorizationID", id).Str("mechanism", exchange.Mechanism()).Msg("adding SASL authorization")
		if len(added) > 1 {
			s.logger.Info().Str("session", fmt.Sprintf("0x%x", sid)).Str("authorizationID", id).Msg("authenticated as super user (zookeeper.superUser)")
		}
	}
	c.reply(xid, 0, proto.ErrOK, &proto.SetSASLResponse{Token: challenge})
}

// replySASLFailure sends Java's failure reply: the error in the header
// and, unlike other error replies, a SetSASLResponse with a null token
// behind it.
func (s *Server) replySASLFailure(c *connection, xid int32, code proto.ErrCode) {
	w := writerPool.Get().(*jute.Writer)
	w.Reset()
	hdr := proto.ReplyHeader{Xid: xid, Zxid: 0, Err: int32(code)}
	hdr.Encode(w)
	body := proto.SetSASLResponse{Token: nil}
	body.Encode(w)
	c.sendReply(w, xid, 0)
}
