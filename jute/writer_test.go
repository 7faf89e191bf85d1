package jute_test

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/gozk/gozk/jute"
)

func TestWriterEncodings(t *testing.T) {
	var w jute.Writer
	_ = w.WriteByte(0xfe)
	w.WriteBool(true)
	w.WriteBool(false)
	w.WriteInt(-2)
	w.WriteLong(0x0102030405060708)
	w.WriteFloat(1.5)
	w.WriteDouble(-math.Pi)
	w.WriteBuffer(nil)
	w.WriteBuffer([]byte{})
	w.WriteBuffer([]byte("ab"))
	w.WriteString("")
	w.WriteString("/a")
	want := []byte{
		0xfe, 0x01, 0x00,
		0xff, 0xff, 0xff, 0xfe,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x3f, 0xc0, 0x00, 0x00,
		0xc0, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18,
		0xff, 0xff, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x02, 'a', 'b',
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x02, '/', 'a',
	}
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("encoding\n got %x\nwant %x", w.Bytes(), want)
	}
	if w.Len() != len(want) {
		t.Errorf("Len = %d", w.Len())
	}
	var _ io.ByteWriter = &w
}

func TestWriterHelpers(t *testing.T) {
	w := jute.NewWriter([]byte("pre"))
	at := w.BeginLength()
	w.WriteInt(7)
	w.WriteRaw([]byte("xyz"))
	w.EndLength(at)
	if want := be("pre", 7, 7, "xyz"); !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("BeginLength/EndLength: %x, want %x", w.Bytes(), want)
	}
	w.Truncate(3)
	if string(w.Bytes()) != "pre" {
		t.Fatalf("Truncate: %q", w.Bytes())
	}
	w.Reset()
	if w.Len() != 0 {
		t.Fatal("Reset kept bytes")
	}
	w.WriteRaw([]byte("ab"))
	w.Grow(1000)
	if b := w.Bytes(); cap(b)-len(b) < 1000 || string(b) != "ab" {
		t.Fatalf("Grow(1000): len %d cap %d %q", len(b), cap(b), b)
	}
	b := w.Bytes()
	for range 250 {
		w.WriteInt(1)
	}
	if &w.Bytes()[0] != &b[:1][0] {
		t.Error("writes within Grow's room moved the buffer")
	}
	if w.Len() != 1002 {
		t.Errorf("Len = %d", w.Len())
	}
}

func TestWriterReuseAllocatesNothing(t *testing.T) {
	data := bytes.Repeat([]byte{1}, 1024)
	names := []string{"alpha", "beta", "γάμμα", "😀"}
	var w jute.Writer
	encode := func() {
		w.Reset()
		w.WriteInt(1)
		w.WriteLong(2)
		w.WriteBool(true)
		_ = w.WriteByte(3)
		w.WriteFloat(4)
		w.WriteDouble(5)
		w.WriteBuffer(data)
		w.WriteBuffer(nil)
		w.WriteVectorHeader(len(names), false)
		for _, n := range names {
			w.WriteString(n)
		}
		at := w.BeginLength()
		w.WriteString("/a/b/c")
		w.EndLength(at)
	}
	encode() // warm up: the first pass grows the buffer
	if allocs := testing.AllocsPerRun(100, encode); allocs != 0 {
		t.Fatalf("encoding into a reset Writer allocated %v times per run", allocs)
	}
}
