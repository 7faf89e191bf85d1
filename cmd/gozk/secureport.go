package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
)

// warnSecurePortUnserved says at start-up that secureClientPort is not
// opened: gozk has no TLS yet, and a port that Java would serve must not
// be left out without a word. The ssl.* settings that go with it are
// named, as they are unused too.
func warnSecurePortUnserved(logger zerolog.Logger, cfg *conf.Config) {
	if cfg.SecureClientPort == 0 {
		return
	}
	var ssl []string
	for k := range cfg.Properties {
		if strings.HasPrefix(k, "ssl.") && !strings.HasPrefix(k, "ssl.quorum.") {
			ssl = append(ssl, k)
		}
	}
	slices.Sort(ssl)
	ev := logger.Warn().Int("secureClientPort", cfg.SecureClientPort).Str("clientPort", strconv.Itoa(cfg.ClientPort))
	if len(ssl) > 0 {
		ev = ev.Strs("unused", ssl)
	}
	ev.Msg("secureClientPort is not served: this build of gozk has no TLS, so the secure client port is not opened " +
		"and its ssl.* settings are unused; only clientPort is served")
}
