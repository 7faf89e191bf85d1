package sasl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func props(m map[string]string) Properties {
	return func(n string) (string, bool) { v, ok := m[n]; return v, ok }
}

func TestParseJAASSections(t *testing.T) {
	src := `/* ZooKeeper server */
Server {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_super="adminsecret"
    user_bob="bob\"s \\ secret"  // a comment
    debug=true;
};
Client {
  org.apache.zookeeper.server.auth.DigestLoginModule Optional username=bob password="${pw}x";
  com.sun.security.auth.module.Krb5LoginModule SUFFICIENT keyTab="${user.home}${/}zk.keytab" principal="zookeeper/localhost@EXAMPLE.COM";
};
"Quoted Name" { a.B required; };
Empty { };
`
	cfg, err := ParseJAAS("jaas.conf", []byte(src), props(map[string]string{"pw": "p", "user.home": "/home/zk"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Sections(), ","); got != "Server,Client,Quoted Name,Empty" {
		t.Fatalf("sections %q", got)
	}
	s, ok := cfg.Section("Server")
	if !ok || len(s.Entries) != 1 || s.Line != 2 {
		t.Fatalf("Server %+v %v", s, ok)
	}
	e := s.Entries[0]
	if e.LoginModule != DigestLoginModule || e.Flag != "required" || e.Line != 3 {
		t.Fatalf("entry %+v", e)
	}
	users := s.DigestUsers()
	if users["super"] != "adminsecret" || users["bob"] != `bob"s \ secret` || len(users) != 2 {
		t.Fatalf("users %q", users)
	}
	if e.Options["debug"] != "true" {
		t.Fatalf("debug %q", e.Options["debug"])
	}
	c, _ := cfg.Section("Client")
	if c.Entries[0].Flag != "optional" || c.Entries[0].Options["password"] != "px" || c.Entries[0].Options["username"] != "bob" {
		t.Fatalf("client %+v", c.Entries[0])
	}
	if kt := c.Entries[1].Options["keyTab"]; kt != "/home/zk/zk.keytab" {
		t.Fatalf("keyTab %q", kt)
	}
	if _, ok := cfg.Section("Quoted Name"); !ok {
		t.Fatal("quoted section name")
	}
	if _, ok := cfg.Section("Empty"); ok {
		t.Fatal("a section without entries must read as absent, as Java's null")
	}
	if _, ok := cfg.Section("server"); ok {
		t.Fatal("section names are case sensitive")
	}
}

func TestParseJAASQuirks(t *testing.T) {
	cases := []struct{ name, src, key, want string }{
		{"lone slash comments the line", "S { m required a=x / b=y\n ; };", "b", ""},
		{"crlf", "S {\r\n m required\r\n a=\"v\"\r\n;\r\n};", "a", "v"},
		{"octal escape", `S { m required a="\101\7" ; };`, "a", "A\a"},
		{"line end closes a string", "S { m required a=\"open\n ; };", "a", "open"},
		{"word chars", "S { m required a=$x_y*z.1-2 ; };", "a", "$x_y*z.1-2"},
		{"unicode word", "S { m required a=héllo ; };", "a", "héllo"},
		{"empty quoted", `S { m required a="" ; };`, "a", ""},
		{"no expansion for ${{", `S { m required a="${{x}}y" ; };`, "a", "${{x}}y"},
		{"unclosed ${ kept", `S { m required a="${x" ; };`, "a", "${x"},
		{"later key wins", `S { m required a=x a=y ; };`, "a", "y"},
	}
	for _, c := range cases {
		cfg, err := ParseJAAS("j", []byte(c.src), nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		s, ok := cfg.Section("S")
		if !ok {
			t.Errorf("%s: no section", c.name)
			continue
		}
		if got := s.Entries[0].Options[c.key]; got != c.want {
			t.Errorf("%s: %s=%q, want %q", c.name, c.key, got, c.want)
		}
	}
}

func TestParseJAASErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"number value", "S {\n m required\n port=2181; };", `j:3: expected a value for the option "port", found the number 2181`},
		{"single quotes", "S { m required a='x'; };", `j:1: expected a value for the option "a", found the single-quoted 'x'`},
		{"bad flag", "S {\n m mandatory; };", `j:2: invalid control flag "mandatory" for m`},
		{"missing flag", "S { m ; };", "j:1: expected a control flag (required, requisite, sufficient or optional), found \";\""},
		{"missing semicolon after brace", "S { m required; }\nT { m required; };", `j:2: expected ';' after the '}' closing section "S", found "T"`},
		{"eof in section", "S {\n m required a=b", "j:2: expected an option key or ';', found end of file"},
		{"unknown property", "S {\n\n m required a=\"${nope}\"; };", "j:3: option a: unable to expand property nope"},
		{"empty expansion", "S { m required a=\"${e}\"; };", `j:1: option a: system property in "${e}" expanded to an empty value`},
		{"duplicate", "S { m required; };\nS { m required; };", `j:2: section "S" is already defined at line 1`},
		{"missing brace", "S m required; };", `j:1: expected '{' after the section name "S", found "m"`},
		{"hash comment", "# x\nS { m required; };", `j:1: expected a section name, found "#"`},
		{"missing equals", "S { m required a b; };", `j:1: expected '=' after the option key "a", found "b"`},
		{"lines in block comment", "/*\n\n*/ S { m required a=1; };", `j:3: expected a value for the option "a", found the number 1`},
		{"unclosed comment in section", "S { m required /* a=b;\n };", "j:1: expected an option key or ';', found end of file (the /* comment opened at line 1 is never closed)"},
		{"bad utf8", "S { m required a=\"\xff\"; };", "j: JAAS configuration is not valid UTF-8"},
	}
	for _, c := range cases {
		_, err := ParseJAAS("j", []byte(c.src), props(map[string]string{"e": ""}))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}

func TestParseJAASNoExpansion(t *testing.T) {
	cfg, err := ParseJAAS("j", []byte(`S { m required a="${nope}"; };`), props(map[string]string{"policy.expandProperties": "false"}))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := cfg.Section("S")
	if s.Entries[0].Options["a"] != "${nope}" {
		t.Fatal(s.Entries[0].Options)
	}
}

func TestLoadJAAS(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jaas.conf")
	if err := os.WriteFile(path, []byte("Server { m required user_a=\"b\"; };"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := props(map[string]string{"d": dir})
	for _, setting := range []string{path, "=" + path, "file:" + path, "${d}/jaas.conf"} {
		cfg, got, err := LoadJAAS(setting, p)
		if err != nil || got != path {
			t.Fatalf("%s: %v %q", setting, err, got)
		}
		if _, ok := cfg.Section("Server"); !ok {
			t.Fatalf("%s: no Server", setting)
		}
	}
	if _, _, err := LoadJAAS(filepath.Join(dir, "missing.conf"), p); err == nil || !strings.Contains(err.Error(), "missing.conf: no such file or directory") {
		t.Fatalf("missing file: %v", err)
	}
	if _, _, err := LoadJAAS("${nope}/x", p); err == nil || !strings.Contains(err.Error(), "unable to expand property nope") {
		t.Fatalf("bad expansion: %v", err)
	}
}

func TestExpandProperties(t *testing.T) {
	p := props(map[string]string{"a": "1", "b": "2"})
	for in, want := range map[string]string{
		"x":          "x",
		"${a}":       "1",
		"${a}${b}c":  "12c",
		"p${a}q${/}": "p1q/",
		"${{a}}${a}": "${{a}}1",
		"${{a}}":     "${{a}}",
		"${a":        "${a",
		"$a":         "$a",
	} {
		got, err := ExpandProperties(in, p)
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
}

func FuzzParseJAAS(f *testing.F) {
	f.Add([]byte("Server { a.B required user_x=\"y\" k=v; };"))
	f.Add([]byte("/* c */ S { m optional a=\"\\101${x}\" // c\n; };"))
	f.Add([]byte("S{m required a=-1.5 '"))
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, err := ParseJAAS("f", src, props(map[string]string{"x": "X"}))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for _, n := range cfg.Sections() {
			if s, ok := cfg.Section(n); ok {
				for _, e := range s.Entries {
					if e.LoginModule == "" && e.Line == 0 {
						t.Fatal("entry without position")
					}
				}
			}
		}
	})
}
