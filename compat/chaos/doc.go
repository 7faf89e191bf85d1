// Package chaos runs ZooKeeper ensembles of gozk and Apache ZooKeeper
// 3.8.0 processes under faults and checks what clients saw.
//
// Workloads (workload.go) drive real clients and judge their histories;
// the harness starts ensembles, injects faults and runs the matrix of
// layouts and nemeses that `make chaos` reports.
package chaos
