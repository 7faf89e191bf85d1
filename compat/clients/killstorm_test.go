//go:build interop

package clients

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/gozkproc"
)

// killStormRoundsEnv sets the number of rounds of TestKillStorm; run it
// with many more by hand, e.g. GOZK_KILL_ROUNDS=200.
const killStormRoundsEnv = "GOZK_KILL_ROUNDS"

// stormWriter is one session of the write storm and what it knows.
type stormWriter struct {
	id      int
	c       *client
	rng     *rand.Rand
	created []string // acknowledged persistent creates not deleted
	// Outcomes, all guarded by the test's single-threaded use after the
	// writer stopped.
	acked     map[string]string // path -> data of acknowledged persistent creates
	deleted   map[string]bool   // acknowledged deletes
	ephemeral map[string]string // acknowledged ephemerals of this round
	multis    [][]string        // every multi issued: its three paths
	ackedMult map[int]bool      // index into multis: acknowledged
	counter   int32             // last acknowledged version of the writer's counter
	maxZxid   int64             // highest mzxid the writer saw acknowledged
	inFlight  string            // the op issued and not answered when the writer stopped
	inPath    string
}

// TestKillStorm (gozk only): several sessions write a storm of creates,
// ephemerals, sets, deletes and multis while snapshots are taken (snapCount
// is tiny); the server is SIGKILLed at a random moment, restarted on the
// same dataDir and checked: every acknowledged write is there (and every
// acknowledged delete is not), a multi is wholly there or wholly absent,
// acknowledged ephemerals of the killed sessions survive the restart, and
// zxids keep growing. Every round also re-checks all earlier rounds.
func TestKillStorm(t *testing.T) {
	rounds := 10
	if v := os.Getenv(killStormRoundsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive count", killStormRoundsEnv, v)
		}
		rounds = n
	}
	p := gozkproc.Start(t, gozkproc.Options{Config: []string{"snapCount=60"}})
	setup := connect(t, p.Addr())
	for _, d := range []string{"/s", "/e", "/m", "/c"} {
		mustCreate(t, setup, d, nil, 0, open)
	}
	const writers = 3
	all := make([]*stormWriter, writers)
	for i := range all {
		mustCreate(t, setup, fmt.Sprintf("/c/w%d", i), []byte("v0"), 0, open)
		all[i] = &stormWriter{id: i, rng: rand.New(rand.NewSource(int64(i + 1))), acked: map[string]string{},
			deleted: map[string]bool{}, ackedMult: map[int]bool{}}
	}
	setup.Close()
	var maxZxid int64
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("%d rounds, seed %d", rounds, seed)

	for round := 0; round < rounds; round++ {
		var wg sync.WaitGroup
		for _, w := range all {
			w.c = connect(t, p.Addr())
			w.ephemeral = map[string]string{}
			w.inFlight, w.inPath = "", ""
			wg.Add(1)
			go func(w *stormWriter) {
				defer wg.Done()
				w.storm(round)
			}(w)
		}
		time.Sleep(time.Duration(50+rng.Intn(600)) * time.Millisecond)
		p.Kill()
		wg.Wait()
		for _, w := range all {
			// Closed while the server is down: no closeSession reaches
			// it, so the sessions and their ephemerals outlive the crash.
			w.c.Close()
		}
		p.Restart()

		v := connect(t, p.Addr())
		for _, w := range all {
			w.verify(t, v, round)
			maxZxid = max(maxZxid, w.maxZxid)
		}
		st, err := v.Set("/c", []byte(strconv.Itoa(round)), -1)
		must(t, "set after restart", err)
		if st.Mzxid <= maxZxid {
			t.Errorf("round %d: a write after the restart got zxid 0x%x, not above 0x%x acknowledged before", round, st.Mzxid, maxZxid)
		}
		maxZxid = st.Mzxid
		v.Close()
		n := 0
		for _, w := range all {
			n += len(w.acked)
		}
		t.Logf("round %d: %d acknowledged creates live, zxid 0x%x", round, n, maxZxid)
		if t.Failed() {
			t.Logf("server log:\n%s", p.LogTail(4096))
			return
		}
	}
}

