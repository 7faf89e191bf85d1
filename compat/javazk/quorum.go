package javazk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// QuorumMainClass is the ensemble member's entry point.
const QuorumMainClass = "org.apache.zookeeper.server.quorum.QuorumPeerMain"

// PeerOptions shape one Java member of an ensemble.
type PeerOptions struct {
	// ID is the server's myid.
	ID int64
	// Dir holds zoo.cfg, myid's data directory and the log; it must exist
	// or be creatable.
	Dir string
	// ClientPort is the server's client port on 127.0.0.1.
	ClientPort int
	// Servers are the ensemble's lines (server.N=..., group.N=...,
	// weight.N=...), the same for every member.
	Servers []string
	// Config holds extra zoo.cfg lines, after the defaults.
	Config []string
	// TickTime in ms; 0 means 2000.
	TickTime int
	// SystemProperties become -Dkey=value JVM arguments.
	SystemProperties map[string]string
}

// StartPeer starts a Java ensemble member with its log on, and returns
// once its client port answers ruok: it may still be electing or
// syncing (see WaitMode). Stop ends it; the caller owns Dir.
func StartPeer(ctx context.Context, opts PeerOptions) (*Server, error) {
	inst, err := Lookup()
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: opts.Dir, DataDir: filepath.Join(opts.Dir, "data"), ConfigPath: filepath.Join(opts.Dir, "zoo.cfg"),
		LogPath: filepath.Join(opts.Dir, "server.log"), Port: opts.ClientPort,
		Addr: "127.0.0.1:" + strconv.Itoa(opts.ClientPort)}
	if err := os.MkdirAll(s.DataDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(s.DataDir, "myid"), []byte(strconv.FormatInt(opts.ID, 10)+"\n"), 0o644); err != nil {
		return nil, err
	}
	tick := opts.TickTime
	if tick == 0 {
		tick = 2000
	}
	lines := append([]string{"initLimit=10", "syncLimit=5"}, opts.Servers...)
	lines = append(lines, opts.Config...)
	cfg := Config{TickTime: tick, DataDir: s.DataDir, Port: opts.ClientPort, Extra: lines}
	if err := os.WriteFile(s.ConfigPath, []byte(cfg.Render()), 0o644); err != nil {
		return nil, err
	}
	classpath := append([]string(nil), inst.Classpath...)
	if inst.LogBinding != "" {
		classpath = append(classpath, inst.LogBinding)
	}
	args := []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms32m", "-Xmx256m",
		"-Dzookeeper.jmx.log4j.disable=true",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-Dorg.slf4j.simpleLogger.showDateTime=true"}
	for k, v := range opts.SystemProperties {
		args = append(args, "-D"+k+"="+v)
	}
	args = append(args, "-cp", strings.Join(classpath, string(os.PathListSeparator)), QuorumMainClass, s.ConfigPath)
	s.java, s.args = inst.Java, args
	if err := s.execUnready(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// execUnready starts the JVM and waits until the client port answers
// ruok, serving or not.
func (s *Server) execUnready(ctx context.Context) error {
	exited, err := s.startJVM()
	if err != nil {
		return err
	}
	for {
		if out, err := FourLetterWord(s.Addr, "ruok"); err == nil && out == "imok" {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("java ZooKeeper %s exited: %w\n%s", s.Addr, ErrExited, tail(s.LogPath, 2048))
		case <-ctx.Done():
			s.kill()
			return fmt.Errorf("java ZooKeeper %s never answered ruok: %w\n%s", s.Addr, ctx.Err(), tail(s.LogPath, 2048))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Mode returns the Mode line of the server's srvr answer (leader,
// follower, observer, standalone), or "" while it does not serve.
func (s *Server) Mode() string {
	out, err := s.FourLetterWord("srvr")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if mode, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(mode)
		}
	}
	return ""
}

// WaitMode waits until the server serves in one of modes and returns it.
func (s *Server) WaitMode(ctx context.Context, modes ...string) (string, error) {
	for {
		mode := s.Mode()
		for _, m := range modes {
			if mode == m {
				return mode, nil
			}
		}
		select {
		case <-ctx.Done():
			return mode, fmt.Errorf("java ZooKeeper %s: mode %q, want one of %v: %w", s.Addr, mode, modes, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Log returns the server's log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.LogPath)
	return string(b)
}
