package chaos

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/go-zookeeper/zk"
)

// The register model: a znode's data and version, changed only by a
// setData conditional on the version. Each key is its own register.

type regState struct {
	value   string
	version int32
}

type regInput struct {
	key    string
	read   bool
	expect int32  // CAS: the version the write was conditional on
	value  string // CAS: the data it wrote
}

type regOutput struct {
	outcome Outcome
	value   string // read: data seen
	version int32  // read: version seen
}

func registerModel(initial string) porcupine.Model {
	return porcupine.Model{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			var keys []string
			for _, op := range h {
				k := op.Input.(regInput).key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			sort.Strings(keys)
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, byKey[k])
			}
			return out
		},
		Init: func() any { return regState{value: initial} },
		Step: func(state, input, output any) (bool, any) {
			st, in, out := state.(regState), input.(regInput), output.(regOutput)
			if in.read {
				return out.value == st.value && out.version == st.version, st
			}
			matches := st.version == in.expect
			switch out.outcome {
			case OK:
				if !matches {
					return false, st
				}
				return true, regState{value: in.value, version: in.expect + 1}
			case Failed:
				return !matches, st
			default:
				// It took effect or not; placed after every other
				// operation it has no witness, which is "not".
				if matches {
					return true, regState{value: in.value, version: in.expect + 1}
				}
				return true, st
			}
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(regInput), output.(regOutput)
			if in.read {
				return fmt.Sprintf("read(%s) -> %q v%d", in.key, out.value, out.version)
			}
			return fmt.Sprintf("cas(%s, v%d, %q) -> %s", in.key, in.expect, in.value, out.outcome)
		},
		DescribeState: func(state any) string {
			st := state.(regState)
			return fmt.Sprintf("%q v%d", st.value, st.version)
		},
	}
}

// linearizabilityTimeout bounds porcupine's search; a history it cannot
// decide in time is reported as undecided, not as an anomaly.
const linearizabilityTimeout = 30 * time.Second

// registerHistory turns the linearizable part of a history into
// porcupine operations: reads at the leader after sync, and every
// setData whose outcome the server decided or that may have applied.
// An indeterminate write never returns (it may apply at any later
// time); one whose value nobody ever read is dropped, since every later
// write builds on a read, so nothing can depend on it having applied.
func registerHistory(ops []Op) []porcupine.Operation {
	observed := map[string]bool{}
	for _, op := range ops {
		if (op.Kind == KindRead || op.Kind == KindLinRead) && op.Outcome == OK {
			observed[op.Key+"\x00"+op.Data] = true
		}
	}
	var out []porcupine.Operation
	for _, op := range ops {
		switch {
		case op.Kind == KindLinRead && op.Outcome == OK:
			out = append(out, porcupine.Operation{ClientId: op.Client, Call: op.Call, Return: op.Return,
				Input:  regInput{key: op.Key, read: true},
				Output: regOutput{outcome: OK, value: op.Data, version: op.Version}})
		case op.Kind == KindCAS:
			if op.Outcome == Failed && op.Err != zk.ErrBadVersion.Error() {
				continue // refused before the version check (never sent): no effect, no witness
			}
			ret := op.Return
			if op.Outcome == Indeterminate {
				if !observed[op.Key+"\x00"+op.Value] {
					continue
				}
				ret = math.MaxInt64
			}
			out = append(out, porcupine.Operation{ClientId: op.Client, Call: op.Call, Return: ret,
				Input:  regInput{key: op.Key, expect: op.Expect, value: op.Value},
				Output: regOutput{outcome: op.Outcome}})
		}
	}
	return out
}

// checkLinearizable runs porcupine over the register history; it
// returns anomalies, and a note when the search was cut short.
func checkLinearizable(ops []Op, initial string) (anomalies []string, note string) {
	h := registerHistory(ops)
	model := registerModel(initial)
	res, info := porcupine.CheckOperationsVerbose(model, h, linearizabilityTimeout)
	switch res {
	case porcupine.Ok:
		return nil, ""
	case porcupine.Unknown:
		return nil, fmt.Sprintf("linearizability of %d operations undecided after %s", len(h), linearizabilityTimeout)
	}
	msg := fmt.Sprintf("linearizability: the %d leader reads and writes admit no sequential order", len(h))
	// Name the longest prefix porcupine could order in the failing key.
	for _, part := range info.PartialLinearizationsOperations() {
		longest := []porcupine.Operation(nil)
		for _, lin := range part {
			if len(lin) > len(longest) {
				longest = lin
			}
		}
		if len(longest) > 0 {
			last := longest[len(longest)-1]
			msg += fmt.Sprintf("; in %s the longest order stops after %s",
				last.Input.(regInput).key, model.DescribeOperation(last.Input, last.Output))
			break
		}
	}
	return []string{msg}, ""
}

// checkRegisterValues checks what every read and write says of a key's
// history, whichever member served it: a version names one data and one
// mzxid everywhere (atomicity: all members apply the same writes in the
// same order), a read returns only data some client wrote (or the
// initial data), and an acknowledged write's stat has the version after
// the one it expected.
func checkRegisterValues(ops []Op, initial string) []string {
	var f findings
	type seenAt struct {
		data   string
		mzxid  int64
		server string
	}
	attempted := map[string]bool{}
	for _, op := range ops {
		if op.Kind == KindCAS {
			attempted[op.Key+"\x00"+op.Value] = true
		}
	}
	versions := map[string]map[int32]seenAt{}
	note := func(key string, version int32, data string, mzxid int64, server string) {
		if versions[key] == nil {
			versions[key] = map[int32]seenAt{}
		}
		prev, ok := versions[key][version]
		if !ok {
			versions[key][version] = seenAt{data, mzxid, server}
			return
		}
		if prev.data != data || prev.mzxid != mzxid {
			f.add("atomicity: %s version %d is %q mzxid %#x at %s but %q mzxid %#x at %s",
				key, version, data, mzxid, server, prev.data, prev.mzxid, prev.server)
		}
	}
	for _, op := range ops {
		if op.Outcome != OK {
			continue
		}
		switch op.Kind {
		case KindRead, KindLinRead:
			if op.Data != initial && !attempted[op.Key+"\x00"+op.Data] {
				f.add("read of %s at %s returned %q, which no client wrote", op.Key, op.Server, op.Data)
			}
			if op.Version == 0 && op.Data != initial {
				f.add("read of %s at %s returned %q at version 0, which holds the initial data", op.Key, op.Server, op.Data)
			}
			note(op.Key, op.Version, op.Data, op.Mzxid, op.Server)
		case KindCAS:
			if op.Version != op.Expect+1 {
				f.add("write of %s expecting version %d was acknowledged with version %d", op.Key, op.Expect, op.Version)
			}
			note(op.Key, op.Version, op.Value, op.Mzxid, op.Server)
		}
	}
	return f.result()
}
