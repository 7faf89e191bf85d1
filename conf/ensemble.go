package conf

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
)

// LearnerType is a server's role in an ensemble.
type LearnerType int

// The roles a server line can give.
const (
	Participant LearnerType = iota
	Observer
)

func (t LearnerType) String() string {
	if t == Observer {
		return "observer"
	}
	return "participant"
}

// QuorumAddr is one host:quorumPort:electionPort of a server line.
type QuorumAddr struct {
	Host         string // as written, without the brackets of an IPv6 literal
	QuorumPort   int    // followers connect to the leader here
	ElectionPort int    // leader election
}

// QuorumHostPort and ElectionHostPort format the two addresses for net.Dial.
func (a QuorumAddr) QuorumHostPort() string {
	return net.JoinHostPort(a.Host, strconv.Itoa(a.QuorumPort))
}

func (a QuorumAddr) ElectionHostPort() string {
	return net.JoinHostPort(a.Host, strconv.Itoa(a.ElectionPort))
}

// ServerSpec is one server.N line:
// host:port:port[:role][|host:port:port[:role]...][;[clientHost:]clientPort].
type ServerSpec struct {
	ID    int64
	Addrs []QuorumAddr // more than one only with multiple addresses
	Type  LearnerType
	// ClientHost and ClientPort are the client address of the line
	// (ClientPort 0 when the line has none; ClientHost "0.0.0.0" when only
	// a port is given). For this server (myid), a line without a client
	// address takes clientPortAddress:clientPort and ClientFromStatic is set.
	ClientHost       string
	ClientPort       int
	ClientFromStatic bool

	Key   string // "server.N"
	Value string // the line's value as written
	Line  int    // 0 in a file other than zoo.cfg when unknown
	File  string // the file the line is in
}

// ClientAddr is host:port of the client address, "" when there is none.
func (s *ServerSpec) ClientAddr() string {
	if s.ClientPort == 0 {
		return ""
	}
	return net.JoinHostPort(s.ClientHost, strconv.Itoa(s.ClientPort))
}

// String writes the line as Java's QuorumServer.toString does, in
// dynamic files and in /zookeeper/config: host:qport:eport per address
// (sorted by host, joined by |), then :role once, then ;host:cport when
// the client address is the line's own. Hosts are written as Java's
// InetSocketAddress.getHostString gives them: names as written, IP
// literals in Java's own form (IPv6 uncompressed, in brackets).
func (s *ServerSpec) String() string {
	addrs := append([]QuorumAddr(nil), s.Addrs...)
	sort.SliceStable(addrs, func(i, j int) bool { return javaHostString(addrs[i].Host) < javaHostString(addrs[j].Host) })
	parts := make([]string, len(addrs))
	for i, a := range addrs {
		parts[i] = fmt.Sprintf("%s:%d:%d", bracket(javaHostString(a.Host)), a.QuorumPort, a.ElectionPort)
	}
	out := strings.Join(parts, "|") + ":" + s.Type.String()
	if s.ClientPort != 0 && !s.ClientFromStatic {
		out += fmt.Sprintf(";%s:%d", bracket(javaHostString(s.ClientHost)), s.ClientPort)
	}
	return out
}

// javaHostString is a host as Java's InetSocketAddress.getHostString
// gives it for an address made from that text: an IP literal in Java's
// form (dotted IPv4, also for an IPv4-mapped IPv6 address; IPv6 as eight
// groups of lowercase hex without leading zeros or "::"), a name as
// written.
func javaHostString(host string) string {
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	groups := make([]string, 8)
	for i := range groups {
		groups[i] = strconv.FormatUint(uint64(ip[2*i])<<8|uint64(ip[2*i+1]), 16)
	}
	return strings.Join(groups, ":")
}

// javaHost is the host of a server line as Java's InetSocketAddress
// takes it, in a form Go dials the same way: an empty host is the
// loopback address, named localhost; an IPv4 literal in one of the
// shorthands Java reads (127.1, 10.1.2, 2130706433, zeros before digits)
// is that address, dotted. Anything else is kept as written.
func javaHost(host string) string {
	if host == "" {
		return "localhost"
	}
	if ip, ok := javaIPv4Literal(host); ok {
		return ip.String()
	}
	return host
}

