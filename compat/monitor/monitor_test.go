//go:build interop

package monitor

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkwire"
)

// pair is the two servers under the same load.
type pair struct {
	javaAddr, gozkAddr   string
	javaAdmin, gozkAdmin string // http://127.0.0.1:<port>/commands
}

func startPair(t *testing.T) pair {
	t.Helper()
	j := javazk.Start(t, javazk.Options{AdminServer: true})
	adminPort, err := zkwire.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	g := gozkproc.Start(t, gozkproc.Options{Config: []string{
		"admin.enableServer=true", "admin.serverAddress=127.0.0.1", fmt.Sprintf("admin.serverPort=%d", adminPort),
	}})
	load(t, j.Addr)
	load(t, g.Addr())
	return pair{
		javaAddr: j.Addr, gozkAddr: g.Addr(),
		javaAdmin: fmt.Sprintf("http://127.0.0.1:%d/commands", j.AdminPort),
		gozkAdmin: fmt.Sprintf("http://127.0.0.1:%d/commands", adminPort),
	}
}

var (
	versionRE = regexp.MustCompile(`3\.8\.0-[^,\n]*, built on \d{4}-\d\d-\d\d \d\d:\d\d UTC`)
	dateRE    = regexp.MustCompile(`\w{3} \w{3} \d\d \d\d:\d\d:\d\d \w+ \d{4}`)
	addrRE    = regexp.MustCompile(`/127\.0\.0\.1:\d+`)
	hexRE     = regexp.MustCompile(`0x[0-9a-f]+`)
	numRE     = regexp.MustCompile(`-?\d+(\.\d+)?(E-?\d+)?`)
)

// skeleton replaces every value of a 4lw answer by its kind: version,
// date, address, hex number, integer, decimal.
func skeleton(s string) string {
	s = versionRE.ReplaceAllString(s, "VERSION")
	s = dateRE.ReplaceAllString(s, "DATE")
	s = addrRE.ReplaceAllString(s, "/ADDR")
	s = hexRE.ReplaceAllString(s, "0xH")
	return numRE.ReplaceAllStringFunc(s, func(n string) string {
		if strings.ContainsAny(n, ".E") {
			return "D"
		}
		return "N"
	})
}

// keysOf returns the keys of key=value (or key<sep>value) lines.
func keysOf(s, sep string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		k, _, _ := strings.Cut(line, sep)
		out = append(out, k)
	}
	return out
}

// blocks splits a wchc/dump-like text into blocks that each start with a
// line not beginning with a tab, sorted, so that the order of sessions
// (a hash map of objects in Java) does not matter.
func sortedBlocks(s string) string {
	var blocks []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "\t") && len(blocks) > 0 {
			blocks[len(blocks)-1] += "\n" + line
			continue
		}
		blocks = append(blocks, line)
	}
	sort.Strings(blocks)
	return strings.Join(blocks, "\n")
}

// sortedLines sorts lines and drops repeats: the connection lists of
// stat and cons may still hold the previous four-letter word's
// connection while it closes (Java prints it, with or without its
// address, depending on timing).
func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(slices.Compact(lines), "\n")
}

func ask(t *testing.T, addr, word string) string {
	t.Helper()
	out, err := zkwire.FourLetterWord(addr, word, 10*time.Second)
	if err != nil {
		t.Fatalf("%s on %s: %v", word, addr, err)
	}
	return out
}

