package sasl

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/asnAppTag"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/msgtype"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// The Kerberos V5 GSS-API mechanism's tokens (RFC 1964 section 1.1 framing
// for the context tokens, RFC 4121 for the per-message ones), the pieces
// gokrb5 does not provide: building and reading the framed context tokens,
// an AP-REP for mutual authentication, and wrap tokens whose data may be
// rotated (RRC) as MIT's library sends them.

// maxGSSTokenSize bounds every token either side accepts. A ticket with a
// large authorization-data field (an Active Directory PAC with many groups)
// stays well under it; jute.maxbuffer bounds the packet around it anyway.
const maxGSSTokenSize = 1 << 20

// krb5OID is 1.2.840.113554.1.2.2 in DER, with its tag and length.
var krb5OID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

// Context token ids (RFC 1964 1.1.1-1.1.3, RFC 4121 4.1).
var (
	tokAPReq    = [2]byte{0x01, 0x00}
	tokAPRep    = [2]byte{0x02, 0x00}
	tokKRBError = [2]byte{0x03, 0x00}
)

// The GSS checksum's context flags (RFC 4121 4.1.1.1).
const (
	gssFlagDeleg    = 1
	gssFlagMutual   = 2
	gssFlagReplay   = 4
	gssFlagSequence = 8
	gssFlagConf     = 16
	gssFlagInteg    = 32
)

// Wrap token flags (RFC 4121 4.2.2).
const (
	wrapSentByAcceptor = 0x01
	wrapSealed         = 0x02
	wrapAcceptorSubkey = 0x04
)

// errToken marks a token that does not decode; it is wrapped in
// ErrAuthentication by the callers.
var errToken = errors.New("malformed GSS-API token")

// frameContextToken wraps a Kerberos message in the mechanism-independent
// token header: [APPLICATION 0] { krb5 OID, token id, message }.
func frameContextToken(id [2]byte, msg []byte) []byte {
	inner := make([]byte, 0, len(krb5OID)+2+len(msg))
	inner = append(inner, krb5OID...)
	inner = append(inner, id[:]...)
	inner = append(inner, msg...)
	return append(derHeader(0x60, len(inner)), inner...)
}

func derHeader(tag byte, n int) []byte {
	switch {
	case n < 0x80:
		return []byte{tag, byte(n)}
	case n < 0x100:
		return []byte{tag, 0x81, byte(n)}
	case n < 0x10000:
		return []byte{tag, 0x82, byte(n >> 8), byte(n)}
	default:
		return []byte{tag, 0x83, byte(n >> 16), byte(n >> 8), byte(n)}
	}
}

// parseContextToken undoes frameContextToken: it returns the token id and
// the Kerberos message, checking the lengths against the bytes there are.
func parseContextToken(b []byte) (id [2]byte, msg []byte, err error) {
	if len(b) > maxGSSTokenSize {
		return id, nil, fmt.Errorf("%w: %d bytes, more than the %d accepted", errToken, len(b), maxGSSTokenSize)
	}
	if len(b) < 2 || b[0] != 0x60 {
		return id, nil, fmt.Errorf("%w: not a Kerberos V5 context token (no [APPLICATION 0] header)", errToken)
	}
	n, hdr := int(b[1]), 2
	if b[1]&0x80 != 0 {
		octets := int(b[1] & 0x7f)
		if octets == 0 || octets > 3 || len(b) < 2+octets {
			return id, nil, fmt.Errorf("%w: bad length encoding", errToken)
		}
		n = 0
		for _, c := range b[2 : 2+octets] {
			n = n<<8 | int(c)
		}
		hdr += octets
	}
	if n != len(b)-hdr {
		return id, nil, fmt.Errorf("%w: header says %d bytes, token has %d", errToken, n, len(b)-hdr)
	}
	rest := b[hdr:]
	if !bytes.HasPrefix(rest, krb5OID) {
		return id, nil, fmt.Errorf("%w: mechanism is not Kerberos V5 (1.2.840.113554.1.2.2)", errToken)
	}
	rest = rest[len(krb5OID):]
	if len(rest) < 2 {
		return id, nil, fmt.Errorf("%w: no token id", errToken)
	}
	copy(id[:], rest[:2])
	return id, rest[2:], nil
}

// parseAPReqToken reads the initiator's first token.
func parseAPReqToken(b []byte) (messages.APReq, error) {
	var req messages.APReq
	id, msg, err := parseContextToken(b)
	if err != nil {
		return req, err
	}
	if id != tokAPReq {
		return req, fmt.Errorf("%w: token id %x where an AP-REQ (0100) was expected", errToken, id)
	}
	if err := req.Unmarshal(msg); err != nil {
		return req, fmt.Errorf("%w: AP-REQ: %v", errToken, err)
	}
	if len(req.Ticket.SName.NameString) == 0 {
		return req, fmt.Errorf("%w: AP-REQ ticket names no service", errToken)
	}
	return req, nil
}

