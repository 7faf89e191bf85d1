package conftest

// The ensemble forms of zoo.cfg: server lines (roles, client addresses,
// several addresses, IPv6), peerType, group and weight lines, the
// ensemble's timing and port keys, standaloneEnabled, reconfigEnabled and
// dynamic files. Appended to Cases; each Accept and JavaErr was checked
// against Java 3.8.0 by compat/confdiff, which also compares, for every
// file both accept, each server's addresses, role and client address,
// the groups and weights, and the ensemble settings.

const myid4 = "4\n"

const multiAddress = "-Dzookeeper.multiAddress.enabled=true"

// noClient is quorum without clientPort: server lines then carry the
// client addresses alone.
const noClient = "tickTime=2000\ndataDir={dir}/data\ninitLimit=10\nsyncLimit=5\n"

var ensembleCases = []Case{
	// Server lines.
	{Name: "ens-client-hosts-per-line", Cfg: quorum +
		"server.1=127.0.0.1:2888:3888:participant;127.0.0.1:2181\nserver.2=127.0.0.2:2888:3888:participant;127.0.0.2:2181\nserver.3=127.0.0.3:2888:3888;127.0.0.3:2181\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-observer-own-client-port", Cfg: noClient + three + "server.4=zk4:2888:3888:observer;2184\npeerType=observer\n",
		Files: map[string]string{"data/myid": myid4}, Accept: true, Distributed: true, ServerID: 4},
	{Name: "ens-observer-client-port-differs", Cfg: quorum + three + "server.4=zk4:2888:3888:observer;2184\npeerType=observer\n",
		Files: map[string]string{"data/myid": myid4}, Err: "different from the client address", JavaErr: "is different from client address found in dynamic file"},
	{Name: "ens-role-any-case", Cfg: quorum + three + "server.4=zk4:2888:3888:ObSeRvEr\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-client-empty-host", Cfg: noClient + "server.1=zk1:2888:3888;:2181\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-hostname-case-kept", Cfg: quorum + "server.1=ZK1.Example:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-quorum-port-zero", Cfg: quorum + "server.1=zk1:0:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-server-id-above-255", Cfg: quorum + "server.1=zk1:2888:3888\nserver.2=zk2:2888:3888\nserver.300=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-static-address-shorthand", Cfg: quorum + "clientPortAddress=127.1\nserver.1=zk1:2888:3888;127.0.0.1:2181\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-static-address-zero-is-wildcard", Cfg: quorum + "clientPortAddress=0\nserver.1=zk1:2888:3888;127.0.0.5:2181\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	// Two keys for one id: Java keeps one in its hash table's order
	// (server.01 over server.1, whichever comes first in the file).
	{Name: "ens-server-id-twice", Cfg: quorum + "server.1=zk1a:2888:3888\nserver.01=zk1b:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1, Stricter: "which line counts would depend on Java's hash order", Err: "server.1 and server.01 both name server 1"},
	{Name: "ens-weight-id-twice", Cfg: quorum + three + "group.1=1:2:3\nweight.1=2\nweight.01=3\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1, Stricter: "which line counts would depend on Java's hash order", Err: "another weight key also names server 1"},
	{Name: "ens-group-id-twice", Cfg: quorum + three + "group.1=1:2\ngroup.01=3\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1, Stricter: "Java merges the two and counts the group twice", Err: "another group key also names group 1"},
	{Name: "ens-same-port-message", Cfg: quorum + "server.1=zk1:2888:2888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Err: "must be different", JavaErr: "Client and election port must be different"},

	// Several addresses per server (-Dzookeeper.multiAddress.enabled).
	{Name: "ens-multi-three-addresses", Cfg: noClient +
		"server.1=zk1b:2889:3889|zk1a:2888:3888|[::1]:2890:3890;127.0.0.1:2181\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		JVMFlags: multiAddress, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-multi-one-role", Cfg: quorum + three + "server.4=zk4:2888:3888|zk4b:2889:3889:observer\n",
		JVMFlags: multiAddress, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-multi-empty-part", Cfg: quorum + "server.1=zk1:2888:3888||zk1b:2889:3889\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		JVMFlags: multiAddress, Files: myid1, Err: "does not have the form", JavaErr: "does not have the form"},
	{Name: "ens-multi-trailing-pipe-is-one", Cfg: quorum + "server.1=zk1:2888:3888|\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-multi-off-message", Cfg: quorum + "server.1=zk1:2888:3888|zk1b:2889:3889\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Err: "multiple address", JavaErr: "Multiple address feature is disabled"},

	// IPv6.
	{Name: "ens-ipv6-observer-client", Cfg: noClient + "server.1=[::1]:2888:3888;[::1]:2181\nserver.2=[::1]:2889:3889\nserver.3=[::1]:2890:3890\n" +
		"server.4=[::1]:2891:3891:observer;[::1]:2184\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-ipv6-full-uppercase", Cfg: quorum + "server.1=[2001:DB8:0:0:0:0:0:1]:2888:3888\nserver.2=[2001:db8::2]:2888:3888\nserver.3=[0:0:0:0:0:0:0:1]:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-ipv4-mapped", Cfg: quorum + "server.1=[::ffff:127.0.0.1]:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-ipv6-zone", Cfg: quorum + "server.1=[fe80::1%lo]:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-ipv4-shorthand", Cfg: quorum + "server.1=127.1:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-ipv4-leading-zeros", Cfg: quorum + "server.1=127.000.000.001:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-ipv6-without-brackets", Cfg: quorum + "server.1=::1:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
		Files: myid1, Err: "does not have the form", JavaErr: "does not have the form"},

	// peerType against the server list: the list wins.
	{Name: "ens-peertype-observer-on-participant", Cfg: quorum + three + "peerType=observer\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-peertype-participant-on-observer", Cfg: quorum + three + "server.4=zk4:2888:3888:observer\npeerType=participant\n",
		Files: map[string]string{"data/myid": myid4}, Accept: true, Distributed: true, ServerID: 4},

	// Groups and weights.
	{Name: "ens-hier-zero-weight-member", Cfg: quorum + three + "group.1=1:2:3\nweight.3=0\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-hier-zero-weight-group", Cfg: quorum + three + "group.1=1:2\ngroup.2=3\nweight.3=0\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-hier-all-zero", Cfg: quorum + three + "group.1=1:2:3\nweight.1=0\nweight.2=0\nweight.3=0\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-hier-negative-weight", Cfg: quorum + three + "group.1=1:2:3\nweight.1=-1\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-hier-observer-grouped-unweighted", Cfg: quorum + three + "server.4=zk4:2888:3888:observer\ngroup.1=1:2:3:4\n", Files: myid1,
		Err: "server 4 is in a group but has no weight", JavaErr: "NullPointerException"},
	{Name: "ens-hier-observer-grouped-weighted", Cfg: quorum + three + "server.4=zk4:2888:3888:observer\ngroup.1=1:2:3:4\nweight.4=1\n", Files: myid1,
		Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-hier-weight-without-server", Cfg: quorum + three + "group.1=1:2:3\nweight.9=2\n", Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-hier-group-trailing-blank", Cfg: quorum + three + "group.1=1:2:3 \n", Files: myid1, Err: "not a server id", JavaErr: "NumberFormatException"},
	{Name: "ens-hier-group-id-not-number", Cfg: quorum + three + "group.a=1:2:3\n", Files: myid1, Err: "not a group id", JavaErr: "NumberFormatException"},
	{Name: "ens-hier-weight-key-alone", Cfg: quorum + three + "group.1=1:2:3\nweight=1\n", Files: myid1, Err: "not a server id", JavaErr: "NumberFormatException"},
	{Name: "ens-hier-twice-in-one-group", Cfg: quorum + three + "group.1=1:1:2:3\n", Files: myid1, Err: "multiple groups", JavaErr: "is in multiple groups"},

	// The ensemble's timing and port keys.
	{Name: "ens-initlimit-negative", Cfg: base + "initLimit=-1\nsyncLimit=5\n" + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-synclimit-zero", Cfg: base + "initLimit=10\nsyncLimit=0\n" + three, Files: myid1, Err: "syncLimit is not set", JavaErr: "syncLimit is not set"},
	{Name: "ens-initlimit-hex", Cfg: base + "initLimit=0x10\nsyncLimit=5\n" + three, Files: myid1, Err: "initLimit", JavaErr: "NumberFormatException"},
	{Name: "ens-connect-limit", Cfg: quorum + "connectToLearnerMasterLimit=20\n" + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-connect-limit-bad", Cfg: quorum + "connectToLearnerMasterLimit=soon\n" + three, Files: myid1, Err: "connectToLearnerMasterLimit", JavaErr: "NumberFormatException"},
	{Name: "ens-observer-master-port", Cfg: quorum + "observerMasterPort=2191\n" + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-observer-master-port-negative", Cfg: quorum + "observerMasterPort=-1\n" + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-observer-master-port-bad", Cfg: quorum + "observerMasterPort=x\n" + three, Files: myid1, Err: "observerMasterPort", JavaErr: "NumberFormatException"},
	{Name: "ens-listen-on-all-ips", Cfg: quorum + "quorumListenOnAllIPs=true\n" + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-listen-on-all-ips-bad", Cfg: quorum + "quorumListenOnAllIPs=yes\n" + three, Files: myid1, Err: "'true' or 'false'", JavaErr: "Invalid option yes for quorumListenOnAllIPs"},
	{Name: "ens-election-bind-retry", Cfg: quorum + "electionPortBindRetry=0\n" + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-election-bind-retry-lenient", Cfg: quorum + "electionPortBindRetry=forever\n" + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-sync-disabled-observer", Cfg: quorum + "syncEnabled=false\n" + three + "server.4=zk4:2888:3888:observer\n",
		Files: map[string]string{"data/myid": myid4}, Accept: true, Distributed: true, ServerID: 4},

	// standaloneEnabled and reconfigEnabled.
	{Name: "ens-standalone-off-one-server-no-myid", Cfg: quorum + "standaloneEnabled=false\nserver.1=zk1:2888:3888\n", Err: "myid file is missing", JavaErr: "myid file is missing"},
	{Name: "ens-standalone-off-one-server-one-observer", Cfg: quorum + "standaloneEnabled=false\nserver.1=zk1:2888:3888\nserver.2=zk2:2888:3888:observer\n",
		Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-standalone-off-observer-only", Cfg: quorum + "standaloneEnabled=false\nserver.1=zk1:2888:3888:observer\n", Files: myid1,
		Err: "at least one participant", JavaErr: "number of participants should be >0"},
	{Name: "ens-standalone-off-no-limits", Cfg: base + "standaloneEnabled=false\nserver.1=zk1:2888:3888\n", Files: myid1,
		Err: "initLimit is not set", JavaErr: "initLimit is not set"},
	{Name: "ens-reconfig-static-lines", Cfg: quorum + "reconfigEnabled=true\n" + three, Files: myid1, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-reconfig-dynamic-file", Cfg: quorum + "reconfigEnabled=true\ndynamicConfigFile={dir}/zoo.cfg.dynamic.100000000\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.100000000": three}, Accept: true, Distributed: true, ServerID: 1},

	// Dynamic files.
	{Name: "ens-dynamic-as-java-writes-it", Cfg: "tickTime=2000\ninitLimit=10\nsyncLimit=5\ndataDir={dir}/data\nreconfigEnabled=true\n" +
		"dynamicConfigFile={dir}/zoo.cfg.dynamic.100000000\n",
		Files: map[string]string{"data/myid": "2\n", "zoo.cfg.dynamic.100000000": "server.1=127.0.0.1:2888:3888:participant;127.0.0.1:2181\n" +
			"server.2=127.0.0.1:2889:3889:participant;127.0.0.1:2182\nserver.3=127.0.0.1:2890:3890:participant;127.0.0.1:2183"},
		Accept: true, Distributed: true, ServerID: 2},
	{Name: "ens-dynamic-client-port-differs", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.1\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.1": "server.1=zk1:2888:3888;2182\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n"},
		Err:   "different from the client address", JavaErr: "is different from client address found in dynamic file"},
	{Name: "ens-dynamic-suffix-not-hex", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.xyz\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.xyz": three}, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-dynamic-suffix-negative", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.-1\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.-1": three}, Err: "the version in the file name, -1, is negative", JavaErr: "NumberFormatException"},
	{Name: "ens-dynamic-peertype-inside", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.1\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.1": three + "peerType=observer\n"},
		Err:   "unrecognised parameter", JavaErr: "Unrecognised parameter: peerType"},
	{Name: "ens-dynamic-next-is-a-directory", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.1\n",
		Files: map[string]string{"data/myid": "1\n", "zoo.cfg.dynamic.1": three, "zoo.cfg.dynamic.next/x": ""}, Accept: true, Distributed: true, ServerID: 1},
	{Name: "ens-dynamic-observers-and-groups", Cfg: quorum + "dynamicConfigFile={dir}/zoo.cfg.dynamic.200000000\n",
		Files: map[string]string{"data/myid": myid4, "zoo.cfg.dynamic.200000000": three + "server.4=zk4:2888:3888:observer;2184\n" +
			"group.1=1:2\ngroup.2=3\nweight.1=2\nweight.3=0\n"},
		Err: "different from the client address", JavaErr: "is different from client address found in dynamic file"},
	{Name: "ens-dynamic-observers-and-groups-no-static-port", Cfg: noClient + "dynamicConfigFile={dir}/zoo.cfg.dynamic.200000000\n",
		Files: map[string]string{"data/myid": myid4, "zoo.cfg.dynamic.200000000": three + "server.4=zk4:2888:3888:observer;2184\n" +
			"group.1=1:2\ngroup.2=3\nweight.1=2\nweight.3=0\n"},
		Accept: true, Distributed: true, ServerID: 4},
}

func init() { Cases = append(Cases, ensembleCases...) }
