package conf

import "testing"

func TestAdminHTTPSKeys(t *testing.T) {
	c, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.AdminPortUnification || c.AdminForceHTTPS {
		t.Fatalf("HTTPS on by default: %+v", c)
	}
	c, err = Load(write(t, "dataDir=/d\nclientPort=2181\nadmin.portUnification=true\nadmin.forceHttps=TRUE\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if !c.AdminPortUnification || !c.AdminForceHTTPS {
		t.Fatalf("zoo.cfg keys not read: %+v", c)
	}
	c, err = Load(write(t, "dataDir=/d\nclientPort=2181\n"), "-Dzookeeper.admin.portUnification=true")
	if err != nil {
		t.Fatal(err)
	}
	if !c.AdminPortUnification || c.AdminForceHTTPS {
		t.Fatalf("system property not read: %+v", c)
	}
}
