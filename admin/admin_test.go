package admin

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/prometheus/common/expfmt"

	"github.com/gozk/gozk/server"
)

// startWithCommands starts a server on loopback with every four-letter
// word allowed and commands made from opts wired in; tweak, when set,
// changes the server's configuration first.
func startWithCommands(t *testing.T, opts Options, tweak func(*server.Config)) (*server.Server, *Commands) {
	t.Helper()
	cmds := New(opts)
	cfg := server.Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.ForceSync = false
	cfg.FourLetterWhitelist = "*"
	cfg.FourLetterWords = cmds.FourLetterWord
	if tweak != nil {
		tweak(&cfg)
	}
	s, err := server.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cmds.Attach(s)
	return s, cmds
}

// startLoaded starts a server with the commands wired in and puts some
// load on it: sessions, ephemerals, data, exist and child watches, more
// than 128 writes (so hash has an entry).
func startLoaded(t *testing.T) (*server.Server, *Commands) {
	t.Helper()
	s, cmds := startWithCommands(t, Options{Version: FullVersion("test", time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)), InitialConfig: "tickTime=2000\n",
		SystemProperties: map[string]string{"zookeeper.4lw.commands.whitelist": "*"}}, nil)
	c, _, err := zk.Connect([]string{s.Addr().String()}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	acl := zk.WorldACL(zk.PermAll)
	for _, p := range []string{"/app-1", "/app-2"} {
		if _, err := c.Create(p, []byte("x"), 0, acl); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Create("/app-1/eph", nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 130; i++ {
		if _, err := c.Set("/app-2", []byte("y"), -1); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, _, err := c.GetW("/app-1"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.ExistsW("/missing"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.ChildrenW("/app-2"); err != nil {
		t.Fatal(err)
	}
	return s, cmds
}

func ask(t *testing.T, s *server.Server, word string) string {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	conn.Write([]byte(word))
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFourLetterWords(t *testing.T) {
	s, _ := startLoaded(t)
	version := `3\.8\.0-gozk-test, built on 2026-01-02 03:04 UTC`
	want := map[string]string{
		"ruok": `^imok$`,
		"isro": `^rw$`,
		"srvr": `^Zookeeper version: ` + version + `\nLatency min/avg/max: \d+/\d+\.\d+/\d+\nReceived: \d+\nSent: \d+\nConnections: 2\nOutstanding: 0\nZxid: 0x[0-9a-f]+\nMode: standalone\nNode count: 8\n$`,
		"stat": `^Zookeeper version: ` + version + `\nClients:\n( /127\.0\.0\.1:\d+\[1\]\(queued=0,recved=\d+,sent=\d+\)\n)( /127\.0\.0\.1:\d+\[0\]\(queued=0,recved=1,sent=0\)\n)\nLatency`,
		"cons": `^ /127\.0\.0\.1:\d+\[1\]\(queued=0,recved=\d+,sent=\d+,sid=0x[0-9a-f]+,lop=GETC,est=\d+,to=10000,lcxid=0x[0-9a-f]+,lzxid=0x[0-9a-f]+,lresp=\d+,llat=\d+,minlat=\d+,avglat=\d+,maxlat=\d+\)\n /127\.0\.0\.1:\d+\[0\]\(queued=0,recved=1,sent=0\)\n\n$`,
		"conf": `^clientPort=\d+\nsecureClientPort=-1\ndataDir=/.*/version-2\ndataDirSize=\d+\ndataLogDir=/.*/version-2\ndataLogSize=\d+\ntickTime=2000\nmaxClientCnxns=60\nminSessionTimeout=4000\nmaxSessionTimeout=40000\nclientPortListenBacklog=-1\nserverId=0\n$`,
		"wchs": `^1 connections watching 2 paths\nTotal watches:2\n$`,
		"wchc": `^0x[0-9a-f]+\n\t(/app-1|/missing)\n\t(/app-1|/missing)\n\n$`,
		"wchp": `^(/app-1|/missing)\n\t0x[0-9a-f]+\n(/app-1|/missing)\n\t0x[0-9a-f]+\n\n$`,
		"dirs": `^datadir_size: \d+\nlogdir_size: \d+\n$`,
		"hash": `^80: -?\d+\n$`,
		"envi": `^Environment:\nzookeeper.version=` + version + `\nhost.name=.*\njava.version=.*\njava.vendor=.*\njava.home=.*\njava.class.path=.*\njava.library.path=.*\njava.io.tmpdir=.*\njava.compiler=.*\nos.name=.*\nos.arch=.*\nos.version=.*\nuser.name=.*\nuser.home=.*\nuser.dir=.*\nos.memory.free=\d+MB\nos.memory.max=\d+MB\nos.memory.total=\d+MB\n$`,
		"dump": `^SessionTracker dump:\nSession Sets \(1\)/\(1\):\n1 expire at \w{3} \w{3} \d\d \d\d:\d\d:\d\d \w+ \d{4}:\n\t0x[0-9a-f]+\nephemeral nodes dump:\nSessions with Ephemerals \(1\):\n0x[0-9a-f]+:\n\t/app-1/eph\nConnections dump:\nConnections Sets \(\d\)/\(2\):\n`,
		"crst": `^Connection stats reset\.\n$`,
		"srst": `^Server stats reset\.\n$`,
	}
	for _, w := range []string{"ruok", "isro", "srvr", "stat", "cons", "conf", "wchs", "wchc", "wchp", "dirs", "hash", "envi", "dump", "crst", "srst"} {
		got := ask(t, s, w)
		if !regexp.MustCompile(want[w]).MatchString(got) {
			t.Errorf("%s answered\n%s\nwhich does not match %s", w, got, want[w])
		}
	}
	// After srst and crst: latencies and counters are back to zero, but
	// for srvr received and srst's answer sent after the reset (as in
	// Java 3.8.0). The session's pings (every 3.3 s) may land in between
	// on a slow run: each adds one received and one sent, and a last
	// operation PING with no cxid.
	got := ask(t, s, "srvr")
	m := regexp.MustCompile(`Latency min/avg/max: (\S+)\nReceived: (\d+)\nSent: (\d+)\n`).FindStringSubmatch(got)
	if m == nil || m[2] != m[3] || m[2] == "0" || (m[2] == "1" && m[1] != "0/0.0/0") {
		t.Errorf("srvr after srst:\n%s", got)
	}
	got = ask(t, s, "cons")
	if !(strings.Contains(got, ",lop=NA,") || strings.Contains(got, ",lop=PING,")) || strings.Contains(got, "lcxid") {
		t.Errorf("cons after crst:\n%s", got)
	}
}

func TestMonitorKeys(t *testing.T) {
	s, _ := startLoaded(t)
	out := ask(t, s, "mntr")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2+len(catalogKeys()) {
		t.Fatalf("mntr has %d lines, want at least %d", len(lines), 2+len(catalogKeys()))
	}
	// Then the per-namespace summaries: /app-1 and /app-2 were read and
	// written.
	var sets []string
	for _, line := range lines[2+len(catalogKeys()):] {
		k, _, _ := strings.Cut(line, "\t")
		sets = append(sets, k)
	}
	for _, want := range []string{"zk_cnt_app-1_read_per_namespace", "zk_sum_app-2_write_per_namespace"} {
		if !slices.Contains(sets, want) {
			t.Errorf("mntr lacks %s after the metrics (has %v)", want, sets)
		}
	}
	for i, key := range append([]string{"version", "server_state"}, catalogKeys()...) {
		k, v, ok := strings.Cut(lines[i], "\t")
		if !ok || k != "zk_"+key {
			t.Fatalf("line %d is %q, want key zk_%s", i, lines[i], key)
		}
		if strings.HasPrefix(key, "avg_") && !strings.Contains(v, ".") {
			t.Errorf("%s = %q is not a double", k, v)
		}
	}
	for _, want := range []string{"zk_znode_count\t8\n", "zk_ephemerals_count\t1\n", "zk_global_sessions\t1\n", "zk_watch_count\t3\n", "zk_cnt_updatelatency\t134\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("mntr lacks %q", want)
		}
	}
}

// catalogKeys expands the catalog into mntr's keys for a standalone
// server.
func catalogKeys() []string { return catalogKeysOf(server.RoleStandalone) }

// catalogKeysOf expands the catalog into mntr's metric keys for a role.
func catalogKeysOf(role server.Role) []string {
	var out []string
	for _, e := range catalog {
		if !hasMetric(e.name, role) {
			continue
		}
		switch e.kind {
		case kindGauge, kindCounter:
			out = append(out, e.name)
		case kindBasicSummary:
			for _, k := range basicKeys {
				out = append(out, k+"_"+e.name)
			}
		case kindAdvancedSummary:
			for _, k := range advancedKeys {
				out = append(out, k+"_"+e.name)
			}
		}
	}
	return out
}

func TestAdminServer(t *testing.T) {
	_, cmds := startLoaded(t)
	h, err := cmds.StartAdminServer(AdminServerConfig{Address: "127.0.0.1", Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	base := "http://" + h.Addr().String() + "/commands"
	get := func(path string) (string, http.Header) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %s", path, resp.Status)
		}
		return string(b), resp.Header
	}
	list, _ := get("")
	if n := strings.Count(list, "<br/>\n"); n != 26 || !strings.HasPrefix(list, `<a href="/commands/configuration">configuration</a>`+"\n<br/>\n") {
		t.Errorf("command list (%d entries):\n%s", n, list)
	}
	out, hdr := get("/wchs")
	if want := "{\n  \"num_connections\" : 1,\n  \"num_paths\" : 2,\n  \"num_total_watches\" : 2,\n  \"command\" : \"watch_summary\",\n  \"error\" : null\n}"; out != want || hdr.Get("Content-Type") != "application/json" {
		t.Errorf("wchs = %q (%s), want %q", out, hdr.Get("Content-Type"), want)
	}
	if out, _ := get("/nosuch"); out != "{\n  \"command\" : \"nosuch\",\n  \"error\" : \"Unknown command: nosuch\"\n}" {
		t.Errorf("unknown command: %q", out)
	}
	if out, _ := get("/leader"); out != "{\n  \"error\" : \"server is not initialized\",\n  \"command\" : \"leader\"\n}" {
		t.Errorf("leader: %q", out)
	}
	if out, _ := get("/connections"); !strings.Contains(out, `"connections" : [ {`) || !strings.Contains(out, `"last_operation" : "GETC"`) || !strings.HasSuffix(out, "  \"secure_connections\" : [ ],\n  \"command\" : \"connections\",\n  \"error\" : null\n}") {
		t.Errorf("connections:\n%s", out)
	}
	if out, _ := get("/monitor"); !strings.HasPrefix(out, "{\n  \"version\" : \"3.8.0-gozk-test, built on 2026-01-02 03:04 UTC\",\n  \"server_state\" : \"standalone\",\n  \"ephemerals_count\" : 1,") {
		t.Errorf("monitor:\n%.300s", out)
	}
}

func TestPrometheusNames(t *testing.T) {
	_, cmds := startLoaded(t)
	h, err := cmds.StartMetrics(MetricsConfig{Host: "127.0.0.1", Port: 0, ExportRuntime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	resp, err := http.Get("http://" + h.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var parser expfmt.TextParser
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range catalog {
		f := families[e.name]
		if !hasMetric(e.name, server.RoleStandalone) {
			if f != nil {
				t.Errorf("a standalone server exports %s, which only ensemble members have", e.name)
			}
			continue
		}
		if f == nil {
			t.Errorf("no metric %s", e.name)
			continue
		}
		want := map[metricKind]string{kindGauge: "GAUGE", kindCounter: "COUNTER", kindBasicSummary: "SUMMARY", kindAdvancedSummary: "SUMMARY"}[e.kind]
		if f.GetType().String() != want {
			t.Errorf("%s is a %s, want %s", e.name, f.GetType(), want)
		}
		if e.kind == kindAdvancedSummary && len(f.Metric[0].GetSummary().Quantile) != 3 {
			t.Errorf("%s has quantiles %v", e.name, f.Metric[0].GetSummary().Quantile)
		}
	}
	if f := families["gozk_snapshot_failures"]; f == nil || f.GetType().String() != "COUNTER" {
		t.Errorf("gozk_snapshot_failures = %v", f)
	}
	if f := families["updatelatency"]; f == nil || f.Metric[0].GetSummary().GetSampleCount() < 130 {
		t.Errorf("updatelatency = %v", f)
	}
	for _, name := range []string{"process_open_fds", "process_cpu_seconds_total", "go_goroutines", "jvm_memory_bytes_used", "jvm_memory_bytes_max", "jvm_threads_current", "jvm_gc_collection_seconds", "jvm_info"} {
		if families[name] == nil {
			t.Errorf("runtime metric %s missing", name)
		}
	}
	for _, m := range families["jvm_memory_bytes_max"].GetMetric() {
		if m.GetLabel()[0].GetValue() == "heap" && m.GetGauge().GetValue() <= 0 {
			t.Errorf("heap max %v", m.GetGauge().GetValue())
		}
	}
}

func TestAdminServerCommandURL(t *testing.T) {
	_, cmds := startLoaded(t)
	h, err := cmds.StartAdminServer(AdminServerConfig{Address: "127.0.0.1", CommandURL: "/zk/cmds", IdleTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	resp, err := http.Get("http://" + h.Addr().String() + "/zk/cmds/ruok")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "{\n  \"command\" : \"ruok\",\n  \"error\" : null\n}" {
		t.Errorf("ruok under a custom commandURL: %q", b)
	}
	for path, status := range map[string]int{"/commands/ruok": 404, "/zk/cmdsx": 404} {
		resp, err := http.Get("http://" + h.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, status)
		}
	}
	resp, err = http.Post("http://"+h.Addr().String()+"/zk/cmds/ruok", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}
