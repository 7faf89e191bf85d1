// Package conftest is a table of zoo.cfg files with what Apache ZooKeeper
// 3.8.0's config parser does with each, shared by conf's own tests and
// by the differential test in compat/confdiff that feeds the same files
// to Java.
package conftest

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
)

// Case is one configuration: a zoo.cfg and the files around it.
type Case struct {
	Name string
	// Cfg is the zoo.cfg text; {dir} stands for the case's directory.
	// {dir}/data exists (it is the dataDir of most cases).
	Cfg string
	// Files are other files to create, relative to the case's directory
	// ("data/myid", "zoo.cfg.dynamic.100000000", ...); {dir} is replaced
	// in their text too.
	Files map[string]string
	// JVMFlags are -D flags, as in SERVER_JVMFLAGS.
	JVMFlags string
	// Accept is what Java 3.8.0 does with the file (checked by the
	// differential test).
	Accept bool
	// Stricter, when set, says why gozk refuses a file Java accepts
	// (Java would start a server that cannot work).
	Stricter string
	// Err is part of gozk's error message when gozk refuses the file.
	Err string
	// JavaErr, when set, is part of Java's message for a file it refuses
	// (checked by the differential test), to show the two side by side.
	JavaErr string
	// Distributed is Java's isDistributed for accepted files.
	Distributed bool
	// ServerID is the myid Java reads (-1 none) for accepted files.
	ServerID int64
}

// GozkAccepts is what conf.Load must do.
func (c Case) GozkAccepts() bool { return c.Accept && c.Stricter == "" }

// Write creates the case's files under dir and returns the zoo.cfg path.
func (c Case) Write(dir string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return "", err
	}
	for name, text := range c.Files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "{dir}", dir)), 0o644); err != nil {
			return "", err
		}
	}
	p := filepath.Join(dir, "zoo.cfg")
	return p, os.WriteFile(p, []byte(strings.ReplaceAll(c.Cfg, "{dir}", dir)), 0o644)
}

const base = "tickTime=2000\ndataDir={dir}/data\nclientPort=2181\n"

const quorum = base + "initLimit=10\nsyncLimit=5\n"

const three = "server.1=zk1:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n"

var myid1 = map[string]string{"data/myid": "1\n"}

// DebianSample is the zoo.cfg that Debian's zookeeper 3.8.0 package
// installs as /etc/zookeeper/conf/zoo.cfg (Apache's zoo_sample.cfg).
//
//go:embed testdata/debian-zoo.cfg
var DebianSample string

// ThreeServers is a three-server ensemble with group and weight lines;
// its dataDir (relative to the conf package) holds myid 2.
//
//go:embed testdata/three-servers-groups.cfg
var ThreeServers string

