package diff

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// digestHash is the digest scheme's hash of "user:password": base64 of
// its SHA-1, as DigestAuthenticationProvider computes it.
func digestHash(userPassword string) string {
	sum := sha1.Sum([]byte(userPassword))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// DigestACL returns an ACL entry for a digest user, as zkCli's
// "digest:user:hash" form.
func DigestACL(perms int32, user, password string) proto.ACL {
	return proto.ACL{Perms: perms, Id: proto.Id{Scheme: "digest", Id: user + ":" + digestHash(user+":"+password)}}
}

// describe renders a request for the transcript. Requests are the same
// on both sides of a comparison; they are there to make diffs readable.
func describe(req Request, body jute.Record) string {
	if req.Desc != "" {
		return req.Desc
	}
	name := req.Op.String()
	if req.Raw != nil {
		return name + " raw-body=" + data(req.Raw)
	}
	if body == nil {
		return name
	}
	return name + " " + describeRecord(body)
}

func describeRecord(rec jute.Record) string {
	switch v := rec.(type) {
	case nil:
		return ""
	case *proto.CreateRequest:
		return fmt.Sprintf("%s data=%s acl=%s flags=%d", str(v.Path), data(v.Data), acls(v.Acl), v.Flags)
	case *proto.CreateTTLRequest:
		return fmt.Sprintf("%s data=%s acl=%s flags=%d ttl=%d", str(v.Path), data(v.Data), acls(v.Acl), v.Flags, v.Ttl)
	case *proto.DeleteRequest:
		return fmt.Sprintf("%s version=%d", str(v.Path), v.Version)
	case *proto.ExistsRequest:
		return fmt.Sprintf("%s watch=%t", str(v.Path), v.Watch)
	case *proto.GetDataRequest:
		return fmt.Sprintf("%s watch=%t", str(v.Path), v.Watch)
	case *proto.SetDataRequest:
		return fmt.Sprintf("%s data=%s version=%d", str(v.Path), data(v.Data), v.Version)
	case *proto.GetACLRequest:
		return str(v.Path)
	case *proto.SetACLRequest:
		return fmt.Sprintf("%s acl=%s version=%d", str(v.Path), acls(v.Acl), v.Version)
	case *proto.GetChildrenRequest:
		return fmt.Sprintf("%s watch=%t", str(v.Path), v.Watch)
	case *proto.GetChildren2Request:
		return fmt.Sprintf("%s watch=%t", str(v.Path), v.Watch)
	case *proto.SyncRequest:
		return str(v.Path)
	case *proto.CheckVersionRequest:
		return fmt.Sprintf("%s version=%d", str(v.Path), v.Version)
	case *proto.MultiRequest:
		ops := make([]string, len(v.Ops))
		for i := range v.Ops {
			ops[i] = describeMultiOp(&v.Ops[i])
		}
		return "[" + strings.Join(ops, "; ") + "]"
	case *proto.CheckWatchesRequest:
		return fmt.Sprintf("%s type=%d", str(v.Path), v.Type)
	case *proto.RemoveWatchesRequest:
		return fmt.Sprintf("%s type=%d", str(v.Path), v.Type)
	case *proto.SetWatches:
		return fmt.Sprintf("relativeZxid=%d data=%s exist=%s child=%s", v.RelativeZxid, list(v.DataWatches), list(v.ExistWatches), list(v.ChildWatches))
	case *proto.AddWatchRequest:
		return fmt.Sprintf("%s mode=%d", str(v.Path), v.Mode)
	case *proto.GetEphemeralsRequest:
		return "prefix=" + str(v.PrefixPath)
	case *proto.GetAllChildrenNumberRequest:
		return str(v.Path)
	case *proto.AuthPacket:
		return fmt.Sprintf("scheme=%s auth=%s", str(v.Scheme), data(v.Auth))
	case *proto.GetSASLRequest:
		return "token=" + data(v.Token)
	case *proto.ReconfigRequest:
		return fmt.Sprintf("joining=%q leaving=%q members=%q curConfigId=%d", v.JoiningServers, v.LeavingServers, v.NewMembers, v.CurConfigId)
	}
	return fmt.Sprintf("%+v", rec)
}

func describeMultiOp(op *proto.MultiOp) string {
	return op.Type.String() + " " + describeRecord(op.Record())
}
