package bench

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Workload names.
const (
	WorkloadGet             = "get"
	WorkloadSet             = "set"
	WorkloadCreate          = "create"
	WorkloadCreateSeq       = "create-seq"
	WorkloadCreateEphemeral = "create-ephemeral"
	WorkloadExists          = "exists"
	WorkloadChildren        = "children"
	WorkloadMixed           = "mixed"
	WorkloadMulti           = "multi"
	WorkloadConnect         = "connect"
	WorkloadWatch           = "watch"
)

// Workloads lists every workload, with what one operation is.
var Workloads = []struct{ Name, Op string }{
	{WorkloadGet, "getData of a pre-created node"},
	{WorkloadSet, "setData (version -1) of a pre-created node"},
	{WorkloadCreate, "create of a new persistent node (deleted in cleanup)"},
	{WorkloadCreateSeq, "create of a new persistent sequential node (deleted in cleanup)"},
	{WorkloadCreateEphemeral, "create of a new ephemeral node (gone with its session)"},
	{WorkloadExists, "exists of a pre-created node"},
	{WorkloadChildren, "getChildren of a pre-created node with 10 children"},
	{WorkloadMixed, "getData with probability read-ratio, else setData"},
	{WorkloadMulti, "multi of multi-ops setData operations"},
	{WorkloadConnect, "new session: TCP connect and handshake (then closeSession, timed apart)"},
	{WorkloadWatch, "fan-out round: watchers arm a data watch, one setData, until all are notified"},
}

// Config describes one run. Zero fields take the defaults of Defaults.
type Config struct {
	// Server is the client address, host:port.
	Server string `json:"server"`
	// Servers, when set, are the addresses the sessions of a request
	// workload connect to in turn (session i to Servers[i%len]), to spread
	// a load over an ensemble's members; Server still takes the run's own
	// setup and cleanup sessions.
	Servers  []string `json:"servers,omitempty"`
	Workload string   `json:"workload"`
	// Sessions is the number of connections, each its own session.
	Sessions int `json:"sessions"`
	// InFlight is the number of outstanding requests per session. For the
	// connect workload it is the number of concurrent connect loops per
	// session slot (sessions x in-flight concurrent handshakes).
	InFlight int `json:"inflight"`
	// ValueSize is the data size of created and written nodes.
	ValueSize int `json:"value_size"`
	// Duration bounds the measured phase in time, Ops in count; the run
	// ends at whichever comes first. With only Ops set, MaxDuration still
	// bounds the time.
	Duration    time.Duration `json:"duration_ns"`
	Ops         int64         `json:"ops,omitempty"`
	MaxDuration time.Duration `json:"-"`
	// Warmup is run before the measured phase and not counted.
	Warmup time.Duration `json:"warmup_ns"`
	// ReadRatio is the share of reads of the mixed workload.
	ReadRatio float64 `json:"read_ratio,omitempty"`
	// Watchers is the fan-out of the watch workload.
	Watchers int `json:"watchers,omitempty"`
	// Keys is the number of pre-created nodes read and written.
	Keys int `json:"keys,omitempty"`
	// MultiOps is the number of operations in one multi.
	MultiOps int `json:"multi_ops,omitempty"`
	// PID, when not 0, is the server process whose CPU time and memory are
	// reported (Linux /proc).
	PID int `json:"-"`
	// PIDs are more server processes whose CPU time and memory are added
	// to PID's (the other members of an ensemble).
	PIDs []int `json:"-"`
	// Root is the parent of the run's own directory of znodes.
	Root string `json:"-"`
	// SessionTimeout is requested in every handshake.
	SessionTimeout time.Duration `json:"-"`
	// IOTimeout bounds any single wait for the server.
	IOTimeout time.Duration `json:"-"`
	// CleanupTimeout bounds the deletion of the run's znodes.
	CleanupTimeout time.Duration `json:"-"`
	// Client is ClientPipelined (the default) or ClientGoZookeeper (for
	// request workloads only).
	Client string `json:"client,omitempty"`
	// Label names the server in reports ("gozk", "java").
	Label string `json:"label,omitempty"`
}

