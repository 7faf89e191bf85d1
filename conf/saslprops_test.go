package conf

import (
	"reflect"
	"testing"
)

func TestSASLProperties(t *testing.T) {
	c, err := Load(write(t, "dataDir=/d\nclientPort=2181\nsuperUser.b=carol\nallowSaslFailedClients=TRUE\n"),
		"-Djava.security.auth.login.config=/etc/zk/jaas.conf -Dzookeeper.sasl.serverconfig=ZK "+
			"-Dzookeeper.SASLAuthenticationProvider.superPassword= -Dzookeeper.superUser=alice "+
			"-Dzookeeper.superUserX=nobody -Dzookeeper.letAnySaslUserDoX=any "+
			"-Dzookeeper.kerberos.removeHostFromPrincipal=true -Dzookeeper.kerberos.removeRealmFromPrincipal=TRUE")
	if err != nil {
		t.Fatal(err)
	}
	want := SASLConfig{
		LoginConfig:             "/etc/zk/jaas.conf",
		ServerSection:           "ZK",
		HasSuperPassword:        true,
		SuperUsers:              []string{"alice", "carol"},
		LetAnySASLUserDoX:       "any",
		AllowFailedClients:      true, // Boolean.getBoolean ignores case
		RemoveHostFromPrincipal: true,
		// Java compares removeRealmFromPrincipal with "true" exactly.
		RemoveRealmFromPrincipal: false,
	}
	if !reflect.DeepEqual(c.SASL, want) {
		t.Fatalf("got  %+v\nwant %+v", c.SASL, want)
	}
	d, err := LoadDefaults("")
	if err != nil {
		t.Fatal(err)
	}
	if d.SASL.ServerSection != "Server" || d.SASL.LoginConfig != "" || d.SASL.HasSuperPassword {
		t.Fatalf("defaults %+v", d.SASL)
	}
}
