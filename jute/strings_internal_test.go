package jute

import (
	"math/rand/v2"
	"testing"
)

// TestHasFourByteSequenceByWord checks the word-at-a-time test against a
// byte-by-byte one, with one byte of every value at every offset of
// strings of every length up to 40, among bytes that are each one of the
// values that come closest (0xEF, 0x7F, 0xFF, 0xF0, 0x00).
func TestHasFourByteSequenceByWord(t *testing.T) {
	byByte := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0xF0 {
				return true
			}
		}
		return false
	}
	fillers := []byte{0xEF, 0x7F, 0x00, 'a', 0xE0, 0xC0}
	for n := 0; n <= 40; n++ {
		for _, filler := range fillers {
			buf := make([]byte, n)
			for i := range buf {
				buf[i] = filler
			}
			if got := hasFourByteSequence(string(buf)); got {
				t.Fatalf("%d bytes of 0x%02x: reported a four-byte lead", n, filler)
			}
			for at := 0; at < n; at++ {
				for v := 0; v < 256; v++ {
					buf[at] = byte(v)
					s := string(buf)
					if got, want := hasFourByteSequence(s), byByte(s); got != want {
						t.Fatalf("% x: got %v, want %v", buf, got, want)
					}
				}
				buf[at] = filler
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		buf := make([]byte, rng.IntN(64))
		for i := range buf {
			buf[i] = byte(rng.Uint32())
			if rng.IntN(4) > 0 {
				buf[i] &= 0xEF // mostly bytes below 0xF0
			}
		}
		if got, want := hasFourByteSequence(string(buf)), byByte(string(buf)); got != want {
			t.Fatalf("% x: got %v, want %v", buf, got, want)
		}
	}
}
