//go:build interop

package clients

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"

	"github.com/gozk/gozk/compat/gozkproc"
)

// TestKill9Durability (gozk only): a stream of acknowledged writes, a
// SIGKILL in the middle of it, a restart on the same dataDir; every
// acknowledged write must be there with its data. Repeated a few times,
// and every round checks the writes of all rounds before it.
func TestKill9Durability(t *testing.T) {
	p := gozkproc.Start(t, gozkproc.Options{})
	acked := map[string]string{} // path -> data of acknowledged creates
	counter := "/d/counter"
	counterVersion := int32(0) // last acknowledged version of counter

	setup := connect(t, p.Addr())
	mustCreate(t, setup, "/d", nil, 0, open)
	mustCreate(t, setup, counter, []byte("c0"), 0, open)
	setup.Close()

	rng := rand.New(rand.NewSource(1))
	const rounds = 4
	for round := 0; round < rounds; round++ {
		c := connect(t, p.Addr())
		target := 100 + rng.Intn(200)

		type ack struct {
			path, data string
			version    int32 // for counter sets
		}
		acks := make(chan ack, 1024)
		reached := make(chan struct{})
		done := make(chan error, 1)
		go func(version int32) {
			n := 0
			for i := 0; ; i++ {
				var a ack
				if i%3 == 2 {
					data := "c" + strconv.Itoa(int(version)+1)
					st, err := c.Set(counter, []byte(data), version)
					if err != nil {
						done <- err
						return
					}
					version = st.Version
					a = ack{path: counter, data: data, version: version}
				} else {
					path := fmt.Sprintf("/d/r%d-%05d", round, i)
					data := fmt.Sprintf("round %d write %d", round, i)
					if _, err := c.Create(path, []byte(data), 0, open); err != nil {
						done <- err
						return
					}
					a = ack{path: path, data: data}
				}
				acks <- a
				if n++; n == target {
					close(reached)
				}
			}
		}(counterVersion)

		<-reached
		p.Kill()
		err := <-done
		close(acks)
		n := 0
		for a := range acks {
			n++
			if a.path == counter {
				counterVersion = a.version
			} else {
				acked[a.path] = a.data
			}
		}
		t.Logf("round %d: killed after %d acknowledged writes; the writer stopped with: %v", round, n, err)
		c.Close()

		p.Restart()
		v := connect(t, p.Addr())
		missing := 0
		for path, want := range acked {
			data, _, err := v.Get(path)
			if err != nil || string(data) != want {
				missing++
				if missing <= 10 {
					t.Errorf("round %d: acknowledged %s = %q, after restart: %q, %v", round, path, want, data, err)
				}
			}
		}
		if missing > 0 {
			t.Errorf("round %d: %d of %d acknowledged creates lost or changed", round, missing, len(acked))
		}
		data, st, err := v.Get(counter)
		must(t, "get counter", err)
		// A set in flight at the kill may or may not have been applied.
		if st.Version < counterVersion || st.Version > counterVersion+1 || string(data) != "c"+strconv.Itoa(int(st.Version)) {
			t.Errorf("round %d: counter at version %d with %q; last acknowledged version %d", round, st.Version, data, counterVersion)
		}
		counterVersion = st.Version
		v.Close()
		if t.Failed() {
			return
		}
	}
}
