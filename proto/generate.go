package proto

//go:generate go run ../jute/cmd/jutegen -in zookeeper.jute -out zookeeper_gen.go -package proto
