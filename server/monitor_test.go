package server

import (
	"strings"
	"testing"
)

func TestJavaWriterBuffers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"imok", 1},
		{strings.Repeat("a", 8192), 1},
		{strings.Repeat("a", 8193), 2},
		{strings.Repeat("é", 8192), 1},          // two bytes, one unit each
		{strings.Repeat("\U0001F600", 4096), 1}, // a surrogate pair each
		{strings.Repeat("\U0001F600", 4097), 2},
	} {
		if got := javaWriterBuffers([]byte(tc.text)); got != tc.want {
			t.Errorf("%d bytes: %d buffers, want %d", len(tc.text), got, tc.want)
		}
	}
}
