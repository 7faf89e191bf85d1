package netio

import "errors"

// Handler is the server side of the client port. Its methods run on the
// event loop of the connection, which serves many connections: none of
// them may block, and none may call Server.Close.
type Handler interface {
	// OnOpen is called when a connection has been accepted and passed the
	// per-IP and global limits. Associate state with it through
	// Conn.SetContext.
	OnOpen(c *Conn)
	// OnFrame is called on the event loop with one complete frame payload
	// (without the 4-byte length), in arrival order. The slice is only
	// valid during the call: copy what you keep. It must not block; the
	// server decodes and hands off to its own goroutines. It may call any
	// method of c, including PauseReading, which takes effect before the
	// next frame.
	OnFrame(c *Conn, payload []byte)
	// OnFourLetterWord is called instead of OnFrame when the first four
	// bytes of a connection are a four-letter word (see FourLetterWords
	// and TelnetClose; for stmk, Conn.FourLetterWordArgument holds the
	// mask that followed it, if it came with the word). The returned text is written as is and the
	// connection closed after the write, as Java does; nil closes it
	// without output. netio owns the returned slice afterwards. Called on
	// the event loop: return quickly.
	OnFourLetterWord(c *Conn, cmd string) []byte
	// OnClose is called once when the connection is gone, whatever the
	// reason: err is nil when the server closed it with Close or
	// CloseAfterFlush, one of this package's errors when netio closed it
	// (ErrFrameLength, ErrSlowConsumer, ...), otherwise what the socket
	// reported (the peer's EOF satisfies errors.Is(err, io.EOF)).
	OnClose(c *Conn, err error)
}

// HandshakeObserver is implemented by a Handler that wants to know of
// TLS connections that never reach OnOpen: a failed handshake, or one
// refused over Config.MaxTLSHandshakes. It is called on the connection's
// goroutine after the event was logged.
type HandshakeObserver interface {
	OnHandshakeFailure()
	OnHandshakeRefused()
}

// Reasons netio gives OnClose (and Send) for closing a connection itself.
var (
	// ErrClosed is returned by Send and SendFunc once the connection is
	// closed or closing.
	ErrClosed = errors.New("netio: connection closed")
	// ErrFrameLength: a frame length was negative or above MaxFrame.
	ErrFrameLength = errors.New("netio: frame length out of range")
	// ErrSlowConsumer: the client left more than four times
	// MaxPendingOutput of replies unread.
	ErrSlowConsumer = errors.New("netio: client does not read its replies")
	// ErrPausedInputOverflow: the client sent more than MaxPausedInput
	// while reading from it was paused.
	ErrPausedInputOverflow = errors.New("netio: too much input while reading was paused")
	// ErrFlushTimeout: CloseAfterFlush gave up on a client that stopped
	// reading before the last bytes were written.
	ErrFlushTimeout = errors.New("netio: client stopped reading before the final flush")
	// ErrSessionlessTimeout: no first frame or four-letter word arrived
	// within Config.SessionlessTimeout.
	ErrSessionlessTimeout = errors.New("netio: no session request within the sessionless timeout")
	// ErrServerClosed: Server.Close closed the connection.
	ErrServerClosed = errors.New("netio: server closed")
)
