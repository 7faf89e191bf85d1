package acl

import (
	"slices"
	"testing"

	"github.com/gozk/gozk/proto"
)

func digestIdentity(t *testing.T, userPassword string) proto.Id {
	t.Helper()
	id, err := DigestID(userPassword, "")
	if err != nil {
		t.Fatal(err)
	}
	return proto.Id{Scheme: "digest", Id: id}
}

// The expected orders are whoAmI replies of a 3.8.0 server to a loopback
// connection after digest auth packets in the given order (superDigest
// set to super:test, which adds super:"").
func TestAddIdentityFollowsJavaOrder(t *testing.T) {
	tests := []struct {
		auths []string
		want  []string // scheme:user as whoAmI shows them
	}{
		{
			auths: []string{"alice:secret", "bob:pw"},
			want:  []string{"digest:alice", "digest:bob", "ip:127.0.0.1"},
		},
		{
			auths: []string{"bob:pw", "alice:secret"},
			want:  []string{"digest:bob", "digest:alice", "ip:127.0.0.1"},
		},
		{
			// 15 identities: the table has doubled from 16 to 32 buckets.
			auths: []string{"alice:secret", "bob:pw", "carol:x", "super:test", "dave:1", "erin:2",
				"frank:3", "gina:4", "hal:5", "ivy:6", "jon:7", "kim:8", "lou:9"},
			want: []string{"digest:lou", "digest:carol", "digest:jon", "digest:gina", "ip:127.0.0.1",
				"digest:kim", "digest:alice", "digest:bob", "digest:frank", "digest:erin", "digest:dave",
				"super:", "digest:hal", "digest:ivy", "digest:super"},
		},
	}
	checker := mustChecker(t, Config{DigestEnabled: true, SuperDigest: "super:D/InIHSb7yEEbrWz8b9l71RjZJU="})
	for _, tt := range tests {
		ids := []proto.Id{IPIdentity("127.0.0.1")}
		for _, a := range tt.auths {
			added, err := checker.Authenticate("digest", []byte(a), "127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range added {
				ids = AddIdentity(ids, id)
			}
		}
		var got []string
		for _, ci := range checker.WhoAmI(ids) {
			got = append(got, ci.AuthScheme+":"+ci.User)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("after %v:\n got %v\nwant %v", tt.auths, got, tt.want)
		}
	}
}

func TestAddIdentityIgnoresDuplicates(t *testing.T) {
	ids := AddIdentity(nil, IPIdentity("10.0.0.1"))
	ids = AddIdentity(ids, digestIdentity(t, "alice:secret"))
	again := AddIdentity(ids, IPIdentity("10.0.0.1"))
	if !slices.Equal(again, ids) || len(again) != 2 {
		t.Errorf("re-adding an identity changed the set: %v -> %v", ids, again)
	}
}

func TestAddIdentityDoesNotModifyInput(t *testing.T) {
	ids := make([]proto.Id, 1, 8)
	ids[0] = IPIdentity("10.0.0.1")
	before := slices.Clone(ids)
	_ = AddIdentity(ids, digestIdentity(t, "alice:secret"))
	if !slices.Equal(ids, before) || cap(ids) != 8 || ids[:2][1] != (proto.Id{}) {
		t.Errorf("AddIdentity wrote into its input: %v", ids[:2])
	}
}

func TestTableSize(t *testing.T) {
	tests := []struct{ n, want int }{{0, 16}, {11, 16}, {12, 32}, {23, 32}, {24, 64}, {48, 128}}
	for _, tt := range tests {
		if got := tableSize(tt.n); got != tt.want {
			t.Errorf("tableSize(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}
