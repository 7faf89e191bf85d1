package quorum

import (
	"sort"

	"github.com/gozk/gozk/conf"
)

// Verifier tells whether a set of servers is a quorum of one ensemble
// configuration. Its methods are safe for concurrent use: a Verifier never
// changes once built (a reconfiguration builds a new one).
type Verifier interface {
	// ContainsQuorum reports whether the servers in ids make a quorum.
	// Ids may repeat; each server counts once. Ids that are not voting
	// members add nothing.
	ContainsQuorum(ids []int64) bool
	// Weight is the weight of server sid: 1 for every server of a
	// majority ensemble; its weight.N (1 by default) in a hierarchical one,
	// 0 for a server the configuration does not weigh.
	Weight(sid int64) int64
	// Voters returns the participants' ids, ascending (a copy).
	Voters() []int64
	// IsVoter reports whether sid is a participant, without copying.
	IsVoter(sid int64) bool
	// Observers returns the observers' ids, ascending.
	Observers() []int64
	// Version is the configuration's version (the hex suffix of its
	// dynamic file), 0 for server lines in zoo.cfg.
	Version() int64
}

// New returns the verifier Java would build for e: Hierarchical when e
// has group or weight keys, Majority otherwise. e must be one that conf
// accepted (every participant of a hierarchical ensemble is in a group).
func New(e *conf.Ensemble) Verifier {
	if e.Hierarchical {
		return NewHierarchical(e)
	}
	return NewMajority(e)
}

// members is what both kinds of verifier keep of an ensemble.
type members struct {
	voters    []int64
	observers []int64
	version   int64
}

func membersOf(e *conf.Ensemble) members {
	return members{voters: e.Voters(), observers: e.Observers(), version: e.Version}
}

func (m *members) Voters() []int64    { return append([]int64(nil), m.voters...) }
func (m *members) Observers() []int64 { return append([]int64(nil), m.observers...) }
func (m *members) Version() int64     { return m.version }

func (m *members) IsVoter(sid int64) bool {
	i := sort.Search(len(m.voters), func(i int) bool { return m.voters[i] >= sid })
	return i < len(m.voters) && m.voters[i] == sid
}

// distinct calls fn once for each different id in ids, in order.
func distinct(ids []int64, fn func(sid int64)) {
	for i, sid := range ids {
		seen := false
		for _, prev := range ids[:i] {
			if prev == sid {
				seen = true
				break
			}
		}
		if !seen {
			fn(sid)
		}
	}
}

// Majority is Java's QuorumMaj: more than half of the participants.
type Majority struct {
	members
	half int
}

// NewMajority builds the majority verifier of e's participants.
func NewMajority(e *conf.Ensemble) *Majority {
	m := &Majority{members: membersOf(e)}
	m.half = len(m.voters) / 2
	return m
}

// ContainsQuorum counts the distinct voters in ids. (Java counts the set
// it is given; its callers put only voters' acks and votes in it, which is
// what this counts.)
func (m *Majority) ContainsQuorum(ids []int64) bool {
	n := 0
	distinct(ids, func(sid int64) {
		if m.IsVoter(sid) {
			n++
		}
	})
	return n > m.half
}

// Weight is 1 for every server, as in Java.
func (m *Majority) Weight(int64) int64 { return 1 }

// Hierarchical is Java's QuorumHierarchical: weighted servers in disjoint
// groups; a majority of the groups that weigh anything, each by a majority
// of its weight.
type Hierarchical struct {
	members
	groupOf     map[int64]int64 // server -> group
	weight      map[int64]int64 // server -> weight
	groupWeight map[int64]int64 // group -> the sum of its servers' weights
	// countedGroups is the number of groups, less those that weigh 0.
	countedGroups int
}

// NewHierarchical builds the hierarchical verifier of e's groups and
// weights.
func NewHierarchical(e *conf.Ensemble) *Hierarchical {
	h := &Hierarchical{
		members:     membersOf(e),
		groupOf:     map[int64]int64{},
		weight:      map[int64]int64{},
		groupWeight: map[int64]int64{},
	}
	for sid, w := range e.Weights {
		h.weight[sid] = w
	}
	for gid, sids := range e.Groups {
		h.groupWeight[gid] = 0
		for _, sid := range sids {
			h.groupOf[sid] = gid
			h.groupWeight[gid] += h.weight[sid]
		}
	}
	for _, w := range h.groupWeight {
		if w != 0 {
			h.countedGroups++
		}
	}
	return h
}

// ContainsQuorum adds up the weight of the distinct ids in each group
// (ids in no group add nothing) and counts the groups where that is more
// than half the group's weight; more than half of the counted groups must
// be so. An empty set is never a quorum, even of an ensemble whose groups
// all weigh 0.
func (h *Hierarchical) ContainsQuorum(ids []int64) bool {
	if len(ids) == 0 {
		return false
	}
	inGroup := map[int64]int64{}
	distinct(ids, func(sid int64) {
		if gid, ok := h.groupOf[sid]; ok {
			inGroup[gid] += h.weight[sid]
		}
	})
	majorities := 0
	for gid, w := range inGroup {
		if w > h.groupWeight[gid]/2 {
			majorities++
		}
	}
	return majorities > h.countedGroups/2
}

// Weight is sid's weight.N, 1 for a participant without one, 0 for a
// server the configuration does not weigh.
func (h *Hierarchical) Weight(sid int64) int64 { return h.weight[sid] }
