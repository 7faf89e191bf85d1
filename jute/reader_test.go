package jute_test

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/gozk/gozk/jute"
)

// be builds big-endian input from 32-bit words and raw byte strings.
func be(parts ...any) []byte {
	var w jute.Writer
	for _, p := range parts {
		switch v := p.(type) {
		case int:
			w.WriteInt(int32(v))
		case int32:
			w.WriteInt(v)
		case int64:
			w.WriteLong(v)
		case string:
			w.WriteRaw([]byte(v))
		case []byte:
			w.WriteRaw(v)
		default:
			panic("be: unsupported type")
		}
	}
	return w.Bytes()
}

// decodeErr asserts that err is a *DecodeError for field wrapping want.
func decodeErr(t *testing.T, err error, field string, want error) *jute.DecodeError {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v for %s", want, field)
	}
	var de *jute.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %T %v is not a *jute.DecodeError", err, err)
	}
	if de.Field != field {
		t.Errorf("DecodeError.Field = %q, want %q (%v)", de.Field, field, err)
	}
	if !errors.Is(err, want) {
		t.Errorf("errors.Is(%v, %v) is false", err, want)
	}
	if de.Error() == "" {
		t.Error("empty error message")
	}
	return de
}

func TestReadPrimitives(t *testing.T) {
	in := []byte{
		0x7f,             // byte
		0x00, 0x01, 0x02, // bools: false, true, true (Java reads any non-zero as true)
		0x80, 0x00, 0x00, 0x00, // int MinInt32
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // long
		0x3f, 0xc0, 0x00, 0x00, // float 1.5
		0xc0, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18, // double -pi
	}
	r := jute.NewReader(in)
	if got := r.ReadUint8("b"); got != 0x7f {
		t.Errorf("byte = %#x", got)
	}
	if a, b, c := r.ReadBool("f"), r.ReadBool("t"), r.ReadBool("t2"); a || !b || !c {
		t.Errorf("bools = %v %v %v", a, b, c)
	}
	if got := r.ReadInt("i"); got != math.MinInt32 {
		t.Errorf("int = %d", got)
	}
	if got := r.ReadLong("l"); got != 0x0102030405060708 {
		t.Errorf("long = %#x", got)
	}
	if got := r.ReadFloat("f"); got != 1.5 {
		t.Errorf("float = %v", got)
	}
	if got := r.ReadDouble("d"); got != -math.Pi {
		t.Errorf("double = %v", got)
	}
	if r.Err() != nil || r.Remaining() != 0 || r.Offset() != len(in) {
		t.Fatalf("err %v remaining %d offset %d", r.Err(), r.Remaining(), r.Offset())
	}
}

func TestPrimitiveRoundTrip(t *testing.T) {
	bytesIn := []byte{0, 1, 0x7f, 0x80, 0xff}
	ints := []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 0x01020304}
	longs := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 0x0102030405060708}
	floats := []float32{0, float32(math.Copysign(0, -1)), 1.5, -3.25, math.MaxFloat32, math.SmallestNonzeroFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	doubles := []float64{0, math.Copysign(0, -1), 1.5, -math.Pi, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff8000000000123)}
	buffers := [][]byte{nil, {}, {0}, []byte("hello"), bytes.Repeat([]byte{0xab}, 1000)}
	strs := []string{"", "a", "/zookeeper/quota", "ü名", "😀", "a😀b😀", string(bytes.Repeat([]byte("x"), 1000))}

	var w jute.Writer
	for _, v := range bytesIn {
		_ = w.WriteByte(v)
	}
	w.WriteBool(true)
	w.WriteBool(false)
	for _, v := range ints {
		w.WriteInt(v)
	}
	for _, v := range longs {
		w.WriteLong(v)
	}
	for _, v := range floats {
		w.WriteFloat(v)
	}
	for _, v := range doubles {
		w.WriteDouble(v)
	}
	for _, v := range buffers {
		w.WriteBuffer(v)
	}
	for _, v := range strs {
		w.WriteString(v)
	}

	r := jute.NewReader(w.Bytes())
	for _, v := range bytesIn {
		if got := r.ReadUint8("byte"); got != v {
			t.Errorf("byte %#x read as %#x", v, got)
		}
	}
	if !r.ReadBool("t") || r.ReadBool("f") {
		t.Error("bool round trip")
	}
	for _, v := range ints {
		if got := r.ReadInt("int"); got != v {
			t.Errorf("int %d read as %d", v, got)
		}
	}
	for _, v := range longs {
		if got := r.ReadLong("long"); got != v {
			t.Errorf("long %d read as %d", v, got)
		}
	}
	for _, v := range floats {
		if got := r.ReadFloat("float"); math.Float32bits(got) != math.Float32bits(v) {
			t.Errorf("float %v read as %v", v, got)
		}
	}
	for _, v := range doubles {
		if got := r.ReadDouble("double"); math.Float64bits(got) != math.Float64bits(v) {
			t.Errorf("double %v read as %v", v, got)
		}
	}
	for _, v := range buffers {
		got := r.ReadBuffer("buffer")
		if (got == nil) != (v == nil) || !bytes.Equal(got, v) {
			t.Errorf("buffer %v (nil %v) read as %v (nil %v)", v, v == nil, got, got == nil)
		}
	}
	for _, v := range strs {
		if got := r.ReadString("string"); got != v {
			t.Errorf("string %q read as %q", v, got)
		}
	}
	r.ExpectEnd("end")
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}