func TestFourLetterWordsMatchJava(t *testing.T) {
	p := startPair(t)
	compare := func(word string, norm func(string) string) {
		t.Helper()
		j, g := norm(ask(t, p.javaAddr, word)), norm(ask(t, p.gozkAddr, word))
		if j != g {
			t.Errorf("%s differs\n--- Java 3.8.0 ---\n%s\n--- gozk ---\n%s", word, j, g)
		}
	}
	exact := func(s string) string { return s }
	compare("ruok", exact)
	compare("isro", exact)
	compare("wchs", exact)
	compare("conf", func(s string) string { return strings.Join(keysOf(s, "="), "\n") })
	compare("envi", func(s string) string { return strings.Join(keysOf(s, "="), "\n") })
	compare("dirs", func(s string) string { return strings.Join(keysOf(s, ":"), "\n") })
	compare("srvr", skeleton)
	compare("stat", func(s string) string {
		head, rest, _ := strings.Cut(s, "Clients:\n")
		clients, tail, _ := strings.Cut(rest, "\n\n")
		// Java may still list a connection being closed (the previous
		// four-letter word's) with a null address: a race, not a format.
		var kept []string
		for _, line := range strings.Split(clients, "\n") {
			if !strings.HasPrefix(line, " null[") {
				kept = append(kept, line)
			}
		}
		return skeleton(head) + sortedLines(skeleton(strings.Join(kept, "\n"))) + skeleton(tail)
	})
	compare("cons", func(s string) string {
		var kept []string
		for _, line := range strings.Split(s, "\n") {
			if !strings.HasPrefix(line, " null[") {
				kept = append(kept, line)
			}
		}
		return sortedLines(skeleton(strings.Join(kept, "\n")))
	})
	compare("wchc", func(s string) string { return sortedBlocks(skeleton(s)) })
	compare("wchp", skeleton)
	compare("hash", skeleton)
	compare("dump", func(s string) string {
		// Which tick bucket a session or connection falls in is timing
		// (and Java keeps empty buckets): compare the bucket lines' form
		// and the sorted entries of each section.
		sk := skeleton(s)
		var kept []string
		for _, line := range strings.Split(sk, "\n") {
			if strings.HasSuffix(line, " expire at DATE:") || strings.HasPrefix(line, "Session Sets ") || strings.HasPrefix(line, "Connections Sets ") {
				continue
			}
			kept = append(kept, line)
		}
		sk = strings.Join(kept, "\n")
		sess, rest, _ := strings.Cut(sk, "ephemeral nodes dump:\n")
		eph, conns, _ := strings.Cut(rest, "Connections dump:\n")
		return sortedLines(sess) + "\nephemeral nodes dump:\n" + sortedBlocks(eph) + "\nConnections dump:\n" + sortedLines(conns)
	})
	compare("mntr", func(s string) string {
		var out []string
		for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			k, v, _ := strings.Cut(line, "\t")
			if k == "zk_version" {
				v = "VERSION"
			}
			out = append(out, k+"\t"+skeleton(v))
		}
		return strings.Join(out, "\n")
	})
	compare("gtmk", exact)
	// stmk carries the new mask as a big-endian long.
	compare("stmk\x00\x00\x00\x00\x00\x00\x04\xd2", exact)
	compare("gtmk", exact)
	compare("crst", exact)
	compare("srst", exact)
}

// TestPacketCountsMatchJava checks the packet counters that srvr reports
// after a run of four-letter words: Java counts each word received and
// each buffer of its output sent (two for mntr's 16 KB), and a word's own
// output only after it is printed. The servers' start-up probes differ,
// so the counters are compared as steps from the first srvr, and from
// zero after srst (whose own answer is counted after the reset).
func TestPacketCountsMatchJava(t *testing.T) {
	j := javazk.Start(t, javazk.Options{})
	g := gozkproc.Start(t, gozkproc.Options{})
	counters := regexp.MustCompile(`(?m)^Received: (\d+)\nSent: (\d+)$`)
	steps := func(addr string) []string {
		var out []string
		var base [2]int
		for i, w := range []string{"srvr", "srvr", "ruok", "srvr", "mntr", "srvr", "conf", "cons", "srvr", "stat", "srst", "srvr"} {
			answer := ask(t, addr, w)
			if w == "srst" {
				base = [2]int{} // from here on, counted from zero
			}
			if w != "srvr" && w != "stat" {
				continue
			}
			m := counters.FindStringSubmatch(answer)
			if m == nil {
				t.Fatalf("%s on %s: no counters in %q", w, addr, answer)
			}
			recv, _ := strconv.Atoi(m[1])
			sent, _ := strconv.Atoi(m[2])
			if i == 0 {
				base = [2]int{recv, sent}
			}
			out = append(out, fmt.Sprintf("after %d words: received +%d, sent +%d", i, recv-base[0], sent-base[1]))
		}
		return out
	}
	if js, gs := steps(j.Addr), steps(g.Addr()); !slices.Equal(js, gs) {
		t.Errorf("packet counters differ\n--- Java 3.8.0 ---\n%s\n--- gozk ---\n%s", strings.Join(js, "\n"), strings.Join(gs, "\n"))
	}
}

