package jute

// Record is a value with a jute encoding. Generated types implement it.
type Record interface {
	// Encode appends the record to w.
	Encode(w *Writer)
	// Decode reads the record from r, reusing the receiver's vector
	// storage; errors are left in r (see Reader.Err).
	Decode(r *Reader)
}

// Marshal returns the encoding of rec in a new slice.
func Marshal(rec Record) []byte {
	var w Writer
	rec.Encode(&w)
	return w.Bytes()
}

// Unmarshal decodes rec from the start of b with the default limits.
// Bytes after the record are ignored, as Java ignores them; use
// UnmarshalExact to reject them.
func Unmarshal(b []byte, rec Record) error {
	r := Reader{buf: b, limit: DefaultFieldLimit}
	rec.Decode(&r)
	return r.err
}

// UnmarshalExact decodes rec from b and requires that nothing follows it.
func UnmarshalExact(b []byte, rec Record, field string) error {
	r := Reader{buf: b, limit: DefaultFieldLimit}
	rec.Decode(&r)
	r.ExpectEnd(field)
	return r.err
}
