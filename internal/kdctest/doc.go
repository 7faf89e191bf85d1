// Package kdctest runs a private MIT Kerberos KDC (Debian's krb5-kdc)
// for tests: realm EXAMPLE.COM on a free loopback port (internal/testport),
// with its database, kdc.conf, krb5.conf and keytabs in a temporary
// directory, so that nothing of the machine's own Kerberos setup is read
// or changed.
//
// Start creates the realm with kdb5_util, the principals
// zookeeper/localhost, zkquorum/localhost, client and alice with a keytab
// each (kadmin.local ktadd), runs krb5kdc in the foreground and stops it
// when the test ends; it skips the test when the MIT programs are not
// installed (make setup-interop installs them). Programs that take the
// realm from the environment (kinit, python3-kerberos) get it from Env;
// Java takes -Djava.security.krb5.conf=<Krb5Conf>; gokrb5 loads Krb5Conf.
package kdctest