// javaIPv4Literal reads an IPv4 literal as Java's InetAddress does: one
// to four parts of decimal digits separated by dots, the last part
// filling the bytes the others leave (a, a.b, a.b.c, a.b.c.d).
func javaIPv4Literal(s string) (net.IP, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return nil, false
	}
	var vals []uint64
	for _, p := range parts {
		if p == "" || len(p) > 10 || strings.Trim(p, "0123456789") != "" {
			return nil, false
		}
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return nil, false
		}
		vals = append(vals, v)
	}
	var addr uint64
	for i, v := range vals {
		last := i == len(vals)-1
		limit := uint64(255)
		if last {
			limit = 1<<(8*(4-i)) - 1
		}
		if v > limit {
			return nil, false
		}
		if last {
			addr = addr<<(8*(4-i)) | v
		} else {
			addr = addr<<8 | v
		}
	}
	return net.IPv4(byte(addr>>24), byte(addr>>16), byte(addr>>8), byte(addr)), true
}

func bracket(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

// Ensemble is the server.N, group.N and weight.N lines of zoo.cfg or of
// its dynamic configuration file, checked as Java 3.8 checks them. A
// quorum verifier (majority or hierarchical) is built from it elsewhere.
type Ensemble struct {
	Servers map[int64]*ServerSpec
	// Hierarchical is set when any group or weight key is present;
	// Groups then maps each group id to its server ids, Weights every
	// participant (and every weighted server) to its weight (default 1).
	Hierarchical bool
	Groups       map[int64][]int64
	Weights      map[int64]int64
	// Version is the configuration version: the hex suffix of the
	// dynamic file's name, the version key of a .dynamic.next file, 0 for
	// server lines in zoo.cfg.
	Version int64
	File    string // the file the lines were read from
}

// IDs returns the server ids in ascending order.
func (e *Ensemble) IDs() []int64 {
	ids := make([]int64, 0, len(e.Servers))
	for id := range e.Servers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Voters returns the participants' ids in ascending order.
func (e *Ensemble) Voters() []int64 { return e.ofType(Participant) }

// Observers returns the observers' ids in ascending order.
func (e *Ensemble) Observers() []int64 { return e.ofType(Observer) }

func (e *Ensemble) ofType(t LearnerType) []int64 {
	var out []int64
	for _, id := range e.IDs() {
		if e.Servers[id].Type == t {
			out = append(out, id)
		}
	}
	return out
}

// WeightOf is a server's weight as Java's verifier gives it: 1 for every
// server of a majority ensemble (where only participants vote); in a
// hierarchical one, its weight.N line, 1 for a participant without one,
// and 0 for a server with neither (an observer).
func (e *Ensemble) WeightOf(sid int64) int64 {
	if !e.Hierarchical {
		return 1
	}
	return e.Weights[sid]
}

// GroupOf returns the group of a server in a hierarchical ensemble.
func (e *Ensemble) GroupOf(sid int64) (int64, bool) {
	for gid, members := range e.Groups {
		for _, m := range members {
			if m == sid {
				return gid, true
			}
		}
	}
	return 0, false
}

// ensembleLine is one key of a file that may hold server lines.
type ensembleLine struct {
	Key, Raw string
	Line     int
}

// parseEnsemble builds an ensemble from the server/group/weight/version
// keys as Java's QuorumMaj and QuorumHierarchical do. Values are used as
// Java's Properties gives them to those classes: without leading blanks
// but with any trailing ones, which Java then fails to parse.
func parseEnsemble(file string, lines []ensembleLine, multiAddressEnabled bool) (*Ensemble, error) {
	e := &Ensemble{Servers: map[int64]*ServerSpec{}, File: file}
	for _, l := range lines {
		if strings.HasPrefix(l.Key, "group") || strings.HasPrefix(l.Key, "weight") {
			e.Hierarchical = true
		}
	}
	errAt := func(l ensembleLine, format string, args ...any) error {
		return &Error{File: file, Line: l.Line, Key: l.Key, Msg: fmt.Sprintf(format, args...)}
	}
	groupOf := map[int64]int64{}
	weights := map[int64]int64{}
	if e.Hierarchical {
		e.Groups = map[int64][]int64{}
	}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l.Key, "server."):
			sid, ok := parseJavaLong(l.Key[len("server."):])
			if !ok {
				return nil, errAt(l, "%q is not a server id (server.<number>)", l.Key[len("server."):])
			}
			s, err := parseServerLine(sid, l.Raw, multiAddressEnabled)
			if err != nil {
				return nil, errAt(l, "%s", err.Error())
			}
			if prev, dup := e.Servers[sid]; dup {
				// Java keeps one of them, in its hash table's order.
				return nil, errAt(l, "%s and %s both name server %d", prev.Key, l.Key, sid)
			}
			s.Key, s.Line, s.File = l.Key, l.Line, file
			e.Servers[sid] = s
		case e.Hierarchical && strings.HasPrefix(l.Key, "group"):
			gid, ok := parseJavaLong(afterDot(l.Key))
			if !ok {
				return nil, errAt(l, "%q is not a group id (group.<number>)", afterDot(l.Key))
			}
			if _, dup := e.Groups[gid]; dup {
				// Java merges them and counts the group twice.
				return nil, errAt(l, "another group key also names group %d", gid)
			}
			for _, part := range javaSplit(l.Raw, ":") {
				sid, ok := parseJavaLong(part)
				if !ok {
					return nil, errAt(l, "%q is not a server id", part)
				}
				if g, dup := groupOf[sid]; dup {
					return nil, errAt(l, "server %d is in multiple groups (%d and %d)", sid, g, gid)
				}
				groupOf[sid] = gid
				e.Groups[gid] = append(e.Groups[gid], sid)
			}
			if _, ok := e.Groups[gid]; !ok {
				e.Groups[gid] = nil
			}
		case e.Hierarchical && strings.HasPrefix(l.Key, "weight"):
			sid, ok := parseJavaLong(afterDot(l.Key))
			if !ok {
				return nil, errAt(l, "%q is not a server id (weight.<server id>)", afterDot(l.Key))
			}
			w, ok := parseJavaLong(l.Raw)
			if !ok {
				return nil, errAt(l, "%q is not a whole number", l.Raw)
			}
			if _, dup := weights[sid]; dup {
				// Java keeps one of them, in its hash table's order.
				return nil, errAt(l, "another weight key also names server %d", sid)
			}
			weights[sid] = w
		case l.Key == "version":
			v, err := strconv.ParseInt(l.Raw, 16, 64)
			if err != nil {
				return nil, errAt(l, "%q is not a hexadecimal version", l.Raw)
			}
			e.Version = v
		}
	}
	if e.Hierarchical {
		for _, id := range e.IDs() {
			if e.Servers[id].Type != Participant {
				continue
			}
			if _, ok := groupOf[id]; !ok {
				s := e.Servers[id]
				return nil, &Error{File: file, Line: s.Line, Key: s.Key, Msg: fmt.Sprintf("server %d is not in a group", id)}
			}
			if _, ok := weights[id]; !ok {
				weights[id] = 1
			}
		}
		// Java sums the weights of every grouped id and fails (a null
		// weight) on an id that is neither a participant nor weighted.
		for _, l := range lines {
			if !strings.HasPrefix(l.Key, "group") {
				continue
			}
			for _, part := range javaSplit(l.Raw, ":") {
				sid, _ := parseJavaLong(part)
				if _, ok := weights[sid]; !ok {
					if srv, ok := e.Servers[sid]; ok && srv.Type == Observer {
						return nil, errAt(l, "server %d is in a group but has no weight (an observer gets no default weight; give it weight.%d)", sid, sid)
					}
					return nil, errAt(l, "server %d is in a group but has no server line and no weight", sid)
				}
			}
		}
		e.Weights = weights
	}
	return e, nil
}

