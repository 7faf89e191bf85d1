// Package ratelog keeps a kind of log line to one per interval: the
// lines a storm would repeat by the thousand (refused or failed
// connections, failing accepts) are written once, then once per interval
// with the number held back since the last one.
package ratelog
