package jute_test

import (
	"bytes"
	"testing"

	"github.com/gozk/gozk/jute"
)

func BenchmarkWriteStringASCII(b *testing.B) {
	var w jute.Writer
	s := "/service/members/node-0000000123"
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		w.WriteString(s)
	}
}

func BenchmarkWriteStringSupplementary(b *testing.B) {
	var w jute.Writer
	s := "/service/😀/node-0000000123"
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		w.WriteString(s)
	}
}

func BenchmarkReadStringASCII(b *testing.B) {
	wire := encodeString("/service/members/node-0000000123")
	var r jute.Reader
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(wire)
		_ = r.ReadString("s")
	}
}

func BenchmarkReadStringSupplementary(b *testing.B) {
	wire := encodeString("/service/😀/node-0000000123")
	var r jute.Reader
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(wire)
		_ = r.ReadString("s")
	}
}

func BenchmarkReadBuffer1KiB(b *testing.B) {
	var w jute.Writer
	w.WriteBuffer(bytes.Repeat([]byte{7}, 1024))
	wire := w.Bytes()
	var r jute.Reader
	b.SetBytes(int64(len(wire)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(wire)
		_ = r.ReadBuffer("b")
	}
}