// gssChecksumType is the authenticator checksum of RFC 4121 4.1.1: no
// channel bindings, and the context flags the initiator asks for.
const gssChecksumType = 0x8003

func makeGSSChecksum(flags uint32) types.Checksum {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint32(b[0:4], 16)
	binary.LittleEndian.PutUint32(b[20:24], flags)
	return types.Checksum{CksumType: gssChecksumType, Checksum: b}
}

// parseGSSChecksum returns the context flags of an authenticator checksum.
func parseGSSChecksum(c types.Checksum) (uint32, error) {
	if c.CksumType != gssChecksumType {
		return 0, fmt.Errorf("%w: authenticator checksum type %d, not the GSS-API one (32771)", errToken, c.CksumType)
	}
	if len(c.Checksum) < 24 || binary.LittleEndian.Uint32(c.Checksum[0:4]) != 16 {
		return 0, fmt.Errorf("%w: GSS-API authenticator checksum of %d bytes", errToken, len(c.Checksum))
	}
	return binary.LittleEndian.Uint32(c.Checksum[20:24]), nil
}

// apRep and encAPRepPart are the AP-REP (RFC 4120 5.5.2) as the acceptor
// builds it; gokrb5 only reads AP-REPs.
type apRep struct {
	PVNO    int                 `asn1:"explicit,tag:0"`
	MsgType int                 `asn1:"explicit,tag:1"`
	EncPart types.EncryptedData `asn1:"explicit,tag:2"`
}

type encAPRepPart struct {
	CTime          time.Time           `asn1:"generalized,explicit,tag:0"`
	Cusec          int                 `asn1:"explicit,tag:1"`
	Subkey         types.EncryptionKey `asn1:"optional,explicit,tag:2"`
	SequenceNumber int64               `asn1:"optional,explicit,tag:3"`
}

// makeAPRep answers an authenticator: it echoes its time, and gives the
// acceptor's initial sequence number, encrypted in the session key.
func makeAPRep(auth types.Authenticator, sessionKey types.EncryptionKey, seq int64) ([]byte, error) {
	part := encAPRepPart{CTime: auth.CTime, Cusec: auth.Cusec, SequenceNumber: seq}
	pb, err := asn1.Marshal(part)
	if err != nil {
		return nil, fmt.Errorf("marshal EncAPRepPart: %v", err)
	}
	pb = asn1tools.AddASNAppTag(pb, asnAppTag.EncAPRepPart)
	ed, err := crypto.GetEncryptedData(pb, sessionKey, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		return nil, fmt.Errorf("encrypt EncAPRepPart: %v", err)
	}
	rb, err := asn1.Marshal(apRep{PVNO: 5, MsgType: msgtype.KRB_AP_REP, EncPart: ed})
	if err != nil {
		return nil, fmt.Errorf("marshal AP-REP: %v", err)
	}
	return frameContextToken(tokAPRep, asn1tools.AddASNAppTag(rb, asnAppTag.APREP)), nil
}

// readAPRep checks the acceptor's answer against the authenticator sent
// and returns its decrypted part (acceptor subkey and sequence number).
func readAPRep(b []byte, auth types.Authenticator, sessionKey types.EncryptionKey) (messages.EncAPRepPart, error) {
	var part messages.EncAPRepPart
	id, msg, err := parseContextToken(b)
	if err != nil {
		return part, err
	}
	switch id {
	case tokAPRep:
	case tokKRBError:
		var ke messages.KRBError
		if err := ke.Unmarshal(msg); err != nil {
			return part, fmt.Errorf("%w: KRB-ERROR: %v", errToken, err)
		}
		return part, fmt.Errorf("the server refused the ticket: %s", ke.Error())
	default:
		return part, fmt.Errorf("%w: token id %x where an AP-REP (0200) was expected", errToken, id)
	}
	var rep messages.APRep
	if err := rep.Unmarshal(msg); err != nil {
		return part, fmt.Errorf("%w: AP-REP: %v", errToken, err)
	}
	plain, err := crypto.DecryptEncPart(rep.EncPart, sessionKey, keyusage.AP_REP_ENCPART)
	if err != nil {
		return part, fmt.Errorf("AP-REP does not decrypt with the session key (not from the service the ticket is for): %v", err)
	}
	if err := part.Unmarshal(plain); err != nil {
		return part, fmt.Errorf("%w: EncAPRepPart: %v", errToken, err)
	}
	if !part.CTime.Equal(auth.CTime.Truncate(time.Second)) || part.Cusec != auth.Cusec {
		return part, errors.New("AP-REP does not echo the authenticator's time: not an answer to this request")
	}
	return part, nil
}

