// Package kazoo is the compatibility suite for kazoo, the Python client
// (Debian's python3-kazoo 2.8.0 for /usr/bin/python3; nothing from pip).
// recipes.py checks the client calls under the recipes (create2 in each
// mode, ACLs, add_auth, the exception for each error), then drives
// kazoo's recipes with several clients contending, each a thread with its
// own KazooClient and session: Lock (mutual exclusion, queue order, each
// waiter watching only its predecessor so that a release wakes one
// waiter, timeouts), ReadLock/WriteLock, Semaphore,
// Election, Barrier, DoubleBarrier, Queue (priorities, several producers
// and consumers), LockingQueue, Party and ShallowParty, Counter,
// TreeCache, DataWatch/ChildrenWatch and raw watches, transactions,
// ephemerals going with a closed client, a lock holder whose session
// expires while a proxy keeps it away from the server, the ruok and isro
// words through KazooClient.command, and 70 clients at once against the
// default maxClientCnxns.
//
// It prints one JSON line per check: facts that must be the same on every
// server (counts, orders, event sequences, exception names) and errors
// (broken invariants). TestRecipes runs it against Apache ZooKeeper 3.8.0
// and against gozk; each check is a subtest java/<check> or gozk/<check>
// that fails on any error and compares the facts with the Java run's in
// testdata/recipes.golden (-update rewrites them from the java subtests).
//
//	go test -tags interop ./compat/kazoo/
//	go test -tags interop ./compat/kazoo/ -run 'TestRecipes/java' -update
//
// The test skips when /usr/bin/python3 (or $GOZK_KAZOO_PYTHON) cannot
// import kazoo, unless GOZK_REQUIRE_JAVA=1.
package kazoo
