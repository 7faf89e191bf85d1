package sasl

// A stand-in for the package's shared types until the branch that
// defines them is merged; this file is deleted then.

import (
	"errors"
	"strings"
)

const (
	MechanismGSSAPI = "GSSAPI"
	Krb5LoginModule = "com.sun.security.auth.module.Krb5LoginModule"
)

type Server interface {
	Evaluate(response []byte) (challenge []byte, err error)
	Complete() bool
	AuthorizationID() string
	Mechanism() string
}

type Client interface {
	HasInitialResponse() bool
	Evaluate(challenge []byte) (response []byte, err error)
	Complete() bool
	Mechanism() string
}

var ErrAuthentication = errors.New("sasl: authentication failed")

type ServerFactory interface {
	Mechanism() string
	NewServer() (Server, error)
}

type JAASSection struct {
	Name    string
	Line    int
	Entries []JAASEntry
}

type JAASEntry struct {
	LoginModule string
	Flag        string
	Options     map[string]string
	Line        int
}

type ServerOptions struct {
	Section                  *JAASSection
	RemoveHostFromPrincipal  bool
	RemoveRealmFromPrincipal bool
	Property                 func(name string) (string, bool)
	Logf                     func(level, format string, args ...any)
}

type ServerMechanismBuilder func(entry JAASEntry, opts ServerOptions) (ServerFactory, error)

var registry = map[string]ServerMechanismBuilder{}

func RegisterServerLoginModule(class string, build ServerMechanismBuilder) {
	registry[class] = build
}

var _ = strings.TrimSpace
