package proto

// Permission bits of an ACL entry.
const (
	PermRead   int32 = 1 << 0
	PermWrite  int32 = 1 << 1
	PermCreate int32 = 1 << 2
	PermDelete int32 = 1 << 3
	PermAdmin  int32 = 1 << 4
	PermAll    int32 = PermRead | PermWrite | PermCreate | PermDelete | PermAdmin
)

// Well-known identities.
var (
	// AnyoneID matches every connection.
	AnyoneID = Id{Scheme: "world", Id: "anyone"}
	// AuthIDs stands for the creator's authenticated identities in an ACL.
	AuthIDs = Id{Scheme: "auth", Id: ""}
)

// Well-known ACL lists. Treat them as read-only.
var (
	OpenACLUnsafe = []ACL{{Perms: PermAll, Id: AnyoneID}}
	CreatorAllACL = []ACL{{Perms: PermAll, Id: AuthIDs}}
	ReadACLUnsafe = []ACL{{Perms: PermRead, Id: AnyoneID}}
)

// PermString renders permission bits the way zkCli does (e.g. "cdrwa").
func PermString(perms int32) string {
	b := make([]byte, 0, 5)
	if perms&PermCreate != 0 {
		b = append(b, 'c')
	}
	if perms&PermDelete != 0 {
		b = append(b, 'd')
	}
	if perms&PermRead != 0 {
		b = append(b, 'r')
	}
	if perms&PermWrite != 0 {
		b = append(b, 'w')
	}
	if perms&PermAdmin != 0 {
		b = append(b, 'a')
	}
	return string(b)
}