// randomSeq is an initial sequence number, in the 30 bits MIT uses so that
// it stays positive in any implementation.
func randomSeq() int64 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return int64(binary.BigEndian.Uint32(b[:]) & 0x3fffffff)
}

// wrapToken builds an integrity-only RFC 4121 wrap token (the SASL GSSAPI
// security-layer negotiation never asks for confidentiality).
func wrapToken(payload []byte, key types.EncryptionKey, fromAcceptor, acceptorSubkey bool, seq uint64) ([]byte, error) {
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, err
	}
	var flags byte
	usage := uint32(keyusage.GSSAPI_INITIATOR_SEAL)
	if fromAcceptor {
		flags |= wrapSentByAcceptor
		usage = keyusage.GSSAPI_ACCEPTOR_SEAL
	}
	if acceptorSubkey {
		flags |= wrapAcceptorSubkey
	}
	wt := gssapi.WrapToken{
		Flags:     flags,
		EC:        uint16(et.GetHMACBitLength() / 8),
		SndSeqNum: seq,
		Payload:   append([]byte(nil), payload...),
	}
	if err := wt.SetCheckSum(key, usage); err != nil {
		return nil, err
	}
	return wt.Marshal()
}

// unwrapToken verifies an integrity-only wrap token from the peer and
// returns its payload. keyFor picks the key from the token's
// acceptor-subkey flag.
func unwrapToken(b []byte, fromAcceptor bool, keyFor func(acceptorSubkey bool) (types.EncryptionKey, error)) ([]byte, error) {
	if len(b) > maxGSSTokenSize {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d accepted", errToken, len(b), maxGSSTokenSize)
	}
	if len(b) < gssapi.HdrLen {
		return nil, fmt.Errorf("%w: wrap token of %d bytes, shorter than its header", errToken, len(b))
	}
	if b[0] != 0x05 || b[1] != 0x04 {
		return nil, fmt.Errorf("%w: token id %x where a wrap token (0504) was expected", errToken, b[:2])
	}
	flags := b[2]
	if flags&wrapSealed != 0 {
		return nil, fmt.Errorf("%w: the wrap token is encrypted, but no confidentiality layer was negotiated", errToken)
	}
	// MIT may rotate the data after the header right by RRC bytes;
	// undo it so that the checksum is at the end again.
	rrc := int(binary.BigEndian.Uint16(b[6:8]))
	tok := append([]byte(nil), b...)
	if body := tok[gssapi.HdrLen:]; len(body) > 0 && rrc%len(body) != 0 {
		r := rrc % len(body)
		rotated := append(append([]byte(nil), body[r:]...), body[:r]...)
		copy(body, rotated)
	}
	binary.BigEndian.PutUint16(tok[6:8], 0)
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(tok, fromAcceptor); err != nil {
		return nil, fmt.Errorf("%w: wrap token: %v", errToken, err)
	}
	key, err := keyFor(flags&wrapAcceptorSubkey != 0)
	if err != nil {
		return nil, err
	}
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, err
	}
	if int(wt.EC) != et.GetHMACBitLength()/8 {
		return nil, fmt.Errorf("%w: wrap token checksum of %d bytes, %d expected", errToken, wt.EC, et.GetHMACBitLength()/8)
	}
	usage := uint32(keyusage.GSSAPI_INITIATOR_SEAL)
	if fromAcceptor {
		usage = keyusage.GSSAPI_ACCEPTOR_SEAL
	}
	if ok, err := wt.Verify(key, usage); !ok {
		return nil, fmt.Errorf("wrap token checksum does not verify: %v", err)
	}
	return wt.Payload, nil
}

// The SASL GSSAPI security layers (RFC 4752 3.3). gozk, like ZooKeeper,
// only ever uses "no security layer" after authentication.
const (
	layerNone      = 1
	layerIntegrity = 2
	layerPrivacy   = 4
)

// maxBufferSize is the receive buffer size both sides advertise; JDK's
// default (javax.security.sasl.maxbuffer) is 65536.
const maxBufferSize = 65536

func layerMessage(layers byte, maxBuf int, authzID string) []byte {
	b := make([]byte, 4, 4+len(authzID))
	b[0] = layers
	b[1], b[2], b[3] = byte(maxBuf>>16), byte(maxBuf>>8), byte(maxBuf)
	return append(b, authzID...)
}

func parseLayerMessage(b []byte) (layers byte, maxBuf int, authzID string, err error) {
	if len(b) < 4 {
		return 0, 0, "", fmt.Errorf("%w: security layer message of %d bytes, 4 at least expected", errToken, len(b))
	}
	return b[0], int(b[1])<<16 | int(b[2])<<8 | int(b[3]), string(b[4:]), nil
}
