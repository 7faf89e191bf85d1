package netio

import "encoding/binary"

// TelnetClose is the command name OnFourLetterWord receives for the telnet
// "interrupt process" sequence 0xFFF4FFFD, which Java registers next to
// the four-letter words. It has no command behind it: Java answers it with
// the not-whitelisted line unless the whitelist is "*", and then closes
// without output (return nil).
const TelnetClose = "telnet close"

// setTraceMask is the one word followed by an argument: 8 bytes holding a
// big-endian long.
const setTraceMask = "stmk"

// FourLetterWords lists the words recognised in the first four bytes of a
// connection (admin-and-config.md 1.1), TelnetClose aside.
var FourLetterWords = []string{
	"conf", "cons", "crst", "dirs", "dump", "envi", "gtmk", "ruok", "stmk",
	"srst", "srvr", "stat", "wchc", "wchp", "wchs", "mntr", "isro", "hash",
}

// fourLetterWordByCode maps the first four bytes of a connection, read as
// Java reads them (a big-endian int), to the command name.
var fourLetterWordByCode = func() map[uint32]string {
	m := make(map[uint32]string, len(FourLetterWords)+1)
	for _, w := range FourLetterWords {
		m[binary.BigEndian.Uint32([]byte(w))] = w
	}
	m[0xFFF4FFFD] = TelnetClose
	return m
}()

// fourLetterWordIn returns the command named by the first four bytes of a
// connection, if they are one.
func fourLetterWordIn(head []byte) (string, bool) {
	w, ok := fourLetterWordByCode[binary.BigEndian.Uint32(head)]
	return w, ok
}
