package kdctest

import (
	"testing"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// TestKDCIssuesServiceTickets logs in with a keytab the harness wrote
// and asks for a ticket to the service principal, then checks that Stop
// leaves no KDC running.
func TestKDCIssuesServiceTickets(t *testing.T) {
	k := Start(t)
	cfg, err := config.Load(k.Krb5Conf)
	if err != nil {
		t.Fatal(err)
	}
	kt, err := keytab.Load(k.Keytab(ClientPrincipal))
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewWithKeytab(ClientPrincipal, Realm, kt, cfg, client.DisablePAFXFAST(true))
	if err := cl.Login(); err != nil {
		t.Fatalf("login: %v", err)
	}
	defer cl.Destroy()
	if _, _, err := cl.GetServiceTicket(ServicePrincipal); err != nil {
		t.Fatalf("service ticket: %v", err)
	}
	if _, _, err := cl.GetServiceTicket("nosuch/localhost"); err == nil {
		t.Fatal("a ticket for a principal the realm does not have")
	}
	k.Stop()
	if k.Running() {
		t.Fatal("KDC still running after Stop")
	}
	k.Stop()
}