func afterDot(key string) string {
	if i := strings.IndexByte(key, '.'); i >= 0 {
		return key[i+1:]
	}
	return key
}

const wrongFormat = " does not have the form server_config or server_config;client_config" +
	" where server_config is the pipe separated list of host:port:port or host:port:port:type" +
	" and client_config is port or host:port"

// parseServerLine reads a server line's value as QuorumServer does.
func parseServerLine(sid int64, value string, multiAddressEnabled bool) (*ServerSpec, error) {
	s := &ServerSpec{ID: sid, Value: value, Type: Participant}
	serverClient := javaSplit(value, ";")
	if len(serverClient) == 0 {
		return nil, fmt.Errorf("%q%s", value, wrongFormat)
	}
	serverAddrs := javaSplit(serverClient[0], "|")
	if len(serverClient) == 2 {
		parts, err := hostAndPort(serverClient[1])
		if err != nil {
			return nil, err
		}
		if len(parts) > 2 {
			return nil, fmt.Errorf("%q%s", value, wrongFormat)
		}
		s.ClientHost = "0.0.0.0"
		if len(parts) == 2 {
			s.ClientHost = javaHost(parts[0])
		}
		port, err := portNumber(parts[len(parts)-1])
		if err != nil {
			return nil, fmt.Errorf("client address %q: %v", serverClient[1], err)
		}
		s.ClientPort = port
	}
	if !multiAddressEnabled && len(serverAddrs) > 1 {
		return nil, fmt.Errorf("multiple address feature is disabled, but multiple addresses were specified for sid %d "+
			"(Java 3.8 reads -Dzookeeper.multiAddress.enabled=true here, not the zoo.cfg key)", sid)
	}
	var role *LearnerType
	for _, addr := range serverAddrs {
		parts, err := hostAndPort(addr)
		if err != nil {
			return nil, err
		}
		if len(serverClient) > 2 || len(parts) < 3 || len(parts) > 4 {
			return nil, fmt.Errorf("%q%s", value, wrongFormat)
		}
		qa := QuorumAddr{Host: javaHost(parts[0])}
		if qa.QuorumPort, err = portNumber(parts[1]); err != nil {
			return nil, fmt.Errorf("quorum port of %q: %v", addr, err)
		}
		if qa.ElectionPort, err = portNumber(parts[2]); err != nil {
			return nil, fmt.Errorf("election port of %q: %v", addr, err)
		}
		if qa.QuorumPort == qa.ElectionPort {
			return nil, fmt.Errorf("quorum and election port must be different (both %d)", qa.QuorumPort)
		}
		if len(parts) == 4 {
			var t LearnerType
			switch strings.ToLower(javaTrim(parts[3])) {
			case "observer":
				t = Observer
			case "participant":
				t = Participant
			default:
				return nil, fmt.Errorf("unrecognised peer type %q (participant or observer)", parts[3])
			}
			if role != nil && *role != t {
				return nil, fmt.Errorf("multiple addresses should have the same role: %s vs %s", *role, t)
			}
			role = &t
		}
		s.Addrs = append(s.Addrs, qa)
	}
	if role != nil {
		s.Type = *role
	}
	return s, nil
}

