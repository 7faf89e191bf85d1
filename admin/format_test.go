package admin

import (
	"strings"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0.0", 1: "1.0", 0.5: "0.5", 1.2346: "1.2346", 188: "188.0", 3.0e-4: "3.0E-4",
		1e7: "1.0E7", 12345678.9: "1.23456789E7", 0.001: "0.001", -2.5: "-2.5",
	} {
		if got := javaDouble(f); got != want {
			t.Errorf("javaDouble(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestJacksonLayout(t *testing.T) {
	var b strings.Builder
	writeJSON(&b, obj{
		{"a", int64(1)}, {"b", 0.0}, {"c", []any{}}, {"d", obj{}}, {"e", []any{int64(1), int64(2)}},
		{"f", []any{obj{{"x", "<&>"}}, obj{{"y", nil}}}}, {"g", obj{{"h", true}}},
	}, 0)
	want := `{
  "a" : 1,
  "b" : 0.0,
  "c" : [ ],
  "d" : { },
  "e" : [ 1, 2 ],
  "f" : [ {
    "x" : "<&>"
  }, {
    "y" : null
  } ],
  "g" : {
    "h" : true
  }
}`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestJavaHashOrder checks the emulated HashMap order against orders
// 3.8.0 printed (wchp, wchc, dump).
func TestJavaHashOrder(t *testing.T) {
	got := javaStringOrder([]string{"/app-1", "/app-1/data", "/app-1/missing", "/app-2"})
	if want := "/app-1/data /app-1/missing /app-2 /app-1"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
	got = javaStringOrder([]string{"/app-2/eph-b", "/app-2/eph-b2"})
	if want := "/app-2/eph-b2 /app-2/eph-b"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}
