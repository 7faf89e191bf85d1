// Command jutegen reads a .jute interface description and writes Go types
// with jute Encode and Decode methods. The work is done by package
// jute/internal/jutegen.
//
// Usage: jutegen -in zookeeper.jute -out zookeeper_gen.go -package proto
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gozk/gozk/jute/internal/jutegen"
)

func main() {
	in := flag.String("in", "", "the .jute file to read")
	out := flag.String("out", "", "the Go file to write")
	pkg := flag.String("package", "", "the Go package name of the output")
	flag.Parse()
	if *in == "" || *out == "" || *pkg == "" {
		fmt.Fprintln(os.Stderr, "usage: jutegen -in FILE.jute -out FILE.go -package NAME")
		os.Exit(2)
	}
	code, err := generate(*in, *pkg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jutegen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "jutegen:", err)
		os.Exit(1)
	}
}

// generate returns the Go source jutegen writes for the .jute file in.
func generate(in, pkg string) ([]byte, error) {
	src, err := os.ReadFile(in)
	if err != nil {
		return nil, err
	}
	file, err := jutegen.Parse(in, string(src))
	if err != nil {
		return nil, err
	}
	return jutegen.Generate(file, pkg, in)
}
