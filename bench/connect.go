package bench

import (
	"fmt"
	"sync"
	"time"
)

// runConnect measures session establishment: Sessions x InFlight loops,
// each dialing a new session (TCP connect and handshake, timed as
// "connect"), then closing it (closeSession until the server answers,
// timed as "close"), over and over.
func (r *runner) runConnect() ([]*tally, error) {
	n := r.cfg.Sessions * r.cfg.InFlight
	tallies := make([]*tally, n)
	r.setTimes()
	d, err := newFileDialer(r.cfg.Server)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for i := range tallies {
		t := &tally{}
		tallies[i] = t
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				ok, measured := r.canIssue(time.Now())
				if !ok {
					return
				}
				start := time.Now()
				c, err := d.dial(r.dialOptions())
				if err != nil {
					if measured {
						t.fail(connErrName(err))
					}
					continue
				}
				opened := time.Now()
				if measured {
					t.done(kindConnect, start, opened)
				}
				err = c.close()
				if measured {
					if err != nil {
						t.fail("close: " + connErrName(err))
					} else {
						t.done(kindClose, opened, time.Now())
					}
				}
			}
		}()
	}
	wg.Wait()
	r.sampleEnd()
	for _, t := range tallies {
		if t.hist[kindConnect].Count() > 0 {
			return tallies, nil
		}
	}
	if r.ctx.Err() == nil && len(tallies) > 0 && tallies[0].errs != nil {
		return tallies, fmt.Errorf("no session could be opened: %v", tallies[0].errs)
	}
	return tallies, nil
}