// storm writes until the connection fails (the kill).
func (w *stormWriter) storm(round int) {
	for i := 0; ; i++ {
		name := fmt.Sprintf("w%d-r%d-%d", w.id, round, i)
		data := "data of " + name
		var err error
		switch op := w.rng.Intn(100); {
		case op < 30:
			path := "/s/" + name
			w.inFlight, w.inPath = "create", path
			if _, err = w.c.Create(path, []byte(data), 0, open); err == nil {
				w.acked[path] = data
				w.created = append(w.created, path)
			}
		case op < 40:
			path := "/e/" + name
			w.inFlight, w.inPath = "ephemeral", path
			if _, err = w.c.Create(path, []byte(data), zk.FlagEphemeral, open); err == nil {
				w.ephemeral[path] = data
			}
		case op < 55:
			path := fmt.Sprintf("/c/w%d", w.id)
			w.inFlight, w.inPath = "set", path
			var st *zk.Stat
			if st, err = w.c.Set(path, []byte(fmt.Sprintf("v%d", w.counter+1)), w.counter); err == nil {
				w.counter = st.Version
				w.maxZxid = max(w.maxZxid, st.Mzxid)
			}
		case op < 70 && len(w.created) > 0:
			k := w.rng.Intn(len(w.created))
			path := w.created[k]
			w.inFlight, w.inPath = "delete", path
			if err = w.c.Delete(path, -1); err == nil {
				w.deleted[path] = true
				delete(w.acked, path)
				w.created[k] = w.created[len(w.created)-1]
				w.created = w.created[:len(w.created)-1]
			}
		default:
			paths := []string{"/m/" + name + "-a", "/m/" + name + "-b", "/m/" + name + "-c"}
			w.multis = append(w.multis, paths)
			w.inFlight, w.inPath = "multi", paths[0]
			ops := make([]interface{}, 0, 4)
			for _, p := range paths {
				ops = append(ops, &zk.CreateRequest{Path: p, Data: []byte(data), Acl: open})
			}
			ops = append(ops, &zk.SetDataRequest{Path: "/m", Data: []byte(name), Version: -1})
			var res []zk.MultiResponse
			if res, err = w.c.Multi(ops...); err == nil {
				for _, r := range res {
					if r.Error != nil {
						err = r.Error
					}
				}
				if err == nil {
					w.ackedMult[len(w.multis)-1] = true
					if r := res[len(res)-1]; r.Stat != nil {
						w.maxZxid = max(w.maxZxid, r.Stat.Mzxid)
					}
				}
			}
		}
		if err != nil {
			return // the server is gone (or broke): stop with inFlight set
		}
		w.inFlight, w.inPath = "", ""
	}
}

// verify checks what the writer knows against the restarted server.
func (w *stormWriter) verify(t *testing.T, v *client, round int) {
	t.Helper()
	missing := 0
	for path, want := range w.acked {
		data, _, err := v.Get(path)
		if errors.Is(err, zk.ErrNoNode) && w.inFlight == "delete" && w.inPath == path {
			delete(w.acked, path) // the delete in flight was applied
			continue
		}
		if err != nil || string(data) != want {
			if missing++; missing <= 5 {
				t.Errorf("round %d: acknowledged create %s = %q, after restart %q, %v", round, path, want, data, err)
			}
		}
	}
	for path := range w.deleted {
		if ok, _, err := v.Exists(path); err != nil || ok {
			t.Errorf("round %d: acknowledged delete of %s: after restart exists=%v, %v", round, path, ok, err)
		}
	}
	// An in-flight create that made it becomes a known node.
	if w.inFlight == "create" {
		if data, _, err := v.Get(w.inPath); err == nil {
			w.acked[w.inPath] = string(data)
			w.created = append(w.created, w.inPath)
		}
	}
	for path, want := range w.ephemeral {
		data, st, err := v.Get(path)
		if err != nil || string(data) != want || st.EphemeralOwner == 0 {
			t.Errorf("round %d: acknowledged ephemeral %s: after restart %q, %+v, %v", round, path, data, st, err)
		}
	}
	for i, paths := range w.multis {
		present := 0
		for _, path := range paths {
			ok, _, err := v.Exists(path)
			must(t, "exists "+path, err)
			if ok {
				present++
			}
		}
		switch {
		case present != 0 && present != len(paths):
			t.Errorf("round %d: multi creating %v is half applied: %d of %d nodes", round, paths, present, len(paths))
		case w.ackedMult[i] && present == 0:
			t.Errorf("round %d: acknowledged multi creating %v is lost", round, paths)
		case present == len(paths):
			w.ackedMult[i] = true // settled: from now on it must stay
		}
	}
	data, st, err := v.Get(fmt.Sprintf("/c/w%d", w.id))
	must(t, "get counter", err)
	maxVersion := w.counter
	if w.inFlight == "set" {
		maxVersion++
	}
	if st.Version < w.counter || st.Version > maxVersion || string(data) != fmt.Sprintf("v%d", st.Version) {
		t.Errorf("round %d: writer %d's counter at version %d with %q; acknowledged %d", round, w.id, st.Version, data, w.counter)
	}
	w.counter = st.Version
	w.maxZxid = max(w.maxZxid, st.Mzxid)
}
