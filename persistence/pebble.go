package persistence

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/rs/zerolog"
)

// storeFormat pins Pebble's on-disk format instead of taking the library
// default, so upgrading Pebble never changes the files behind our back. It
// is the newest format of Pebble v2.1 and includes FormatWALSyncChunks,
// with which WAL replay can tell a torn tail (a crash mid-write, dropped
// silently) from damage in synced data (an error).
const storeFormat = pebble.FormatValueSeparation

// Sizing for a log of small (~100-300 byte) txns written in key order and
// read back sequentially at startup: a memtable big enough to absorb a
// burst of writes between flushes, a small block cache (replay is a single
// sequential scan that a cache barely helps), and few open files.
const (
	memTableSize                = 16 << 20
	memTableStopWritesThreshold = 4 // up to 64 MiB of memtables before writes stall
	blockCacheSize              = 8 << 20
	maxOpenFiles                = 256
)

func pebbleOptions(fs vfs.FS, log zerolog.Logger) *pebble.Options {
	o := &pebble.Options{
		FS:                          fs,
		FormatMajorVersion:          storeFormat,
		MemTableSize:                memTableSize,
		MemTableStopWritesThreshold: memTableStopWritesThreshold,
		CacheSize:                   blockCacheSize,
		MaxOpenFiles:                maxOpenFiles,
		Logger:                      pebbleLogger{log},
		EventListener: &pebble.EventListener{
			BackgroundError: func(err error) {
				log.Error().Err(err).Msg("txn log store background error")
			},
			// Pebble's default for this is Fatalf, killing the process
			// on the first bad block. The read that found it fails
			// anyway, with an error that reaches the caller of Replay
			// (server start, `gozk data verify`), which decides.
			DataCorruption: func(info pebble.DataCorruptionInfo) {
				log.Error().Str("file", info.Path).Str("keys", info.Bounds.String()).
					AnErr("details", info.Details).Msg("txn log store file is damaged")
			},
			WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
				log.Warn().Str("reason", info.Reason).Msg("txn log store stalls writes")
			},
			WriteStallEnd: func() {
				log.Info().Msg("txn log store write stall ended")
			},
		},
		// WALDir stays empty: the WAL lives beside the tables, so there
		// is a single directory to fsync and to move.
		// No bloom filters: nothing ever looks up a single key; replay
		// scans ranges.
	}
	o.EnsureDefaults()
	return o
}

// pebbleLogger sends Pebble's own messages to the server's logger. Pebble's
// informational chatter (flushes, compactions) goes to debug level.
type pebbleLogger struct{ log zerolog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.log.Debug().Msgf("pebble: "+format, args...)
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.log.Error().Msgf("pebble: "+format, args...)
}

// Fatalf must not return (Pebble calls it when its commit pipeline is
// broken). zerolog's Fatal exits only when that level is enabled, so log
// and panic: the message also reaches stderr when logging is off.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf("pebble: "+format, args...)
	p.log.WithLevel(zerolog.FatalLevel).Msg(msg)
	panic(msg)
}

// strayPebbleFiles lists the files in names that only an existing Pebble
// store has: data tables, WALs, blob files and manifests. Finding any of
// them in a directory that Pebble does not recognise as a store means the
// store lost its manifest marker, and opening it as a new, empty store
// would silently forget every txn in it.
func strayPebbleFiles(names []string) []string {
	var stray []string
	for _, n := range names {
		if strings.HasSuffix(n, ".sst") || strings.HasSuffix(n, ".log") ||
			strings.HasSuffix(n, ".blob") || strings.HasPrefix(n, "MANIFEST-") {
			stray = append(stray, n)
		}
	}
	return stray
}
