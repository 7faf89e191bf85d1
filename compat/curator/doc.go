// Package curator is the compatibility suite for Apache Curator 5.4.0
// (Debian's curator-client, curator-framework and curator-recipes jars): a
// Java program, testdata/CuratorCheck.java, is compiled with javac into a
// temporary directory and run against Apache ZooKeeper 3.8.0
// (compat/javazk) and against gozk (compat/gozkproc). It reports one line
// per check; each becomes a subtest, java/<check> and gozk/<check>:
//
//	go test -tags interop ./compat/curator/
//	go test -tags interop ./compat/curator/ -run 'TestCurator/gozk/'
//	GOZK_CURATOR_CHECKS='mutex leader-latch' go test -tags interop ./compat/curator/
//
// Each recipe is driven by several clients (separate CuratorFramework
// instances, so separate sessions) contending at once, with checks of
// mutual exclusion, ordering and counts: InterProcessMutex,
// InterProcessReadWriteLock, InterProcessSemaphoreV2, LeaderLatch,
// LeaderSelector, DistributedBarrier, DistributedDoubleBarrier,
// DistributedQueue, DistributedPriorityQueue, SharedCount,
// DistributedAtomicLong, CuratorCache (one persistent recursive watch),
// PersistentNode, PersistentTtlNode, GroupMember and transactions. Sessions
// are expired from outside the classic way (a second handle on the
// session's id and password connects, then closes) in the middle of the
// lock, semaphore, leader, node and group tests: the lock or leadership
// moves to another client and the expired one recovers with a new session.
// mutex-no-herd checks that releasing an InterProcessMutex wakes exactly
// one of N waiters: each waiter holds one data watch, on its predecessor;
// the server's wchp shows one session watching each lock node but the
// last; and after a release the other waiters' watches are still in place
// (the server fired no watch but the next waiter's).
//
// Every check was first seen to pass against Java; one that fails against
// Java is a wrong check.
package curator
