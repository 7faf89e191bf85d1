// Command jutegen reads a .jute interface description and writes Go types
// with jute Encode and Decode methods.
//
// The input is the jute DDL: modules holding classes, each class a list of
// typed fields. Types are byte, boolean, int, long, float, double, ustring,
// buffer, vector<T> and other classes (a qualified name is resolved by its
// last component, since every class lands in one Go package).
//
// Usage: jutegen -in zookeeper.jute -out zookeeper_gen.go -package proto
package main

import (
	"flag"
	"fmt"
	"os"
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
	src, err := os.ReadFile(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jutegen:", err)
		os.Exit(1)
	}
	file, err := Parse(*in, string(src))
	if err != nil {
		fmt.Fprintln(os.Stderr, "jutegen:", err)
		os.Exit(1)
	}
	code, err := Generate(file, *pkg, *in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jutegen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "jutegen:", err)
		os.Exit(1)
	}
}