// Defaults returns the settings used where a Config leaves a field zero.
func Defaults() Config {
	return Config{
		Server:         "127.0.0.1:2181",
		Workload:       WorkloadGet,
		Sessions:       16,
		InFlight:       1,
		ValueSize:      100,
		Duration:       10 * time.Second,
		MaxDuration:    10 * time.Minute,
		Warmup:         2 * time.Second,
		ReadRatio:      0.9,
		Watchers:       1000,
		Keys:           1000,
		MultiOps:       4,
		Root:           "/gozk-bench",
		SessionTimeout: 30 * time.Second,
		IOTimeout:      30 * time.Second,
		CleanupTimeout: 5 * time.Minute,
	}
}

// maxOpsWithoutLimit bounds a run given neither Ops nor Duration.
const maxOpsWithoutLimit = 10_000_000

func (c *Config) normalize() error {
	d := Defaults()
	if c.Server == "" {
		c.Server = d.Server
	}
	if c.Workload == "" {
		c.Workload = d.Workload
	}
	if err := CheckWorkload(c.Workload); err != nil {
		return err
	}
	switch c.Client {
	case "":
		c.Client = ClientPipelined
	case ClientPipelined:
	case ClientGoZookeeper:
		if c.Workload == WorkloadConnect || c.Workload == WorkloadWatch {
			return fmt.Errorf("the %s workload runs with the %s client only", c.Workload, ClientPipelined)
		}
	default:
		return fmt.Errorf("unknown client %q (%s or %s)", c.Client, ClientPipelined, ClientGoZookeeper)
	}
	if c.Sessions < 0 || c.InFlight < 0 || c.ValueSize < 0 || c.Ops < 0 || c.Duration < 0 ||
		c.Warmup < 0 || c.Watchers < 0 || c.Keys < 0 || c.MultiOps < 0 {
		return errors.New("negative setting")
	}
	if c.ReadRatio < 0 || c.ReadRatio > 1 {
		return fmt.Errorf("read ratio %v is not between 0 and 1", c.ReadRatio)
	}
	if c.ValueSize > 1<<20 {
		return fmt.Errorf("value size %d exceeds jute.maxbuffer", c.ValueSize)
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Sessions, d.Sessions)
	def(&c.InFlight, d.InFlight)
	def(&c.Watchers, d.Watchers)
	def(&c.Keys, d.Keys)
	def(&c.MultiOps, d.MultiOps)
	if c.MultiOps > c.Keys {
		c.MultiOps = c.Keys
	}
	if c.Workload == WorkloadMixed && c.ReadRatio == 0 {
		c.ReadRatio = d.ReadRatio
	}
	if c.MaxDuration == 0 {
		c.MaxDuration = d.MaxDuration
	}
	switch {
	case c.Duration == 0 && c.Ops == 0:
		c.Duration = d.Duration
	case c.Duration == 0:
		c.Duration = c.MaxDuration
	}
	if c.Ops == 0 {
		c.Ops = maxOpsWithoutLimit
	}
	if c.Root == "" {
		c.Root = d.Root
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = d.SessionTimeout
	}
	if c.IOTimeout == 0 {
		c.IOTimeout = d.IOTimeout
	}
	if c.CleanupTimeout == 0 {
		c.CleanupTimeout = d.CleanupTimeout
	}
	return nil
}

// CheckWorkload reports whether name is a workload.
func CheckWorkload(name string) error {
	names := make([]string, len(Workloads))
	for i, w := range Workloads {
		if w.Name == name {
			return nil
		}
		names[i] = w.Name
	}
	return fmt.Errorf("unknown workload %q (one of %s)", name, strings.Join(names, ", "))
}

// sessionServer is the address session i of a request workload connects
// to.
func (c *Config) sessionServer(i int) string {
	if len(c.Servers) == 0 {
		return c.Server
	}
	return c.Servers[i%len(c.Servers)]
}

// pids are the server processes whose resources a run reports.
func (c *Config) pids() []int {
	if c.PID == 0 {
		return nil
	}
	return append([]int{c.PID}, c.PIDs...)
}
