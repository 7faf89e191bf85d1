package server

import (
	"github.com/rs/zerolog"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/conf"
)

// FromConf maps a configuration read by package conf (a zoo.cfg, or the
// built-in defaults, with the -D flags applied) onto the server's
// settings, so that `gozk server` and the tests that start a server in
// process run the same configuration alike. What the server does not
// handle itself (the AdminServer, metrics, four-letter word answers, the
// ensemble) is left to the caller.
func FromConf(c *conf.Config, logger zerolog.Logger) Config {
	sc := Defaults()
	sc.ClientAddr = c.ClientAddr()
	sc.DataDir = c.DataDir
	sc.DataLogDir = c.DataLogDir
	sc.TickTime = c.TickTime
	sc.MinSessionTimeout = c.MinSessionTimeout
	sc.MaxSessionTimeout = c.MaxSessionTimeout
	sc.MaxClientCnxns = c.MaxClientCnxns
	sc.MaxCnxns = c.MaxCnxns
	sc.GlobalOutstandingLimit = c.GlobalOutstandingLimit
	sc.EventLoops = c.NumSelectorThreads
	sc.SessionlessTimeout = c.SessionlessCnxnTimeout
	sc.SnapCount = c.SnapCount
	sc.SnapRetainCount = c.AutopurgeSnapRetainCount
	sc.PurgeInterval = c.AutopurgeInterval
	sc.JuteMaxBuffer = c.JuteMaxBuffer
	sc.JuteMaxBufferExtra = c.JuteMaxBufferExtra
	sc.ExtendedTypesEnabled = c.ExtendedTypesEnabled
	sc.ContainerCheckInterval = c.ContainerCheckInterval
	sc.ContainerMaxPerMinute = c.ContainerMaxPerMinute
	sc.ContainerMaxNeverUsed = c.ContainerMaxNeverUsed
	sc.EnforceQuota = c.EnforceQuota
	sc.DigestEnabled = c.DigestEnabled
	sc.ReconfigEnabled = c.ReconfigEnabled
	sc.ForceSync = c.ForceSync
	sc.FsyncWarning = c.FsyncWarning
	sc.ACL = acl.Config{
		SkipACL:        c.SkipACL,
		SuperDigest:    c.SuperDigest,
		DigestEnabled:  c.DigestAuthEnabled,
		DigestAlg:      c.DigestAlg,
		ExtraProviders: c.AuthProviders,

		EnforceAuthEnabled:           c.EnforceAuthEnabled,
		EnforceAuthSchemes:           c.EnforceAuthSchemes,
		SessionRequireClientSASLAuth: c.RequireClientSASLAuth,
		SASLSuperUsers:               c.SASL.SuperUsers,
		LetAnySASLUserDoX:            c.SASL.LetAnySASLUserDoX,
	}
	sc.SASL = SASLConfig{
		LoginConfig:              c.SASL.LoginConfig,
		ServerSection:            c.SASL.ServerSection,
		SuperPassword:            c.SASL.SuperPassword,
		HasSuperPassword:         c.SASL.HasSuperPassword,
		RemoveHostFromPrincipal:  c.SASL.RemoveHostFromPrincipal,
		RemoveRealmFromPrincipal: c.SASL.RemoveRealmFromPrincipal,
		AllowFailedClients:       c.SASL.AllowFailedClients,
		Properties:               c.SystemProperty,
	}
	sc.FourLetterWhitelist = c.FourLetterWhitelist
	sc.Logger = logger
	return sc
}
