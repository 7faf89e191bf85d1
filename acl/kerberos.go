package acl

import "strings"

// validKerberosName is SASLAuthenticationProvider.isValid, which accepts
// what Java's KerberosName constructor accepts: a name without '@'
// (anything at all), or exactly "service[/host]@realm" where no part
// contains '/' or '@'.
func validKerberosName(id string) bool {
	before, realm, hasRealm := strings.Cut(id, "@")
	if !hasRealm {
		return true
	}
	if strings.ContainsAny(realm, "/@") {
		return false
	}
	_, host, _ := strings.Cut(before, "/")
	return !strings.Contains(host, "/")
}
