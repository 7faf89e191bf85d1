//go:build !invariants

package server

import "github.com/gozk/gozk/proto"

// replyOrder checks a connection's reply order under the invariants tag
// (replyorder_invariants.go); without the tag it holds nothing and its
// methods compile away.
type replyOrder struct{}

func (*replyOrder) requested(int32, proto.OpCode) {}

func (*replyOrder) replied(int32) {}