func TestNotWhitelisted(t *testing.T) {
	// Verified against 3.8.0 with 4lw.commands.whitelist=srvr, stat.
	g := gozkproc.Start(t, gozkproc.Options{Config: []string{"4lw.commands.whitelist=srvr, stat, ruok"}})
	for _, w := range []string{"mntr", "isro", "cons"} {
		if got := ask(t, g.Addr(), w); got != w+" is not executed because it is not in the whitelist.\n" {
			t.Errorf("%s: %q", w, got)
		}
	}
	if got := ask(t, g.Addr(), "stat"); !strings.HasPrefix(got, "Zookeeper version: 3.8.0-") {
		t.Errorf("stat: %q", got)
	}
}

// jsonShape describes a JSON value by its keys (in order) and types,
// without its values; objects keyed by session ids, times or paths are
// described by the shape of their first value.
func jsonShape(dec *json.Decoder, dynamicKeys bool) string {
	tok, err := dec.Token()
	if err != nil {
		return "ERR(" + err.Error() + ")"
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			var parts []string
			first := ""
			for dec.More() {
				kt, _ := dec.Token()
				key := kt.(string)
				dyn := key == "expiry_time_to_session_ids" || key == "session_id_to_ephemeral_paths" ||
					key == "session_id_to_watched_paths" || key == "path_to_session_ids"
				sh := jsonShape(dec, dyn)
				if key == "server_stats" {
					// Jackson orders a getter-only bean's properties as
					// reflection lists the getters, which varies between
					// runs of the same JVM: compare ServerStats's keys as
					// a set.
					sh = unordered(sh)
				}
				if dynamicKeys {
					// The fullest value stands for all (Java keeps
					// empty expiry buckets).
					if len(sh) > len(first) {
						first = sh
					}
					continue
				}
				parts = append(parts, strconv.Quote(key)+":"+sh)
			}
			dec.Token()
			if dynamicKeys {
				return "map<" + first + ">"
			}
			return "{" + strings.Join(parts, ",") + "}"
		case '[':
			first := ""
			for dec.More() {
				sh := jsonShape(dec, false)
				if first == "" {
					first = sh
				}
			}
			dec.Token()
			return "[" + first + "]"
		}
	case json.Number:
		if strings.ContainsAny(v.String(), ".eE") {
			return "double"
		}
		return "long"
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "?"
}

