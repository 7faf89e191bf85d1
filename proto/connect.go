package proto

import "github.com/gozk/gozk/jute"

// PasswordLength is the length of every session password a server sends;
// the C client reads exactly this many bytes.
const PasswordLength = 16

// Handshake is a ConnectRequest with the readOnly byte that clients since
// 3.4 append after the record.
type Handshake struct {
	ConnectRequest
	// ReadOnly is the client's "I accept a read-only server" flag.
	ReadOnly bool
	// OldClient is true when the readOnly byte was missing (clients of 3.3
	// and earlier); the reply must then omit it too.
	OldClient bool
}

// Decode reads a handshake; bytes after the readOnly flag are ignored, as
// Java ignores them.
func (h *Handshake) Decode(r *jute.Reader) {
	h.ConnectRequest.Decode(r)
	if r.Err() != nil {
		return
	}
	if r.Remaining() == 0 {
		h.ReadOnly, h.OldClient = false, true
		return
	}
	h.ReadOnly, h.OldClient = r.ReadBool("ConnectRequest.readOnly"), false
}

// Encode writes the handshake as a client does.
func (h *Handshake) Encode(w *jute.Writer) {
	h.ConnectRequest.Encode(w)
	if !h.OldClient {
		w.WriteBool(h.ReadOnly)
	}
}

// HandshakeReply is a ConnectResponse with its trailing readOnly byte,
// which is left out for old clients.
type HandshakeReply struct {
	ConnectResponse
	ReadOnly  bool
	OldClient bool
}

// Encode writes the reply as Java does.
func (h *HandshakeReply) Encode(w *jute.Writer) {
	h.ConnectResponse.Encode(w)
	if !h.OldClient {
		w.WriteBool(h.ReadOnly)
	}
}

// Decode reads a reply; a missing readOnly byte marks an old server.
func (h *HandshakeReply) Decode(r *jute.Reader) {
	h.ConnectResponse.Decode(r)
	if r.Err() != nil {
		return
	}
	if r.Remaining() == 0 {
		h.ReadOnly, h.OldClient = false, true
		return
	}
	h.ReadOnly, h.OldClient = r.ReadBool("ConnectResponse.readOnly"), false
}
