package javaprog

import "testing"

func TestParseCheck(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Result
		ok   bool
	}{
		{"CHECK create-sync PASS", Result{Name: "create-sync", Pass: true}, true},
		{"CHECK lock FAIL two holders: a b", Result{Name: "lock", Detail: "two holders: a b"}, true},
		{"CHECK x PASS took 3 ms", Result{Name: "x", Pass: true, Detail: "took 3 ms"}, true},
		{"CHECK x MAYBE", Result{}, false},
		{"CHECK", Result{}, false},
		{"SIGNAL restart", Result{}, false},
		{"log line", Result{}, false},
	} {
		got, ok := ParseCheck(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseCheck(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
