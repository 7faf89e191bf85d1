package acl

import (
	"encoding/hex"
	"slices"
	"testing"
)

// Expected outputs are Java 17's new String(bytes, UTF_8), re-encoded.
func TestJavaDecodeUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"41", "41"},
		{"e28241", "efbfbd41"},           // truncated 3-byte: one U+FFFD
		{"eda080", "efbfbd"},             // encoded surrogate: one U+FFFD
		{"eda0bdedb880", "efbfbdefbfbd"}, // CESU-8 pair: two
		{"edbfbf", "efbfbd"},
		{"c080", "efbfbdefbfbd"}, // overlong lead: one per byte
		{"f09080", "efbfbd"},     // truncated 4-byte at the end
		{"f0908041", "efbfbd41"},
		{"f4908080", "efbfbdefbfbdefbfbdefbfbd"}, // beyond U+10FFFF
		{"ff", "efbfbd"},
		{"80", "efbfbd"},
		{"e08080", "efbfbdefbfbdefbfbd"},
		{"f0808080", "efbfbdefbfbdefbfbdefbfbd"},
		{"e2", "efbfbd"},
		{"c2", "efbfbd"},
		{"c241", "efbfbd41"},
		{"e0a0", "efbfbd"},
		{"e0a041", "efbfbd41"},
		{"f09f9880", "f09f9880"}, // well-formed stays
		{"efbfbf", "efbfbf"},
		{"f8888080", "efbfbdefbfbdefbfbdefbfbd"},
		{"fc84808080", "efbfbdefbfbdefbfbdefbfbdefbfbd"},
		{"f0", "efbfbd"},
		{"f090", "efbfbd"},
		{"f09041", "efbfbd41"},
		{"e180", "efbfbd"},
		{"e18041", "efbfbd41"},
	}
	for _, tt := range tests {
		in, _ := hex.DecodeString(tt.in)
		got := hex.EncodeToString([]byte(javaDecodeUTF8(in)))
		if got != tt.want {
			t.Errorf("javaDecodeUTF8(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// Expected values from Java's String.hashCode and Id.hashCode.
func TestJavaIDHash(t *testing.T) {
	if got := javaIDHash(IPIdentity("127.0.0.1")); got != 1506146057 {
		t.Errorf("javaIDHash(ip:127.0.0.1) = %d, want 1506146057", got)
	}
}

func TestJavaStringHash(t *testing.T) {
	tests := []struct {
		in   string
		want int32
	}{
		{"", 0},
		{"hello", 99162322},
		{"digest", -1331913276},
		{"127.0.0.1", 1505998205},
		{"😀", 1772899}, // the surrogate pair D83D DE00
	}
	for _, tt := range tests {
		if got := javaStringHash(tt.in); got != tt.want {
			t.Errorf("javaStringHash(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestJavaParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"255", 255, true},
		{"010", 10, true},
		{"+8", 8, true},
		{"-0", 0, true},
		{"-5", -5, true},
		{"١٠", 10, true}, // Arabic-Indic digits
		{"０９", 9, true},  // fullwidth digits
		{"2147483647", 2147483647, true},
		{"-2147483648", -2147483648, true},
		{"2147483648", 0, false},
		{"", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{" 8", 0, false},
		{"8 ", 0, false},
		{"1a", 0, false},
		{"++1", 0, false},
		{"𝟎", 0, false}, // outside the BMP: two surrogates in Java
		{"\xff", 0, false},
	}
	for _, tt := range tests {
		got, ok := javaParseInt(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("javaParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSplitTrimmed(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"sasl", []string{"sasl"}},
		{"sasl, digest", []string{"sasl", "digest"}},
		{"a,", []string{"a"}},
		{"a,,", []string{"a"}},
		{"a, ", []string{"a", ""}},
		{",a", []string{"", "a"}},
		{",", []string{}},
		{" \ta\t ", []string{"a"}},
	}
	for _, tt := range tests {
		if got := SplitTrimmed(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitTrimmed(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
