package server

import (
	"net"
	"slices"
	"strconv"
	"strings"

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
	sc.TLSHandshakeLimit = c.TLSHandshakeLimit
	sc.EarlyDropSecureHandshakes = c.EarlyDropSecureHandshakes
	sc.ConnThrottle = connThrottleFromConf(c)
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
	if c.ClientPort == 0 && c.SecureClientPort != 0 {
		sc.ClientAddr = "" // a secure client port only
	}
	if c.SecureClientPort != 0 {
		host := c.SecureClientPortAddress
		if host == "" {
			host = "0.0.0.0"
		}
		sc.SecureClientAddr = net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(c.SecureClientPort))
	}
	sc.PortUnification = c.ClientPortUnification
	sc.HandshakeDetectionTimeout = c.ClientTLS.HandshakeDetectionTimeout
	if c.SecureClientPort != 0 || c.ClientPortUnification {
		// Java registers the x509 provider by itself for TLS clients
		// (QuorumPeerConfig.configureSSLAuth); ClientTLS, the stores,
		// is the caller's to load (tlsconf).
		sc.ACL.ExtraProviders = append(slices.Clone(sc.ACL.ExtraProviders), acl.ClassX509Provider)
	}
	if p, ok := c.System[X509SuperUserProperty]; ok {
		sc.ACL.X509SuperUser = p.Value
	}
	sc.FourLetterWhitelist = c.FourLetterWhitelist
	sc.Logger = logger
	return sc
}

// X509SuperUserProperty names the subject DN of the x509 super user.
const X509SuperUserProperty = "zookeeper.X509AuthenticationProvider.superUser"