// portNumber parses a port as Integer.parseInt and InetSocketAddress do.
func portNumber(s string) (int, error) {
	v, ok := parseJavaInt(s)
	if !ok {
		return 0, fmt.Errorf("%q is not a port number", s)
	}
	if v < 0 || v > 65535 {
		return 0, fmt.Errorf("port %d out of range", v)
	}
	return v, nil
}

// hostAndPort splits host:port[:...] as ZooKeeper's ConfigUtils does,
// with [IPv6] hosts.
func hostAndPort(s string) ([]string, error) {
	if !strings.HasPrefix(s, "[") {
		return javaSplit(s, ":"), nil
	}
	i := strings.IndexByte(s, ']')
	if i < 0 {
		return nil, fmt.Errorf("%q starts with '[' but has no matching ']:'", s)
	}
	if i+2 == len(s) {
		return nil, fmt.Errorf("%q doesn't have a port after colon", s)
	}
	if i+2 < len(s) {
		return append([]string{s[1:i]}, javaSplit(s[i+2:], ":")...), nil
	}
	return []string{strings.NewReplacer("[", "", "]", "").Replace(s)}, nil
}

// QuorumConfig writes the ensemble as Java's QuorumVerifier.toString does
// (QuorumMaj, or QuorumHierarchical with its group and weight lines): the
// text a server sends with every election notification, which Java's
// receiver parses as a dynamic configuration. Servers, groups and weights
// come in ascending id order; Java writes its hash maps' order, which is
// the same for ids below 16 and may differ above. Java's receiver parses
// the text and compares only its version, so the order does not matter
// to it.
func (e *Ensemble) QuorumConfig() string {
	var b strings.Builder
	for _, id := range e.IDs() {
		fmt.Fprintf(&b, "server.%d=%s\n", id, e.Servers[id].String())
	}
	if e.Hierarchical {
		gids := make([]int64, 0, len(e.Groups))
		for gid := range e.Groups {
			gids = append(gids, gid)
		}
		sort.Slice(gids, func(i, j int) bool { return gids[i] < gids[j] })
		for _, gid := range gids {
			members := append([]int64(nil), e.Groups[gid]...)
			sort.Slice(members, func(i, j int) bool { return members[i] < members[j] })
			parts := make([]string, len(members))
			for i, sid := range members {
				parts[i] = strconv.FormatInt(sid, 10)
			}
			fmt.Fprintf(&b, "group.%d=%s\n", gid, strings.Join(parts, ":"))
		}
		sids := make([]int64, 0, len(e.Weights))
		for sid := range e.Weights {
			sids = append(sids, sid)
		}
		sort.Slice(sids, func(i, j int) bool { return sids[i] < sids[j] })
		for _, sid := range sids {
			fmt.Fprintf(&b, "weight.%d=%d\n", sid, e.Weights[sid])
		}
	}
	fmt.Fprintf(&b, "version=%x", e.Version)
	return b.String()
}
