// Package jutegen parses the jute interface language (.jute files) and
// generates Go record types with Encode and Decode methods built on package
// jute. The command jute/cmd/jutegen is a thin wrapper around it; tests use
// it directly to check that generated files are current.
//
// The input is the jute DDL: modules holding classes, each class a list of
// typed fields. Types are byte, boolean, int, long, float, double, ustring,
// buffer, vector<T> and other classes (a qualified name is resolved by its
// last component, since every class lands in one Go package).
package jutegen