// unordered sorts the top-level members of an object shape.
func unordered(shape string) string {
	if !strings.HasPrefix(shape, "{") {
		return shape
	}
	var parts []string
	depth, start := 0, 1
	for i := 1; i < len(shape)-1; i++ {
		switch shape[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, shape[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, shape[start:len(shape)-1])
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

func getJSON(t *testing.T, url string) (string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Status + " " + resp.Header.Get("Content-Type"), string(b)
}

func TestAdminServerMatchesJava(t *testing.T) {
	p := startPair(t)
	_, jl := getJSON(t, p.javaAdmin)
	_, gl := getJSON(t, p.gozkAdmin)
	if jl != gl {
		t.Errorf("command list differs\n--- Java ---\n%s\n--- gozk ---\n%s", jl, gl)
	}
	names := []string{
		"configuration", "conf", "config", "connection_stat_reset", "crst", "connections", "cons", "dirs", "dump",
		"environment", "env", "envi", "get_trace_mask", "gtmk", "hash", "initial_configuration", "icfg",
		"is_read_only", "isro", "last_snapshot", "lsnp", "leader", "lead", "monitor", "mntr",
		"observer_connection_stat_reset", "orst", "observers", "obsr", "ruok", "server_stats", "srvr",
		"set_trace_mask", "set_trace_mask?traceMask=306", "stmk", "stat_reset", "srst", "stats", "stat",
		"system_properties", "sysp", "voting_view", "watch_summary", "wchs", "watches", "wchc",
		"watches_by_path", "wchp", "zabstate", "no_such_command",
		// 3.9 commands that need authentication do not exist in 3.8.0.
		"snapshot", "restore", "shed_connections",
	}
	for _, name := range names {
		js, jb := getJSON(t, p.javaAdmin+"/"+name)
		gs, gb := getJSON(t, p.gozkAdmin+"/"+name)
		if js != gs {
			t.Errorf("%s: Java answers %s, gozk %s", name, js, gs)
		}
		shape := func(body string) string {
			dec := json.NewDecoder(strings.NewReader(body))
			dec.UseNumber()
			s := jsonShape(dec, false)
			switch {
			case name == "system_properties" || name == "sysp":
				// Java's are the JVM's; only the form is comparable.
				return regexp.MustCompile(`("[^"]*":string,?)+`).ReplaceAllString(s, "PROPERTIES,")
			}
			return s
		}
		if j, g := shape(jb), shape(gb); j != g {
			t.Errorf("%s: JSON shapes differ\n--- Java ---\n%s\n--- gozk ---\n%s", name, j, g)
		}
		// Layout: Jackson's pretty printer on both sides. Not for values
		// that differ by nature (properties, environment, metrics, the
		// config text), dump (its buckets depend on timing) and the
		// ServerStats bean (its key order varies between JVM runs).
		noLayout := map[string]bool{"system_properties": true, "sysp": true, "monitor": true, "mntr": true,
			"environment": true, "env": true, "envi": true, "initial_configuration": true, "icfg": true, "dump": true,
			"server_stats": true, "srvr": true, "stats": true, "stat": true}
		keyLines := regexp.MustCompile(`(?m)^( *)"[^"]*" : .*$`)
		if !noLayout[name] && keyLines.ReplaceAllString(jb, "$1K") != keyLines.ReplaceAllString(gb, "$1K") {
			t.Errorf("%s: layout differs\n--- Java ---\n%s\n--- gozk ---\n%s", name, jb, gb)
		}
	}
}

func TestPrometheusScrape(t *testing.T) {
	port, err := zkwire.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	g := gozkproc.Start(t, gozkproc.Options{Config: []string{
		"metricsProvider.className=org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider",
		"metricsProvider.httpHost=127.0.0.1", fmt.Sprintf("metricsProvider.httpPort=%d", port),
	}})
	load(t, g.Addr())
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	types := map[string]string{}
	samples := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			types[f[2]] = f[3]
		} else if line != "" && !strings.HasPrefix(line, "#") {
			name, _, _ := strings.Cut(line, " ")
			samples[name] = true
		}
	}
	want, err := os.ReadFile("testdata/prometheus-3.8.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(want), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		name, typ := f[0], f[1]
		if types[name] != typ {
			t.Errorf("%s: type %q, Java's is %s", name, types[name], typ)
			continue
		}
		if typ == "summary" {
			for _, q := range strings.Split(f[2], ",") {
				if !samples[name+`{quantile="`+q+`"}`] {
					t.Errorf("%s lacks the %s quantile", name, q)
				}
			}
			if !samples[name+"_count"] || !samples[name+"_sum"] {
				t.Errorf("%s lacks _count or _sum", name)
			}
		} else if !samples[name] {
			t.Errorf("no sample of %s", name)
		}
	}
	if n < 130 {
		t.Fatalf("only %d names in the list", n)
	}
	for _, name := range []string{"znode_count", "watch_count", "outstanding_requests", "num_alive_connections"} {
		if !regexp.MustCompile(`(?m)^`+name+` [1-9]`).Match(body) && name != "outstanding_requests" {
			t.Errorf("%s is zero after the load", name)
		}
	}
	if !regexp.MustCompile(`(?m)^updatelatency_count [1-9]`).Match(body) || !regexp.MustCompile(`(?m)^readlatency_count [1-9]`).Match(body) {
		t.Error("latency summaries are empty after the load")
	}
}
