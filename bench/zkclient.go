package bench

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Clients: the package's own pipelining client, or go-zookeeper/zk as a
// cross-check with an off-the-shelf client.
const (
	ClientPipelined   = "pipelined"
	ClientGoZookeeper = "go-zookeeper"
)

// nopLogger silences go-zookeeper.
type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// zkErrName names a go-zookeeper error as ZooKeeper does where it can.
func zkErrName(err error) string {
	for code, e := range zkErrors {
		if errors.Is(err, e) {
			return code
		}
	}
	return "go-zookeeper: " + err.Error()
}

var zkErrors = map[string]error{
	"NONODE": zk.ErrNoNode, "NODEEXISTS": zk.ErrNodeExists, "BADVERSION": zk.ErrBadVersion,
	"CONNECTIONLOSS": zk.ErrConnectionClosed, "SESSIONEXPIRED": zk.ErrSessionExpired,
	"NOTEMPTY": zk.ErrNotEmpty, "NOAUTH": zk.ErrNoAuth,
}

// dialZK opens a go-zookeeper session and waits until it is established.
func (r *runner) dialZK() (*zk.Conn, error) {
	c, events, err := zk.Connect([]string{r.cfg.Server}, r.cfg.SessionTimeout, zk.WithLogger(nopLogger{}), zk.WithLogInfo(false))
	if err != nil {
		return nil, err
	}
	timeout := time.After(r.cfg.IOTimeout)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil, errors.New("go-zookeeper: connection closed")
			}
			if ev.State == zk.StateHasSession {
				go func() { // keep the event channel drained
					for range events {
					}
				}()
				return c, nil
			}
		case <-timeout:
			c.Close()
			return nil, errors.New("go-zookeeper: no session in time")
		}
	}
}

// runRequestsZK runs a request workload through go-zookeeper: Sessions
// connections, each shared by InFlight goroutines making synchronous calls
// (go-zookeeper pipelines them on the connection).
func (r *runner) runRequestsZK() ([]*tally, [][]string, error) {
	conns := make([]*zk.Conn, r.cfg.Sessions)
	failures := &tally{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, dialParallelism)
	for i := range conns {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			c, err := r.dialZK()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failures.fail(connErrName(err))
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	type worker struct {
		t       tally
		created []string
	}
	var workers []*worker
	r.setTimes()
	acl := zk.WorldACL(zk.PermAll)
	for i, c := range conns {
		if c == nil {
			continue
		}
		for j := 0; j < r.cfg.InFlight; j++ {
			w := &worker{}
			workers = append(workers, w)
			id := i*r.cfg.InFlight + j
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(id)+1, 0x9e3779b97f4a7c15))
				key := func() string { return r.keys[rng.IntN(len(r.keys))] }
				prefix := r.createParent + "/g" + strconv.Itoa(id) + "-"
				var seq int64
				for {
					start := time.Now()
					ok, measured := r.canIssue(start)
					if !ok {
						return
					}
					var kind opKind
					var err error
					switch r.cfg.Workload {
					case WorkloadGet:
						kind = kindGet
						_, _, err = c.Get(key())
					case WorkloadExists:
						kind = kindExists
						_, _, err = c.Exists(key())
					case WorkloadChildren:
						kind = kindChildren
						_, _, err = c.Children(r.parents[rng.IntN(len(r.parents))])
					case WorkloadSet:
						kind = kindSet
						_, err = c.Set(key(), r.value, -1)
					case WorkloadMixed:
						if rng.Float64() < r.cfg.ReadRatio {
							kind = kindGet
							_, _, err = c.Get(key())
						} else {
							kind = kindSet
							_, err = c.Set(key(), r.value, -1)
						}
					case WorkloadMulti:
						kind = kindMulti
						first := rng.IntN(len(r.keys))
						ops := make([]any, r.cfg.MultiOps)
						for k := range ops {
							ops[k] = &zk.SetDataRequest{Path: r.keys[(first+k)%len(r.keys)], Data: r.value, Version: -1}
						}
						_, err = c.Multi(ops...)
					case WorkloadCreate, WorkloadCreateSeq, WorkloadCreateEphemeral:
						kind = kindCreate
						path, flags := prefix, int32(0)
						switch r.cfg.Workload {
						case WorkloadCreate:
							seq++
							path += strconv.FormatInt(seq, 10)
						case WorkloadCreateSeq:
							flags = zk.FlagSequence
						case WorkloadCreateEphemeral:
							seq++
							path += strconv.FormatInt(seq, 10)
							flags = zk.FlagEphemeral
						}
						var created string
						created, err = c.Create(path, r.value, flags, acl)
						if err == nil && r.cfg.Workload != WorkloadCreateEphemeral {
							w.created = append(w.created, created)
						}
					default:
						err = fmt.Errorf("workload %s is not available with go-zookeeper", r.cfg.Workload)
					}
					if !measured {
						continue
					}
					if err != nil {
						w.t.fail(zkErrName(err))
						if errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrClosing) {
							return
						}
						continue
					}
					w.t.done(kind, start, time.Now())
				}
			}()
		}
	}
	wg.Wait()
	r.sampleEnd()
	tallies := []*tally{failures}
	var created [][]string
	for _, w := range workers {
		tallies = append(tallies, &w.t)
		created = append(created, w.created)
	}
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
	if len(workers) == 0 && r.ctx.Err() == nil {
		return tallies, nil, fmt.Errorf("no session could be opened: %v", failures.errs)
	}
	return tallies, created, nil
}
