package quorumauth

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/sasl"
)

// MaxRounds is how many challenges a server sends before it gives up on a
// mechanism that never completes (Java's MAX_RETRIES).
const MaxRounds = 5

// ErrRefused is wrapped by the error of an exchange that ends with the
// connection refused.
var ErrRefused = errors.New("quorum SASL authentication failed")

// Server is the side of a connection that is connected to (Java's
// SaslQuorumAuthServer): the election port's acceptor, and the leader's
// quorum port. A nil *Server authenticates nobody and lets everyone
// through (quorum.auth.enableSasl=false).
type Server struct {
	// Require refuses a peer that does not authenticate, or fails to
	// (quorum.auth.serverRequireSasl); otherwise such a peer is let
	// through with a warning.
	Require bool
	// NewSASL starts the mechanism's server side for one exchange.
	NewSASL func() (sasl.Server, error)
	// MaxToken bounds a token read from the peer.
	MaxToken int
	Log      zerolog.Logger
}

// Authenticate runs the server side of the exchange on a connection whose
// next bytes are in r (the peer's first packet after the election's
// initial message, or its first on the quorum port); w writes to the
// same connection. When the peer does not start with a QuorumAuthPacket,
// nothing is consumed: its own protocol follows in r. remote names the
// peer in log lines. A non-nil error means the connection must be
// closed.
func (s *Server) Authenticate(w io.Writer, r *bufio.Reader, remote string) error {
	if s == nil {
		return nil
	}
	isAuth, err := NextIsAuth(r)
	if err != nil {
		return s.failed(nil, remote, fmt.Errorf("reading the first packet: %w", err))
	}
	if !isAuth {
		if s.Require {
			return fmt.Errorf("%w: learner %s does not authenticate and quorum.auth.serverRequireSasl=true", ErrRefused, remote)
		}
		s.Log.Debug().Str("learner", remote).Msg("learner does not authenticate; let through as quorum.auth.serverRequireSasl=false")
		return nil
	}
	_, token, err := ReadPacket(r, s.MaxToken)
	if err != nil {
		return s.failed(nil, remote, err)
	}
	ss, err := s.NewSASL()
	if err != nil {
		return s.failed(w, remote, err)
	}
	var challenge []byte
	for rounds := 0; !ss.Complete(); {
		if token == nil {
			return s.failed(w, remote, errors.New("the learner sent a null token"))
		}
		challenge, err = ss.Evaluate(token)
		if err != nil {
			return s.failed(w, remote, err)
		}
		if ss.Complete() {
			break
		}
		if rounds++; rounds > MaxRounds {
			// Java sends the challenge with ERROR, and then lets the
			// peer through even when authentication is required; gozk
			// refuses it then.
			send(w, Error, challenge)
			err := fmt.Errorf("no outcome after %d challenges", MaxRounds)
			return s.failed(nil, remote, err)
		}
		if err := send(w, InProgress, challenge); err != nil {
			return s.failed(nil, remote, err)
		}
		if _, token, err = ReadPacket(r, s.MaxToken); err != nil {
			return s.failed(nil, remote, err)
		}
	}
	id := ss.AuthorizationID()
	if err := send(w, Success, challenge); err != nil {
		return s.failed(nil, remote, err)
	}
	s.Log.Info().Str("learner", remote).Str("mechanism", ss.Mechanism()).Str("authorizationID", id).
		Msg("quorum learner authenticated with SASL")
	return nil
}

// failed ends an exchange that went wrong: it tells the peer ERROR when w
// is set, then refuses the connection when authentication is required,
// or lets it through with a warning.
func (s *Server) failed(w io.Writer, remote string, cause error) error {
	if w != nil {
		send(w, Error, []byte{})
	}
	if s.Require {
		return fmt.Errorf("%w: learner %s: %w", ErrRefused, remote, cause)
	}
	s.Log.Warn().Err(cause).Str("learner", remote).
		Msg("quorum SASL authentication of a learner failed; keeping its connection as quorum.auth.serverRequireSasl=false")
	return nil
}

