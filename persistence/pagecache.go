package persistence

import (
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// snapshotPages keeps the newest snapshot this store wrote in the page
// cache and gives back the pages of the one before it.
//
// A snapshot is hundreds of MB written once and read again only by the
// next start-up (the newest one) or an export. Left cached, every
// snapshot takes new page-cache pages, and a page the kernel has not used
// before costs far more to fill than a reused one: writing 200 MB took
// 570-630 ms of CPU into new pages against 65-70 ms into pages just
// given back (on a 2-core VM, where a guest page's first use
// also faults in the host). Dropping the previous snapshot's pages, once
// the new one is durable, hands the next snapshot those same pages. The
// newest stays cached, so a restart still reads it from memory.
type snapshotPages struct {
	mu     sync.Mutex
	newest vfs.File // the newest snapshot table this store committed, or nil
}

// committed records f, an open handle on the table of the snapshot just
// made durable, as the newest, and drops the cached pages of the one
// before it. It takes f over.
func (p *snapshotPages) committed(f vfs.File) {
	p.mu.Lock()
	prev := p.newest
	p.newest = f
	p.mu.Unlock()
	if prev != nil {
		dropCachedPages(prev)
		prev.Close()
	}
}

// close lets go of the newest snapshot's handle, its pages left cached.
func (p *snapshotPages) close() {
	p.mu.Lock()
	f := p.newest
	p.newest = nil
	p.mu.Unlock()
	if f != nil {
		f.Close()
	}
}
