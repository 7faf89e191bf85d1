package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// fourLetterWords are the words ZooKeeper 3.8 knows, for help and
// completion; any four letters are sent, as a server may know more.
var fourLetterWords = []string{
	"conf", "cons", "crst", "dirs", "dump", "envi", "gtmk", "hash", "isro", "mntr",
	"ruok", "srst", "srvr", "stat", "wchc", "wchp", "wchs",
}

func fourLetterCommand() *cli.Command {
	return &cli.Command{
		Name:      "4lw",
		Usage:     "send a four-letter word (ruok, srvr, mntr, conf, ...) to a server and print the answer",
		ArgsUsage: "WORD",
		Description: "Works with gozk and Apache ZooKeeper. The server answers only the words in its\n" +
			"4lw.commands.whitelist (only srvr by default).\n\n" +
			"Exit status: 0 when the server answered; 1 when it could not be reached, closed\n" +
			"without an answer (a word it does not know), refused the word (not in the\n" +
			"whitelist) or is not serving requests; 2 for a usage error.\n\n" +
			"Words: " + strings.Join(fourLetterWords, " "),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "server", Aliases: []string{"s"}, Value: "127.0.0.1:2181", Usage: "server address host:port"},
			&cli.DurationFlag{Name: "timeout", Aliases: []string{"t"}, Value: 5 * time.Second, Usage: "give up after this long (connect and answer)"},
		},
		BashComplete: func(c *cli.Context) {
			if c.NArg() == 0 {
				for _, w := range fourLetterWords {
					fmt.Fprintln(c.App.Writer, w)
				}
			}
		},
		Action: runFourLetterWord,
	}
}

func runFourLetterWord(c *cli.Context) error {
	// Flags may also follow the word (gozk 4lw ruok --server h:p).
	server, timeout := c.String("server"), c.Duration("timeout")
	fs := flag.NewFlagSet("4lw", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&server, "server", server, "")
	fs.StringVar(&server, "s", server, "")
	fs.DurationVar(&timeout, "timeout", timeout, "")
	fs.DurationVar(&timeout, "t", timeout, "")
	var words []string
	for rest := c.Args().Slice(); len(rest) > 0; {
		if err := fs.Parse(rest); err != nil {
			return cli.Exit(fmt.Sprintf("4lw: %v (see gozk 4lw --help)", err), exitUsage)
		}
		if fs.NArg() == 0 {
			break
		}
		words = append(words, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(words) != 1 {
		return cli.Exit("4lw: give exactly one word, e.g. gozk 4lw ruok", exitUsage)
	}
	word := words[0]
	if len(word) != 4 {
		return cli.Exit(fmt.Sprintf("4lw: %q is not four letters", word), exitUsage)
	}
	answer, err := fourLetterWord(server, word, timeout)
	if err != nil {
		return cli.Exit(fmt.Sprintf("4lw %s: %v", word, err), exitRuntime)
	}
	fmt.Fprint(c.App.Writer, answer)
	if answer != "" && !strings.HasSuffix(answer, "\n") {
		fmt.Fprintln(c.App.Writer)
	}
	switch {
	case answer == "":
		return cli.Exit(fmt.Sprintf("4lw %s: %s closed the connection without an answer (a word it does not know?)", word, server), exitRuntime)
	case strings.Contains(answer, "is not executed because it is not in the whitelist"):
		return cli.Exit(fmt.Sprintf("4lw %s: refused by %s (not in 4lw.commands.whitelist)", word, server), exitRuntime)
	case strings.HasPrefix(answer, "This ZooKeeper instance is not currently serving requests"):
		return cli.Exit(fmt.Sprintf("4lw %s: %s is not serving requests", word, server), exitRuntime)
	}
	return nil
}

// fourLetterWord sends the word and reads until the server closes.
func fourLetterWord(addr, word string, timeout time.Duration) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(conn, word); err != nil {
		return "", err
	}
	// No half-close: a server may drop a connection whose client has
	// shut down its side before the answer is written.
	b, err := io.ReadAll(conn)
	if err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
		if len(b) == 0 {
			return "", err
		}
		fmt.Fprintln(os.Stderr, "gozk: 4lw:", err)
	}
	return string(b), nil
}

// isReset reports a connection reset, which is how a server that closes
// without reading everything may end an answer.
func isReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}