// principalHost returns the host of a Kerberos principal service/host@REALM,
// which must be one of the ensemble's servers; a DIGEST-MD5 user name has
// none.
func principalHost(id string) (string, bool) {
	// Java's String.split("[/@]"): empty parts count, trailing ones do
	// not.
	parts := strings.Split(strings.ReplaceAll(id, "@", "/"), "/")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) != 3 {
		return "", false
	}
	return parts[1], true
}

// Learner is the side that connects (Java's SaslQuorumAuthLearner): the
// dialler of an election connection, and a learner connecting to its
// leader. A nil *Learner never authenticates.
type Learner struct {
	// Require makes the learner authenticate
	// (quorum.auth.learnerRequireSasl); without it the learner sends
	// nothing, as Java's does.
	Require bool
	// NewSASL starts the mechanism's client side for one exchange with
	// the server at host (Kerberos puts it in place of _HOST in
	// quorum.auth.kerberos.servicePrincipal).
	NewSASL func(host string) (sasl.Client, error)
	// MaxToken bounds a token read from the server.
	MaxToken int
	Log      zerolog.Logger
	// close ends the learner's Kerberos login (its ticket renewal); nil
	// for DIGEST-MD5.
	close func()
}

// Close ends what the learner's mechanism keeps running between
// exchanges (a Kerberos login renewing its ticket). l may be nil.
func (l *Learner) Close() {
	if l != nil && l.close != nil {
		l.close()
	}
}

// Authenticate runs the learner's side of the exchange on rw, right
// after the election's initial message or right after connecting to the
// leader's quorum port. It reads exactly the server's packets, so that
// what the server sends next is left in rw. host is the server's host
// name as configured, remote its address for error messages. An error
// means the connection must be closed.
func (l *Learner) Authenticate(rw io.ReadWriter, host, remote string) error {
	if l == nil || !l.Require {
		return nil
	}
	sc, err := l.NewSASL(host)
	if err != nil {
		return fmt.Errorf("%w: against server %s: %w", ErrRefused, remote, err)
	}
	response := []byte{}
	if sc.HasInitialResponse() {
		if response, err = sc.Evaluate([]byte{}); err != nil {
			return fmt.Errorf("%w: against server %s: %w", ErrRefused, remote, err)
		}
	}
	if err := send(rw, InProgress, response); err != nil {
		return fmt.Errorf("%w: against server %s: %w", ErrRefused, remote, err)
	}
	status, token, err := ReadPacket(rw, l.MaxToken)
	if err != nil {
		return fmt.Errorf("%w: against server %s: %w", ErrRefused, remote, err)
	}
	for !sc.Complete() {
		switch status {
		case Error:
			return fmt.Errorf("%w: server %s answered ERROR", ErrRefused, remote)
		case Success, InProgress:
			if token == nil {
				return fmt.Errorf("%w: server %s sent a null token before the exchange completed", ErrRefused, remote)
			}
			response, err = sc.Evaluate(token)
			if err != nil {
				return fmt.Errorf("%w: against server %s: %w", ErrRefused, remote, err)
			}
		}
		if status == Success {
			if len(response) > 0 {
				return fmt.Errorf("%w: server %s said SUCCESS but the mechanism has more to send", ErrRefused, remote)
			}
			if !sc.Complete() {
				return fmt.Errorf("%w: server %s said SUCCESS before the mechanism completed", ErrRefused, remote)
			}
			break
		}
		if err := send(rw, InProgress, response); err != nil {
			return fmt.Errorf("%w: against server %s: %w", ErrRefused, remote, err)
		}
		if status, token, err = ReadPacket(rw, l.MaxToken); err != nil {
			return fmt.Errorf("%w: against server %s: %w", ErrRefused, remote, err)
		}
	}
	if status != Success {
		return fmt.Errorf("%w: server %s ended the exchange with %s", ErrRefused, remote, status)
	}
	l.Log.Info().Str("server", remote).Str("mechanism", sc.Mechanism()).Msg("authenticated to a quorum server with SASL")
	return nil
}

// send writes one packet in one write. A null challenge goes out as
// IN_PROGRESS unless it ends the exchange, as Java sends it.
func send(w io.Writer, s Status, token []byte) error {
	if token == nil && s != Success {
		s = InProgress
	}
	_, err := w.Write(AppendPacket(nil, s, token))
	return err
}