// Cases is the table. Every Accept value was checked against Java
// 3.8.0's QuorumPeerConfig by compat/confdiff.
var Cases = []Case{
	{Name: "minimal", Cfg: base, Accept: true, ServerID: -1},
	{Name: "debian-sample", Cfg: strings.Replace(DebianSample, "dataDir=/tmp/zookeeper", "dataDir={dir}/data", 1), Accept: true, ServerID: -1},
	{Name: "three-servers-groups-weights", Cfg: strings.Replace(ThreeServers, "dataDir=conftest/testdata/three-servers-data", "dataDir={dir}/data", 1),
		Files: map[string]string{"data/myid": "2\n"}, Accept: true, Distributed: true, ServerID: 2},
	{Name: "defaults-no-ticktime", Cfg: "dataDir={dir}/data\nclientPort=2181\n", Accept: true, ServerID: -1},
	{Name: "no-clientport", Cfg: "dataDir={dir}/data\n", Accept: true, ServerID: -1},
	{Name: "no-datadir", Cfg: "clientPort=2181\n", Err: "dataDir is not set"},
	{Name: "properties-syntax", Cfg: "tickTime : 2000\ndataDir {dir}/data\n  clientPort=21\\\n   81\n! comment\n", Accept: true, ServerID: -1},
	{Name: "ticktime-not-number", Cfg: base + "tickTime=abc\n", Err: ":4: tickTime:"},
	{Name: "ticktime-zero", Cfg: base + "tickTime=0\n", Err: "tickTime is not set"},
	{Name: "ticktime-negative", Cfg: base + "tickTime=-5\nminSessionTimeout=1\nmaxSessionTimeout=2\n", Accept: true, ServerID: -1,
		Stricter: "a negative tick cannot drive session expiry", Err: "tickTime must be positive"},
	{Name: "clientport-not-number", Cfg: base + "clientPort=21x\n", Err: "clientPort"},
	{Name: "clientport-out-of-range", Cfg: base + "clientPort=99999\n", Err: "out of range"},
	{Name: "clientportaddress-without-port", Cfg: "dataDir={dir}/data\nclientPortAddress=127.0.0.1\n", Err: "clientPort is not set"},
	{Name: "secure-address-without-port", Cfg: base + "secureClientPortAddress=127.0.0.1\n", Err: "secureClientPort is not set"},
	{Name: "min-greater-than-max", Cfg: base + "minSessionTimeout=9000\nmaxSessionTimeout=4000\n", Err: "minSessionTimeout"},
	{Name: "min-greater-than-default-max", Cfg: base + "minSessionTimeout=50000\n", Err: "minSessionTimeout"},
	{Name: "maxclientcnxns-bad", Cfg: base + "maxClientCnxns=lots\n", Err: ":4: maxClientCnxns:"},
	{Name: "bool-key-bad", Cfg: base + "standaloneEnabled=yes\n", Err: "'true' or 'false'"},
	{Name: "bool-key-case", Cfg: base + "reconfigEnabled=TRUE\nlocalSessionsEnabled=False\n", Accept: true, ServerID: -1},
	{Name: "electionalg-1", Cfg: base + "electionAlg=1\n", Err: "only 3"},
	{Name: "electionalg-3", Cfg: base + "electionAlg=3\n", Accept: true, ServerID: -1},
	{Name: "peertype-bad", Cfg: base + "peerType=leader\n", Err: "peer type"},
	{Name: "autopurge", Cfg: base + "autopurge.snapRetainCount=1\nautopurge.purgeInterval=1\n", Accept: true, ServerID: -1},
	{Name: "autopurge-bad", Cfg: base + "autopurge.purgeInterval=daily\n", Err: "autopurge.purgeInterval"},
	{Name: "sysprop-keys-lenient", Cfg: base + "skipACL=maybe\nforceSync=perhaps\nsnapCount=many\nextendedTypesEnabled=sure\n" +
		"maxCnxns=x\nglobalOutstandingLimit=y\nadmin.serverPort=z\nfsync.warningthresholdms=soon\n4lw.commands.whitelist=*\n", Accept: true, ServerID: -1},
	{Name: "unknown-key", Cfg: base + "someFutureKey=1\ntraceFile=\n", Accept: true, ServerID: -1},
	{Name: "jute-maxbuffer-in-zoocfg", Cfg: base + "jute.maxbuffer=4194304\n", Accept: true, ServerID: -1},
	{Name: "jvm-pause-keys", Cfg: base + "jvm.pause.monitor=true\njvm.pause.info-threshold.ms=100\n", Accept: true, ServerID: -1},
	{Name: "jvm-pause-bad", Cfg: base + "jvm.pause.sleep.time.ms=soon\n", Err: "jvm.pause.sleep.time.ms"},
	{Name: "metrics-unknown-class", Cfg: base + "metricsProvider.className=com.example.Nope\n", Err: "was not found"},
	{Name: "metrics-default-class", Cfg: base + "metricsProvider.className=org.apache.zookeeper.metrics.impl.DefaultMetricsProvider\nmetricsProvider.httpPort=x\n",
		Accept: true, ServerID: -1},
	{Name: "quorum-sasl-server-without-enable", Cfg: base + "quorum.auth.serverRequireSasl=true\n", Err: "quorum.auth.enableSasl"},
	{Name: "quorum-sasl-server-without-learner", Cfg: base + "quorum.auth.enableSasl=true\nquorum.auth.serverRequireSasl=true\n", Err: "learnerRequireSasl"},
	{Name: "quorum-sasl-all", Cfg: base + "quorum.auth.enableSasl=true\nquorum.auth.serverRequireSasl=true\nquorum.auth.learnerRequireSasl=true\n" +
		"quorum.auth.learner.saslLoginContext=L\nquorum.auth.server.saslLoginContext=S\nquorum.auth.kerberos.servicePrincipal=zk/_HOST\n", Accept: true, ServerID: -1},
	{Name: "standalone-disabled-no-servers", Cfg: base + "standaloneEnabled=false\n", Err: "at least one participant"},

	{Name: "duplicate-key-last-wins", Cfg: base + "clientPort=abc\nclientPort=2182\n", Accept: true, ServerID: -1},
	{Name: "clientport-zero", Cfg: base + "clientPort=0\n", Accept: true, ServerID: -1},
	{Name: "clientport-negative", Cfg: base + "clientPort=-1\n", Err: "out of range"},
	{Name: "secure-port-only", Cfg: "dataDir={dir}/data\nsecureClientPort=2281\n", Accept: true, ServerID: -1},
	{Name: "empty-datadir", Cfg: "dataDir=\nclientPort=2181\n", Err: "dataDir is not set"}, // Java fails on the empty path
	{Name: "max-timeout-minus-one", Cfg: base + "maxSessionTimeout=-1\n", Accept: true, ServerID: -1},
	{Name: "peertype-uppercase", Cfg: base + "peerType=OBSERVER\n", Accept: true, ServerID: -1},
	{Name: "electionalg-bad", Cfg: base + "electionAlg=x\n", Err: "electionAlg"},
	{Name: "cnxn-threads-bad", Cfg: base + "quorum.cnxn.threads.size=x\n", Err: "quorum.cnxn.threads.size"},
	{Name: "reachability-timeout-bad", Cfg: base + "multiAddress.reachabilityCheckTimeoutMs=x\n", Err: "multiAddress.reachabilityCheckTimeoutMs"},
	{Name: "version-key-hex", Cfg: base + "version=10\n", Accept: true, ServerID: -1},
	{Name: "version-key-bad", Cfg: base + "version=zz\n", Err: "hexadecimal"},
	{Name: "jvmflags-lenient", Cfg: base, JVMFlags: "-Dzookeeper.snapCount=abc -Djute.maxbuffer=big -Dzookeeper.maxCnxns=", Accept: true, ServerID: -1},
	{Name: "escaped-path", Cfg: "dataDir={dir}/da\\u0074a\nclientPort=2181\n", Accept: true, ServerID: -1},
	{Name: "jute-maxbuffer-zero", Cfg: base, JVMFlags: "-Djute.maxbuffer=0", Accept: true, ServerID: -1,
		Stricter: "no packet could be read", Err: "jute.maxbuffer must be positive"},
	// Java properties syntax
	{Name: "props-continuation-hash", Cfg: "dataDir={dir}/data\nclientPort=21\\\n#81\n", Err: "clientPort"},
	{Name: "props-even-backslashes", Cfg: "dataDir={dir}/data\nclientPort=2181\\\\\ntickTime=2000\n", Err: "clientPort"},
	{Name: "props-escaped-separator-in-key", Cfg: "dataDir={dir}/data\nclientPort\\=2181\n", Accept: true, ServerID: -1},
	{Name: "props-unicode-key", Cfg: "dataDir={dir}/data\n\\u0063lientPort=abc\n", Err: "clientPort"},
	{Name: "props-crlf", Cfg: "dataDir={dir}/data\r\nclientPort=2181\r\ntickTime=2000\r\n", Accept: true, ServerID: -1},
	{Name: "props-lone-cr", Cfg: "dataDir={dir}/data\nclientPort=x\rclientPort=2181\n", Accept: true, ServerID: -1},
	{Name: "props-separators", Cfg: "dataDir {dir}/data\nclientPort : 2181\ntickTime  =  2000\n", Accept: true, ServerID: -1},
	{Name: "props-bad-unicode-escape", Cfg: base + "someKey=\\uZZZZ\n", Err: "escape"},
	{Name: "props-continuation-leading-blanks", Cfg: "dataDir={dir}/data\nclientPort=21\\\n     81\n", Accept: true, ServerID: -1},
	{Name: "props-key-only", Cfg: base + "standaloneEnabled\n", Err: "standaloneEnabled"},
	// myid
	{Name: "standalone-with-myid", Cfg: base, Files: myid1, Accept: true, ServerID: 1},
	{Name: "standalone-bad-myid", Cfg: base, Files: map[string]string{"data/myid": "garbage\n"}, Err: "serverid garbage is not a number"},
	{Name: "myid-with-space", Cfg: base, Files: map[string]string{"data/myid": " 1\n"}, Err: "serverid  1 is not a number"},
	{Name: "myid-empty", Cfg: base, Files: map[string]string{"data/myid": ""}, Err: "serverid null is not a number"},
	{Name: "myid-second-line-ignored", Cfg: base, Files: map[string]string{"data/myid": "7\nxyz\n"}, Accept: true, ServerID: 7},

	// server lines
	{Name: "three-servers", Cfg: quorum + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "three-servers-no-myid", Cfg: quorum + three, Err: "myid file is missing"},
	{Name: "three-servers-no-initlimit", Cfg: base + "syncLimit=5\n" + three, Files: myid1, Err: "initLimit is not set"},
	{Name: "three-servers-no-synclimit", Cfg: base + "initLimit=5\n" + three, Files: myid1, Err: "syncLimit is not set"},
	{Name: "myid-not-in-list", Cfg: quorum + three, Files: map[string]string{"data/myid": "9\n"}, Accept: true, Distributed: true, ServerID: 9},
	{Name: "one-server-standalone", Cfg: base + "server.1=zk1:2888:3888\n", Accept: true, ServerID: -1},
	{Name: "one-server-not-standalone", Cfg: quorum + "standaloneEnabled=false\nserver.1=zk1:2888:3888\n", Files: myid1,
		Accept: true, Distributed: true, ServerID: 1},
	{Name: "observer-only", Cfg: base + "server.1=zk1:2888:3888:observer\n", Err: "without participants"},
	{Name: "one-participant-one-observer", Cfg: base + "server.1=zk1:2888:3888\nserver.2=zk2:2888:3888:observer\n", Err: "without a quorum"},
	{Name: "observers", Cfg: quorum + three + "server.4=zk4:2888:3888:observer\nserver.5=zk5:2888:3888:OBSERVER\npeerType=observer\n",
		Files: map[string]string{"data/myid": "4\n"}, Accept: true, Distributed: true, ServerID: 4},
	{Name: "client-addresses", Cfg: "tickTime=2000\ndataDir={dir}/data\ninitLimit=5\nsyncLimit=2\n" +
		"server.1=zk1:2888:3888;2181\nserver.2=zk2:2888:3888:participant;0.0.0.0:2181\nserver.3=[::1]:2888:3888:participant;[::1]:2181\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "client-address-matches-static", Cfg: quorum + "server.1=zk1:2888:3888;2181\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "client-address-differs", Cfg: quorum + "server.1=zk1:2888:3888;2182\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Err: "different from the client address"},
	{Name: "client-address-host-differs", Cfg: quorum + "clientPortAddress=127.0.0.1\nserver.1=zk1:2888:3888;10.0.0.1:2181\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Err: "different from the client address"},
	{Name: "ipv6", Cfg: quorum + "server.1=[::1]:2888:3888\nserver.2=[fe80::1]:2888:3888:participant\nserver.3=[::1]:2889:3889\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ipv6-unclosed", Cfg: quorum + "server.1=[::1:2888:3888\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "no matching"},
	{Name: "same-ports", Cfg: quorum + "server.1=zk1:2888:2888\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "must be different"},
	{Name: "two-ports-only", Cfg: quorum + "server.1=zk1:2888\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "does not have the form"},
	{Name: "five-parts", Cfg: quorum + "server.1=zk1:2888:3888:participant:x\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "does not have the form"},
	{Name: "bad-role", Cfg: quorum + "server.1=zk1:2888:3888:leader\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "peer type"},
	{Name: "bad-port", Cfg: quorum + "server.1=zk1:28x8:3888\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "not a port"},
	{Name: "port-out-of-range", Cfg: quorum + "server.1=zk1:70000:3888\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "out of range"},
	{Name: "trailing-space", Cfg: quorum + "server.1=zk1:2888:3888 \nserver.2=zk2:2888:3888\n", Files: myid1, Err: "not a port"},
	{Name: "role-trailing-space", Cfg: quorum + "server.1=zk1:2888:3888:participant \nserver.2=zk2:2888:3888\n", Files: myid1,
		Accept: true, Distributed: true, ServerID: 1},
	{Name: "bad-server-id", Cfg: quorum + "server.one=zk1:2888:3888\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "not a server id"},
	{Name: "three-semicolon-parts", Cfg: quorum + "server.1=zk1:2888:3888;2181;2281\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "does not have the form"},
	{Name: "multi-address-off", Cfg: quorum + "server.1=zk1:2888:3888|zk1b:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Err: "multiple address"},
	{Name: "multi-address-zoocfg-key-not-enough", Cfg: quorum + "multiAddress.enabled=true\nserver.1=zk1:2888:3888|zk1b:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Err: "multiple address"},
	{Name: "multi-address-sysprop", Cfg: quorum + "server.1=zk1:2888:3888|zk1b:2889:3889\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		JVMFlags: "-Dzookeeper.multiAddress.enabled=true", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "multi-address-mixed-roles", Cfg: quorum + "server.1=zk1:2888:3888:observer|zk1b:2889:3889:participant\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		JVMFlags: "-Dzookeeper.multiAddress.enabled=true", Files: myid1, Err: "same role"},

	{Name: "trailing-separators", Cfg: quorum + "server.1=zk1:2888:3888:;\nserver.2=zk2:2888:3888;\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "empty-host", Cfg: quorum + "server.1=:2888:3888\nserver.2=zk2:2888:3888\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "client-port-bad", Cfg: quorum + "server.1=zk1:2888:3888;abc\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "not a port"},
	{Name: "client-host-without-port", Cfg: quorum + "server.1=zk1:2888:3888;host:\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "not a port"},
	{Name: "client-ipv6", Cfg: "dataDir={dir}/data\ninitLimit=5\nsyncLimit=2\nserver.1=zk1:2888:3888;[::1]:2181\nserver.2=zk2:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "server-id-zero-and-negative", Cfg: quorum + "server.0=zk0:2888:3888\nserver.-1=zkm:2888:3888\n", Files: map[string]string{"data/myid": "0\n"},
		Accept: true, Distributed: true, ServerID: 0},
	{Name: "server-id-with-suffix", Cfg: quorum + "server.1.a=zk1:2888:3888\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "not a server id"},
	{Name: "ipv6-no-port", Cfg: quorum + "server.1=[::1]\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "does not have the form"},
	{Name: "ipv6-colon-no-port", Cfg: quorum + "server.1=[::1]:\nserver.2=zk2:2888:3888\n", Files: myid1, Err: "port after colon"},
	{Name: "observer-myid-peertype", Cfg: quorum + three + "server.4=zk4:2888:3888:observer\n",
		Files: map[string]string{"data/myid": "4\n"}, Accept: true, Distributed: true, ServerID: 4},
	{Name: "static-wildcard-client-address", Cfg: quorum + "clientPortAddress=0.0.0.0\nserver.1=zk1:2888:3888;127.0.0.1:2181\nserver.2=zk2:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "static-localhost-matches-loopback", Cfg: quorum + "clientPortAddress=localhost\nserver.1=zk1:2888:3888;127.0.0.1:2181\nserver.2=zk2:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "standalone-server-line-with-client", Cfg: "dataDir={dir}/data\nserver.1=zk1:2888:3888;2181\n", Files: myid1, Accept: true, ServerID: 1},
	{Name: "weight-observer", Cfg: quorum + three + "server.4=zk4:2888:3888:observer\ngroup.1=1:2:3\nweight.4=0\n", Files: myid1,
		Accept: true, Distributed: true, ServerID: 1},
	{Name: "group-empty", Cfg: quorum + three + "group.1=1:2:3\ngroup.2=\n", Files: myid1, Err: "not a server id"},

	// group and weight
	{Name: "groups-weights", Cfg: quorum + three + "server.4=zk4:2888:3888\nserver.5=zk5:2888:3888\n" +
		"group.1=1:2:3\ngroup.2=4:5\nweight.1=1\nweight.2=1\nweight.3=2\nweight.4=1\nweight.5=0\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "groups-default-weight", Cfg: quorum + three + "group.1=1:2\ngroup.2=3\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "server-in-no-group", Cfg: quorum + three + "group.1=1:2\n", Files: myid1, Err: "not in a group"},
	{Name: "server-in-two-groups", Cfg: quorum + three + "group.1=1:2\ngroup.2=2:3\n", Files: myid1, Err: "multiple groups"},
	{Name: "group-unknown-server", Cfg: quorum + three + "group.1=1:2:3:9\n", Files: myid1, Err: "no server line"},
	{Name: "group-unknown-weighted-server", Cfg: quorum + three + "group.1=1:2:3:9\nweight.9=1\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "weight-bad", Cfg: quorum + three + "group.1=1:2:3\nweight.1=heavy\n", Files: myid1, Err: "not a whole number"},
	{Name: "group-key-without-dot", Cfg: base + "groupx=1\n", Err: "not a group id"},

	// dynamic configuration files
	{Name: "dynamic-file", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.100000000\n",
		Files: map[string]string{"data/myid": "2\n", "zoo.cfg.dynamic.100000000": three}, Accept: true, Distributed: true, ServerID: 2},
	{Name: "dynamic-file-missing", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.1\n", Files: myid1, Err: "no such file"},
	{Name: "dynamic-file-with-version", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.1\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.1": three + "version=1\n"}, Err: "must not hold a version"},
	{Name: "dynamic-file-other-key", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.1\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.1": three + "tickTime=2000\n"}, Err: "unrecognised parameter"},
	{Name: "dynamic-file-and-server-lines", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.1\nserver.1=zk1:2888:3888\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.1": three}, Err: "separate dynamic config file"},
	{Name: "dynamic-file-groups", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic\n",
		Files: map[string]string{"data/myid": "3\n", "zoo.cfg.dynamic": three + "group.1=1:2:3\nweight.3=3\n"}, Accept: true, Distributed: true, ServerID: 3},
	{Name: "dynamic-next", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.100000000\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.100000000": three,
			"zoo.cfg.dynamic.next": three + "server.4=zk4:2888:3888:observer\nversion=100000003\n"}, Accept: true, Distributed: true, ServerID: 1},
	{Name: "dynamic-next-bad", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.100000000\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.100000000": three,
			"zoo.cfg.dynamic.next": "server.4=zk4:2888\n"}, Err: "does not have the form"},
}
