package proto

// sessionPasswordSalt is mixed into the session id to seed the password
// generator, as ZooKeeper does.
const sessionPasswordSalt = 0xB3415C00

// SessionPassword returns the 16-byte password ZooKeeper derives from a
// session id: the first bytes of java.util.Random seeded with
// id ^ 0xB3415C00. Every server can recompute it, so a client can resume
// its session on any member of an ensemble, Java or gozk.
func SessionPassword(id int64) [PasswordLength]byte {
	const (
		multiplier = 0x5DEECE66D
		addend     = 0xB
		mask       = 1<<48 - 1
	)
	seed := (uint64(id^sessionPasswordSalt) ^ multiplier) & mask
	var out [PasswordLength]byte
	for i := 0; i < PasswordLength; i += 4 {
		seed = (seed*multiplier + addend) & mask
		v := uint32(seed >> 16) // java.util.Random.next(32)
		for j := 0; j < 4; j++ {
			out[i+j] = byte(v)
			v >>= 8
		}
	}
	return out
}