func TestNullAndEmpty(t *testing.T) {
	// Buffers: nil is the null buffer (-1), an empty slice is length 0.
	if got := jute.Marshal(bufRec{nil}); !bytes.Equal(got, be(-1)) {
		t.Errorf("null buffer = %x", got)
	}
	if got := jute.Marshal(bufRec{[]byte{}}); !bytes.Equal(got, be(0)) {
		t.Errorf("empty buffer = %x", got)
	}
	r := jute.NewReader(be(-1, 0))
	if b := r.ReadBuffer("null"); b != nil {
		t.Errorf("null buffer read as %v", b)
	}
	if b := r.ReadBuffer("empty"); b == nil || len(b) != 0 {
		t.Errorf("empty buffer read as %v (nil %v)", b, b == nil)
	}
	// NoCopy variants keep the distinction too.
	r = jute.NewReader(be(-1, 0))
	if b := r.ReadBufferNoCopy("null"); b != nil {
		t.Errorf("null buffer (no copy) read as %v", b)
	}
	if b := r.ReadStringBytes("empty"); b == nil || len(b) != 0 {
		t.Errorf("empty string bytes read as %v (nil %v)", b, b == nil)
	}
	// Strings: null (-1) and empty (0) both read as "".
	r = jute.NewReader(be(-1, 0))
	if a, b := r.ReadString("null"), r.ReadString("empty"); a != "" || b != "" || r.Err() != nil {
		t.Errorf("null/empty strings: %q %q %v", a, b, r.Err())
	}
	// Vectors: count -1 is null, 0 is empty.
	var w jute.Writer
	w.WriteVectorHeader(0, true)
	w.WriteVectorHeader(0, false)
	w.WriteVectorHeader(3, false)
	if !bytes.Equal(w.Bytes(), be(-1, 0, 3)) {
		t.Fatalf("vector headers = %x", w.Bytes())
	}
	r = jute.NewReader(append(w.Bytes(), 1, 2, 3))
	if n, null := r.ReadVectorLen("null", 1); n != 0 || !null {
		t.Errorf("null vector: %d %v", n, null)
	}
	if n, null := r.ReadVectorLen("empty", 1); n != 0 || null {
		t.Errorf("empty vector: %d %v", n, null)
	}
	if n, null := r.ReadVectorLen("three", 1); n != 3 || null {
		t.Errorf("vector of 3: %d %v", n, null)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}

// bufRec is a one-field record for Marshal tests.
type bufRec struct{ b []byte }

func (x bufRec) Encode(w *jute.Writer) { w.WriteBuffer(x.b) }
func (x bufRec) Decode(r *jute.Reader) { _ = r.ReadBuffer("bufRec.b") }

// pair is a record with two ints.
type pair struct{ A, B int32 }

func (x *pair) Encode(w *jute.Writer) { w.WriteInt(x.A); w.WriteInt(x.B) }
func (x *pair) Decode(r *jute.Reader) { x.A = r.ReadInt("pair.a"); x.B = r.ReadInt("pair.b") }

func TestMarshalUnmarshal(t *testing.T) {
	b := jute.Marshal(&pair{1, -2})
	if !bytes.Equal(b, be(1, -2)) {
		t.Fatalf("Marshal = %x", b)
	}
	var p pair
	if err := jute.Unmarshal(append(b, 9), &p); err != nil || p != (pair{1, -2}) {
		t.Fatalf("Unmarshal with a trailing byte: %+v %v", p, err)
	}
	if err := jute.UnmarshalExact(b, &p, "pair"); err != nil {
		t.Fatal(err)
	}
	err := jute.UnmarshalExact(append(b, 9), &p, "pair")
	de := decodeErr(t, err, "pair", jute.ErrTrailingBytes)
	if de.Offset != 8 || de.Length != 1 {
		t.Errorf("trailing: offset %d length %d", de.Offset, de.Length)
	}
	decodeErr(t, jute.Unmarshal(b[:6], &p), "pair.b", jute.ErrTruncated)
}

func TestTooLarge(t *testing.T) {
	for _, read := range []struct {
		name string
		f    func(r *jute.Reader)
	}{
		{"buffer", func(r *jute.Reader) { r.ReadBuffer("Rec.buf") }},
		{"bufferNoCopy", func(r *jute.Reader) { r.ReadBufferNoCopy("Rec.buf") }},
		{"string", func(r *jute.Reader) { r.ReadString("Rec.buf") }},
		{"stringBytes", func(r *jute.Reader) { r.ReadStringBytes("Rec.buf") }},
	} {
		t.Run(read.name, func(t *testing.T) {
			// The length is within the input but above the limit.
			in := append(be(100), make([]byte, 100)...)
			r := jute.NewReader(in)
			r.SetLimit(99)
			read.f(r)
			de := decodeErr(t, r.Err(), "Rec.buf", jute.ErrTooLarge)
			if de.Length != 100 || de.Limit != 99 || de.Offset != 0 {
				t.Errorf("DecodeError %+v", de)
			}
			if r.Offset() != 0 {
				t.Errorf("offset after error = %d, want 0", r.Offset())
			}
			// Exactly the limit is fine.
			r.Reset(in)
			r.SetLimit(100)
			read.f(r)
			if r.Err() != nil {
				t.Fatalf("length == limit refused: %v", r.Err())
			}
			// A huge length with a tiny input allocates nothing of that size.
			huge := be(0x7fffffff, "abcd")
			allocs := testing.AllocsPerRun(50, func() {
				r := jute.NewReader(huge)
				read.f(r)
				if !errors.Is(r.Err(), jute.ErrTooLarge) {
					t.Fatalf("err = %v", r.Err())
				}
			})
			// The Reader and the DecodeError, nothing more.
			if allocs > 2 {
				t.Errorf("%v allocations for a refused length", allocs)
			}
			if n := bytesAllocated(func() {
				r := jute.NewReader(huge)
				read.f(r)
			}); n > 1<<16 {
				t.Errorf("%d bytes allocated for a refused length", n)
			}
		})
	}
	// The default limit is jute.maxbuffer plus the extra allowance.
	r := jute.NewReader(be(jute.DefaultFieldLimit+1, "x"))
	r.ReadBuffer("Rec.buf")
	decodeErr(t, r.Err(), "Rec.buf", jute.ErrTooLarge)
	if r.Limit() != jute.DefaultFieldLimit || jute.DefaultFieldLimit != 2*0xfffff {
		t.Errorf("default limit %d", r.Limit())
	}
	var zero jute.Reader
	if zero.Limit() != jute.DefaultFieldLimit {
		t.Errorf("zero Reader limit %d", zero.Limit())
	}
	zero.Reset(be(3, "abc"))
	if s := zero.ReadString("s"); s != "abc" || zero.Err() != nil {
		t.Errorf("zero Reader after Reset: %q %v", s, zero.Err())
	}
}

func TestFieldLimit(t *testing.T) {
	cases := []struct{ max, extra, want int }{
		{0xfffff, -1, 2 * 0xfffff},
		{0xfffff, 0, 0xfffff + 1024},
		{0xfffff, 1023, 0xfffff + 1024},
		{0xfffff, 4096, 0xfffff + 4096},
		{100, -1, 100 + 1024},
	}
	for _, c := range cases {
		if got := jute.FieldLimit(c.max, c.extra); got != c.want {
			t.Errorf("FieldLimit(%d, %d) = %d, want %d", c.max, c.extra, got, c.want)
		}
	}
}

// bytesAllocated returns the heap bytes f allocates, measured over several
// runs so that one-off runtime allocations do not dominate.
func bytesAllocated(f func()) uint64 {
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 10
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs
}

func TestNegativeLength(t *testing.T) {
	for _, n := range []int{-2, -100, math.MinInt32} {
		r := jute.NewReader(be(n, "abcdefgh"))
		r.ReadBuffer("Rec.data")
		de := decodeErr(t, r.Err(), "Rec.data", jute.ErrNegativeLength)
		if de.Length != int64(n) {
			t.Errorf("length %d reported as %d", n, de.Length)
		}
		r = jute.NewReader(be(n, "abcdefgh"))
		r.ReadString("Rec.path")
		decodeErr(t, r.Err(), "Rec.path", jute.ErrNegativeLength)
		r = jute.NewReader(be(n, "abcdefgh"))
		r.ReadVectorLen("Rec.acl", 4)
		decodeErr(t, r.Err(), "Rec.acl", jute.ErrNegativeLength)
	}
}

func TestTruncated(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		read func(r *jute.Reader)
	}{
		{"byte", nil, func(r *jute.Reader) { r.ReadUint8("F.f") }},
		{"bool", nil, func(r *jute.Reader) { r.ReadBool("F.f") }},
		{"int", []byte{1, 2, 3}, func(r *jute.Reader) { r.ReadInt("F.f") }},
		{"long", []byte{1, 2, 3, 4, 5, 6, 7}, func(r *jute.Reader) { r.ReadLong("F.f") }},
		{"float", []byte{1}, func(r *jute.Reader) { r.ReadFloat("F.f") }},
		{"double", []byte{1, 2, 3, 4}, func(r *jute.Reader) { r.ReadDouble("F.f") }},
		{"buffer length", []byte{0, 0}, func(r *jute.Reader) { r.ReadBuffer("F.f") }},
		{"buffer body", be(5, "abcd"), func(r *jute.Reader) { r.ReadBuffer("F.f") }},
		{"string body", be(5, "abcd"), func(r *jute.Reader) { r.ReadString("F.f") }},
		{"vector count", []byte{0, 0, 0}, func(r *jute.Reader) { r.ReadVectorLen("F.f", 1) }},
		{"vector body", be(3, "ab"), func(r *jute.Reader) { r.ReadVectorLen("F.f", 1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := jute.NewReader(c.in)
			c.read(r)
			de := decodeErr(t, r.Err(), "F.f", jute.ErrTruncated)
			if de.Offset != 0 || r.Offset() != 0 {
				t.Errorf("error offset %d, reader offset %d; want 0", de.Offset, r.Offset())
			}
		})
	}
}

func TestVectorCountCheckedBeforeAllocation(t *testing.T) {
	// 0x7fffffff elements announced by an 8-byte input.
	in := be(0x7fffffff, "abcd")
	for _, size := range []int{0, 1, 4, 68} {
		r := jute.NewReader(in)
		n, null := r.ReadVectorLen("Rec.children", size)
		if n != 0 || null {
			t.Errorf("minElemSize %d: got %d, %v", size, n, null)
		}
		decodeErr(t, r.Err(), "Rec.children", jute.ErrTruncated)
	}
	// A count the input can hold only at one byte per element is refused
	// for larger elements.
	r := jute.NewReader(be(4, "abcdefgh"))
	if n, _ := r.ReadVectorLen("Rec.v", 2); n != 4 || r.Err() != nil {
		t.Fatalf("4 x 2 bytes in 8: %d %v", n, r.Err())
	}
	r = jute.NewReader(be(4, "abcdefgh"))
	r.ReadVectorLen("Rec.v", 4)
	decodeErr(t, r.Err(), "Rec.v", jute.ErrTruncated)

	// A decoder that allocates by the count it is given allocates nothing
	// for a count the input cannot hold.
	allocs := testing.AllocsPerRun(50, func() {
		r := jute.NewReader(in)
		if n, null := r.ReadVectorLen("Rec.children", 4); !null && r.Err() == nil {
			_ = make([]string, n)
		}
	})
	if allocs > 2 {
		t.Errorf("%v allocations for a refused vector", allocs)
	}
}

func TestStickyError(t *testing.T) {
	in := append(be(-5), be(1, 2, 3, 4, "xyz")...)
	r := jute.NewReader(in)
	r.ReadBuffer("First.bad")
	first := r.Err()
	decodeErr(t, first, "First.bad", jute.ErrNegativeLength)
	off := r.Offset()
	if off != 0 {
		t.Fatalf("offset after the error = %d", off)
	}
	if v := r.ReadUint8("x"); v != 0 {
		t.Errorf("byte after error = %d", v)
	}
	if v := r.ReadBool("x"); v {
		t.Error("bool after error is true")
	}
	if v := r.ReadInt("x"); v != 0 {
		t.Errorf("int after error = %d", v)
	}
	if v := r.ReadLong("x"); v != 0 {
		t.Errorf("long after error = %d", v)
	}
	if v := r.ReadFloat("x"); v != 0 {
		t.Errorf("float after error = %v", v)
	}
	if v := r.ReadDouble("x"); v != 0 {
		t.Errorf("double after error = %v", v)
	}
	if v := r.ReadBuffer("x"); v != nil {
		t.Errorf("buffer after error = %v", v)
	}
	if v := r.ReadBufferNoCopy("x"); v != nil {
		t.Errorf("buffer after error = %v", v)
	}
	if v := r.ReadString("x"); v != "" {
		t.Errorf("string after error = %q", v)
	}
	if v := r.ReadStringBytes("x"); v != nil {
		t.Errorf("string bytes after error = %v", v)
	}
	if n, null := r.ReadVectorLen("x", 1); n != 0 || null {
		t.Errorf("vector after error = %d %v", n, null)
	}
	r.Fail("other", errors.New("later"))
	r.ExpectEnd("end")
	if r.Err() != first {
		t.Errorf("error replaced: %v", r.Err())
	}
	if r.Offset() != off || r.Remaining() != len(in) || !bytes.Equal(r.Rest(), in) {
		t.Errorf("reader advanced after the error: offset %d", r.Offset())
	}
	// Reset clears the error and keeps the limit.
	r.SetLimit(10)
	r.Reset(be(3, "abc"))
	if s := r.ReadString("s"); s != "abc" || r.Err() != nil || r.Limit() != 10 {
		t.Errorf("after Reset: %q %v limit %d", s, r.Err(), r.Limit())
	}
}

func TestFail(t *testing.T) {
	r := jute.NewReader(be(1, 2))
	r.ReadInt("a")
	cause := errors.New("bad op")
	r.Fail("Rec.op", cause)
	de := decodeErr(t, r.Err(), "Rec.op", cause)
	if de.Offset != 4 {
		t.Errorf("offset %d", de.Offset)
	}
}

func TestBufferCopyAndAlias(t *testing.T) {
	in := be(3, "abc", 3, "def")
	r := jute.NewReader(in)
	cp := r.ReadBuffer("copy")
	alias := r.ReadBufferNoCopy("alias")
	in[4], in[11] = 'X', 'Y'
	if string(cp) != "abc" {
		t.Errorf("ReadBuffer aliases its input: %q", cp)
	}
	if string(alias) != "Yef" {
		t.Errorf("ReadBufferNoCopy copied: %q", alias)
	}
	// The alias cannot grow into the bytes after it.
	if cap(alias) != 3 {
		t.Errorf("alias capacity %d", cap(alias))
	}
}

func TestDecodeErrorMessages(t *testing.T) {
	cases := []struct {
		err  *jute.DecodeError
		want string
	}{
		{&jute.DecodeError{Field: "A.b", Offset: 4, Length: 9, Limit: 8, Err: jute.ErrTooLarge}, "jute: A.b at offset 4: length 9 exceeds the limit 8"},
		{&jute.DecodeError{Field: "A.b", Offset: 0, Length: -3, Err: jute.ErrNegativeLength}, "jute: A.b at offset 0: invalid length -3"},
		{&jute.DecodeError{Field: "A.b", Offset: 2, Length: 4, Limit: 1, Err: jute.ErrTruncated}, "jute: A.b at offset 2: needs 4 bytes, 1 remain"},
		{&jute.DecodeError{Field: "A.b", Offset: 2, Err: jute.ErrTrailingBytes}, "jute: A.b at offset 2: unexpected bytes after the record"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("message %q, want %q", got, c.want)
		}
	}
}

func TestSetLimitNonPositiveMeansDefault(t *testing.T) {
	for _, n := range []int{0, -1, -100} {
		r := jute.NewReader(be(0))
		r.SetLimit(n)
		if r.Limit() != jute.DefaultFieldLimit {
			t.Errorf("SetLimit(%d): Limit() = %d", n, r.Limit())
		}
		if b := r.ReadBuffer("b"); b == nil || r.Err() != nil {
			t.Errorf("SetLimit(%d): empty buffer refused: %v", n, r.Err())
		}
	}
}
