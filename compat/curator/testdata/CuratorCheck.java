// CuratorCheck drives the recipes of Apache Curator 5.4.0 against one
// server, with several clients (separate CuratorFramework instances, each
// with its own session) contending in each recipe, and reports each check
// on standard output (see Checks). Arguments: the server's "host:port",
// then optionally the names of the checks to run.
//
// Every expectation here was first seen to hold against Apache ZooKeeper
// 3.8.0; a check that fails against Java is a wrong check.

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.recipes.nodes.PersistentTtlNode;
import org.apache.curator.framework.recipes.queue.DistributedPriorityQueue;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

public final class CuratorCheck extends Checks {
    /** Session timeout of every client (ms). */
    static final int TIMEOUT = 4000;

    static String hosts;
    /** Every client opened, closed at the end. */
    static final List<CuratorFramework> opened = new CopyOnWriteArrayList<>();

    public static void main(String[] args) throws Exception {
        hosts = args[0];
        add("mutex", CuratorCheck::mutex);
        add("mutex-no-herd", CuratorCheck::mutexNoHerd);
        add("mutex-session-expiry", CuratorCheck::mutexSessionExpiry);
        add("read-write-lock", CuratorCheck::readWriteLock);
        add("semaphore", CuratorCheck::semaphore);
        add("leader-latch", CuratorCheck::leaderLatch);
        add("leader-selector", CuratorCheck::leaderSelector);
        add("barrier", CuratorCheck::barrier);
        add("double-barrier", CuratorCheck::doubleBarrier);
        add("queue", CuratorCheck::queue);
        add("priority-queue", CuratorCheck::priorityQueue);
        add("shared-count", CuratorCheck::sharedCount);
        add("atomic-long", CuratorCheck::atomicLong);
        add("curator-cache", CuratorCheck::curatorCache);
        add("persistent-node", CuratorCheck::persistentNode);
        add("persistent-ttl-node", CuratorCheck::persistentTtlNode);
        add("group-member", CuratorCheck::groupMember);
        add("transaction", CuratorCheck::transaction);
        runAll(Arrays.asList(args).subList(1, args.length));
        for (CuratorFramework c : opened) {
            c.close();
        }
        System.exit(0);
    }

    // --- clients ---

    static CuratorFramework client() throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(hosts)
                .sessionTimeoutMs(TIMEOUT)
                .connectionTimeoutMs(TIMEOUT)
                .retryPolicy(new ExponentialBackoffRetry(50, 29, 500))
                .build();
        c.start();
        check(c.blockUntilConnected((int) WAIT, TimeUnit.MILLISECONDS), "client did not connect");
        opened.add(c);
        return c;
    }

    static List<CuratorFramework> clients(int n) throws Exception {
        List<CuratorFramework> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(client());
        }
        return l;
    }

    static void close(List<CuratorFramework> cs) {
        for (CuratorFramework c : cs) {
            c.close();
            opened.remove(c);
        }
    }

    static long session(CuratorFramework c) throws Exception {
        return c.getZookeeperClient().getZooKeeper().getSessionId();
    }

    /**
     * expire ends c's session the classic way, from outside: a second
     * handle with the session's id and password connects, then closes.
     */
    static void expire(CuratorFramework c) throws Exception {
        ZooKeeper z = c.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper killer = new ZooKeeper(hosts, TIMEOUT, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, z.getSessionId(), z.getSessionPasswd());
        try {
            check(connected.await(WAIT, TimeUnit.MILLISECONDS), "the second handle did not connect");
        } finally {
            killer.close();
        }
    }

    /**
     * States records a client's connection states. An expiry from outside
     * may first show as SUSPENDED and RECONNECTED (the client takes its
     * session back from the second handle) before LOST, so a test that
     * needs the new session waits for LOST, then RECONNECTED.
     */
    static final class States implements ConnectionStateListener {
        final LinkedBlockingQueue<ConnectionState> q = new LinkedBlockingQueue<>();

        States(CuratorFramework c) {
            c.getConnectionStateListenable().addListener(this);
        }

        @Override
        public void stateChanged(CuratorFramework client, ConnectionState s) {
            q.add(s);
        }

        /** await skips states until s, and returns the ones skipped. */
        List<ConnectionState> await(ConnectionState s) throws InterruptedException {
            List<ConnectionState> skipped = new ArrayList<>();
            while (true) {
                ConnectionState got = q.poll(WAIT, TimeUnit.MILLISECONDS);
                if (got == null) {
                    throw new AssertionError("no " + s + " within " + WAIT + " ms; saw " + skipped);
                }
                if (got == s) {
                    return skipped;
                }
                skipped.add(got);
            }
        }
    }

    /**
     * watches returns the paths of c's client-side watches of one kind,
     * leaving out the data watch every Curator client keeps on
     * /zookeeper/config.
     */
    @SuppressWarnings("unchecked")
    static List<String> watches(CuratorFramework c, String kind) throws Exception {
        Method m = ZooKeeper.class.getDeclaredMethod("get" + kind + "Watches");
        m.setAccessible(true);
        List<String> l = new ArrayList<>((List<String>) m.invoke(c.getZookeeperClient().getZooKeeper()));
        l.remove("/zookeeper/config");
        return sorted(l);
    }

    // --- helpers ---

    /** Holders counts how many are inside a critical section at once. */
    static final class Holders {
        final AtomicInteger now = new AtomicInteger();
        final AtomicInteger max = new AtomicInteger();
        final AtomicInteger total = new AtomicInteger();

        void enter() {
            int n = now.incrementAndGet();
            max.accumulateAndGet(n, Math::max);
            total.incrementAndGet();
        }

        void exit() {
            now.decrementAndGet();
        }
    }

    interface IntBody {
        void run(int i) throws Exception;
    }

    /** parallel runs body(0..n-1) on n threads and rethrows the first failure. */
    static void parallel(int n, IntBody body) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(n);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                final int k = i;
                fs.add(ex.submit(() -> {
                    body.run(k);
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                try {
                    f.get(2 * WAIT, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof Exception) {
                        throw (Exception) e.getCause();
                    }
                    throw new AssertionError(e.getCause());
                }
            }
        } finally {
            ex.shutdownNow();
        }
    }

    /** waitFor polls cond until it holds. */
    static void waitFor(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.currentTimeMillis() + WAIT;
        while (!cond.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    static List<String> children(CuratorFramework c, String path) {
        try {
            return sortedBySequence(c.getChildren().forPath(path));
        } catch (Exception e) {
            return Collections.emptyList();
        }
    }

    /** Curator's lock nodes end in a ZooKeeper sequence number: order by it. */
    static List<String> sortedBySequence(List<String> l) {
        List<String> c = new ArrayList<>(l);
        c.sort((a, b) -> a.substring(a.length() - 10).compareTo(b.substring(b.length() - 10)));
        return c;
    }

    static String str(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    static final QueueSerializer<String> STRINGS = new QueueSerializer<String>() {
        @Override
        public byte[] serialize(String item) {
            return b(item);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return str(bytes);
        }
    };

    // --- locks ---

    static void mutex() throws Exception {
        String path = "/mutex";
        List<CuratorFramework> cs = clients(4);
        Holders h = new Holders();
        parallel(4, i -> {
            InterProcessMutex m = new InterProcessMutex(cs.get(i), path);
            for (int k = 0; k < 5; k++) {
                check(m.acquire(WAIT, TimeUnit.MILLISECONDS), "client %d did not get the lock", i);
                h.enter();
                Thread.sleep(2);
                h.exit();
                m.release();
            }
        });
        eq(1, h.max.get(), "most holders at once");
        eq(20, h.total.get(), "acquisitions");
        eq(list(), children(cs.get(0), path), "lock nodes left");
        // Reentrant: one node for two acquisitions by one thread.
        InterProcessMutex m = new InterProcessMutex(cs.get(0), path);
        m.acquire();
        m.acquire();
        eq(1, children(cs.get(1), path).size(), "nodes of a reentrant lock");
        // Curator makes the lock's parent a container, which shows no
        // owner. Looked at while a lock node keeps it from being reaped.
        eq(0L, cs.get(2).checkExists().forPath(path).getEphemeralOwner(), "owner shown for the container");
        InterProcessMutex other = new InterProcessMutex(cs.get(1), path);
        check(!other.acquire(200, TimeUnit.MILLISECONDS), "another client got a held lock");
        m.release();
        check(m.isAcquiredInThisProcess(), "released too early");
        m.release();
        check(other.acquire(WAIT, TimeUnit.MILLISECONDS), "the lock did not pass on");
        other.release();
        // Once its last lock node is gone the server reaps the container.
        waitFor("the lock's container to be reaped", () -> {
            try {
                return cs.get(2).checkExists().forPath(path) == null;
            } catch (Exception e) {
                return false;
            }
        });
        close(cs);
    }

    /**
     * Each waiter watches only its predecessor's node, so releasing the
     * lock wakes exactly one waiter: the server fires one watch, and the
     * other waiters' watches are still registered afterwards.
     */
    static void mutexNoHerd() throws Exception {
        String path = "/mutex-no-herd";
        int waiters = 4;
        List<CuratorFramework> cs = clients(waiters + 1);
        InterProcessMutex first = new InterProcessMutex(cs.get(0), path);
        first.acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CountDownLatch> acquired = new ArrayList<>(), release = new ArrayList<>();
        ExecutorService ex = Executors.newCachedThreadPool();
        try {
            for (int i = 1; i <= waiters; i++) {
                final int k = i;
                CountDownLatch got = new CountDownLatch(1), rel = new CountDownLatch(1);
                acquired.add(got);
                release.add(rel);
                ex.submit(() -> {
                    InterProcessMutex m = new InterProcessMutex(cs.get(k), path);
                    m.acquire();
                    order.add(k);
                    got.countDown();
                    rel.await();
                    m.release();
                    return null;
                });
                // One at a time, so that the waiters queue in a known order.
                waitFor("waiter " + k + " to queue", () -> children(cs.get(0), path).size() == k + 1
                        && watchesOr(cs.get(k), "Data").size() == 1);
            }
            List<String> nodes = children(cs.get(0), path);
            // The server's view (wchp): each node but the last is watched by
            // one session, the next waiter's.
            eq(list(1, 1, 1, 1, 0), watchCounts(path, nodes), "sessions watching each lock node");
            for (int i = 1; i <= waiters; i++) {
                eq(list(path + "/" + nodes.get(i - 1)), watches(cs.get(i), "Data"), "waiter " + i + "'s data watches");
                eq(list(), watches(cs.get(i), "Child"), "waiter " + i + "'s child watches");
                eq(list(), watches(cs.get(i), "Exist"), "waiter " + i + "'s exist watches");
            }
            first.release();
            check(acquired.get(0).await(WAIT, TimeUnit.MILLISECONDS), "the first waiter did not get the lock");
            Thread.sleep(200);
            eq(list(1), order, "holders after one release");
            eq(list(), watches(cs.get(1), "Data"), "the woken waiter's watches");
            for (int i = 2; i <= waiters; i++) {
                eq(list(path + "/" + nodes.get(i - 1)), watches(cs.get(i), "Data"), "waiter " + i + "'s watch after the release");
            }
            eq(list(1, 1, 1, 0), watchCounts(path, nodes.subList(1, nodes.size())), "sessions watching each lock node after the release");
            for (int i = 0; i < waiters; i++) {
                release.get(i).countDown();
                if (i + 1 < waiters) {
                    check(acquired.get(i + 1).await(WAIT, TimeUnit.MILLISECONDS), "waiter %d did not get the lock", i + 2);
                }
            }
            eq(list(1, 2, 3, 4), order, "order of the holders");
        } finally {
            ex.shutdownNow();
        }
        close(cs);
    }

    /** fourLetterWord sends a four-letter word to the server and returns its answer. */
    static String fourLetterWord(String word) throws Exception {
        String[] hp = hosts.split(":");
        try (java.net.Socket sock = new java.net.Socket(hp[0], Integer.parseInt(hp[1]))) {
            sock.setSoTimeout((int) WAIT);
            sock.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            return new String(sock.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** watchCounts returns, for each node under parent, how many sessions watch it (wchp). */
    static List<Integer> watchCounts(String parent, List<String> nodes) throws Exception {
        Map<String, Integer> byPath = new HashMap<>();
        String current = null;
        for (String line : fourLetterWord("wchp").split("\n")) {
            if (line.startsWith("/")) {
                current = line.trim();
                byPath.put(current, 0);
            } else if (current != null && line.trim().startsWith("0x")) {
                byPath.merge(current, 1, Integer::sum);
            }
        }
        List<Integer> out = new ArrayList<>();
        for (String n : nodes) {
            out.add(byPath.getOrDefault(parent + "/" + n, 0));
        }
        return out;
    }

    static List<String> watchesOr(CuratorFramework c, String kind) {
        try {
            return watches(c, kind);
        } catch (Exception e) {
            return Collections.emptyList();
        }
    }

    /**
     * The holder's session is expired from outside while two clients wait:
     * the lock passes to the next waiter, and the expired client, once
     * reconnected with a new session, gets the lock again after the others.
     */
    static void mutexSessionExpiry() throws Exception {
        String path = "/mutex-session-expiry";
        List<CuratorFramework> cs = clients(3);
        States states = new States(cs.get(0));
        InterProcessMutex a = new InterProcessMutex(cs.get(0), path);
        a.acquire();
        List<String> order = new CopyOnWriteArrayList<>();
        Holders h = new Holders();
        h.enter(); // a holds it
        AtomicInteger expired = new AtomicInteger();
        ExecutorService ex = Executors.newCachedThreadPool();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                final int k = i;
                fs.add(ex.submit(() -> {
                    InterProcessMutex m = new InterProcessMutex(cs.get(k), path);
                    check(m.acquire(WAIT, TimeUnit.MILLISECONDS), "client %d did not get the lock", k);
                    check(expired.get() == 1, "client %d got the lock before the holder's session ended", k);
                    h.enter();
                    order.add("c" + k);
                    Thread.sleep(100);
                    h.exit();
                    m.release();
                    return null;
                }));
                waitFor("client " + k + " to queue", () -> children(cs.get(0), path).size() == k + 1);
            }
            long old = session(cs.get(0));
            // a's hold ends with its session; it learns so later (LOST).
            h.exit();
            expired.set(1);
            expire(cs.get(0));
            states.await(ConnectionState.LOST);
            states.await(ConnectionState.RECONNECTED);
            check(session(cs.get(0)) != old, "the expired client kept its session id");
            // The expired client recovers: releasing the lost lock is harmless,
            // and it can take the lock again, after the two waiters.
            a.release();
            check(a.acquire(WAIT, TimeUnit.MILLISECONDS), "the expired client did not get the lock again");
            h.enter();
            order.add("c0");
            h.exit();
            a.release();
            for (Future<?> f : fs) {
                f.get(WAIT, TimeUnit.MILLISECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
        eq(list("c1", "c2", "c0"), order, "order of the holders");
        eq(1, h.max.get(), "most holders at once");
        close(cs);
    }

    static void readWriteLock() throws Exception {
        String path = "/read-write-lock";
        List<CuratorFramework> cs = clients(3);
        InterProcessReadWriteLock r0 = new InterProcessReadWriteLock(cs.get(0), path);
        InterProcessReadWriteLock r1 = new InterProcessReadWriteLock(cs.get(1), path);
        InterProcessReadWriteLock w2 = new InterProcessReadWriteLock(cs.get(2), path);
        // Two readers at once.
        check(r0.readLock().acquire(WAIT, TimeUnit.MILLISECONDS), "first reader");
        check(r1.readLock().acquire(WAIT, TimeUnit.MILLISECONDS), "second reader");
        // A writer waits for both.
        CountDownLatch wrote = new CountDownLatch(1);
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            Future<?> writer = ex.submit(() -> {
                check(w2.writeLock().acquire(WAIT, TimeUnit.MILLISECONDS), "writer");
                wrote.countDown();
                Thread.sleep(300);
                w2.writeLock().release();
                return null;
            });
            check(!wrote.await(300, TimeUnit.MILLISECONDS), "the writer got the lock beside two readers");
            r0.readLock().release();
            check(!wrote.await(200, TimeUnit.MILLISECONDS), "the writer got the lock beside a reader");
            r1.readLock().release();
            check(wrote.await(WAIT, TimeUnit.MILLISECONDS), "the writer did not get the lock");
            // A reader waits for the writer.
            long t0 = System.nanoTime();
            check(r0.readLock().acquire(WAIT, TimeUnit.MILLISECONDS), "reader after the writer");
            writer.get(WAIT, TimeUnit.MILLISECONDS);
            check(wrote.getCount() == 0, "the writer was not done");
            r0.readLock().release();
        } finally {
            ex.shutdownNow();
        }
        // The writer can also take the read lock (downgrade).
        w2.writeLock().acquire();
        check(w2.readLock().acquire(WAIT, TimeUnit.MILLISECONDS), "read lock under the write lock");
        w2.readLock().release();
        w2.writeLock().release();
        eq(list(), children(cs.get(0), path), "lock nodes left");
        close(cs);
    }

    static void semaphore() throws Exception {
        String path = "/semaphore";
        List<CuratorFramework> cs = clients(4);
        Holders h = new Holders();
        parallel(4, i -> {
            InterProcessSemaphoreV2 s = new InterProcessSemaphoreV2(cs.get(i), path, 2);
            for (int k = 0; k < 3; k++) {
                Lease l = s.acquire(WAIT, TimeUnit.MILLISECONDS);
                check(l != null, "client %d got no lease", i);
                h.enter();
                // Hold the lease until a second holder comes (the
                // semaphore allows two), so that two at once are seen
                // however slow the machine, then a little longer.
                long until = System.currentTimeMillis() + 2_000;
                while (h.now.get() < 2 && System.currentTimeMillis() < until) {
                    Thread.sleep(5);
                }
                Thread.sleep(20);
                h.exit();
                s.returnLease(l);
            }
        });
        eq(2, h.max.get(), "most lease holders at once");
        eq(12, h.total.get(), "leases");
        // Two leases out: a third request times out, and gets one when a lease returns.
        InterProcessSemaphoreV2 s0 = new InterProcessSemaphoreV2(cs.get(0), path, 2);
        InterProcessSemaphoreV2 s1 = new InterProcessSemaphoreV2(cs.get(1), path, 2);
        InterProcessSemaphoreV2 s2 = new InterProcessSemaphoreV2(cs.get(2), path, 2);
        Lease l0 = s0.acquire(WAIT, TimeUnit.MILLISECONDS), l1 = s1.acquire(WAIT, TimeUnit.MILLISECONDS);
        check(l0 != null && l1 != null, "two leases");
        eq(null, s2.acquire(200, TimeUnit.MILLISECONDS), "a third lease");
        eq(2, s2.getParticipantNodes().size(), "participants");
        s0.returnLease(l0);
        Lease l2 = s2.acquire(WAIT, TimeUnit.MILLISECONDS);
        check(l2 != null, "a lease after one returned");
        // A holder's session ends: its lease comes back.
        expire(cs.get(1));
        Lease l3 = s0.acquire(WAIT, TimeUnit.MILLISECONDS);
        check(l3 != null, "a lease after the holder's session expired");
        s2.returnLease(l2);
        s0.returnLease(l3);
        close(cs);
    }

    // --- leaders ---

    static int leaders(List<LeaderLatch> ls) {
        int n = 0;
        for (LeaderLatch l : ls) {
            if (l.hasLeadership()) {
                n++;
            }
        }
        return n;
    }

    static int leaderIndex(List<LeaderLatch> ls) {
        for (int i = 0; i < ls.size(); i++) {
            if (ls.get(i).hasLeadership()) {
                return i;
            }
        }
        return -1;
    }

    static int participants(LeaderLatch l) {
        try {
            return l.getParticipants().size();
        } catch (Exception e) {
            return -1;
        }
    }

    static void leaderLatch() throws Exception {
        String path = "/leader-latch";
        List<CuratorFramework> cs = clients(3);
        // Each latch's own view of its leadership may lag (an expired leader
        // learns it when it reconnects), so the number of leaders is checked
        // once the views have settled.
        List<LeaderLatch> ls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LeaderLatch l = new LeaderLatch(cs.get(i), path, "c" + i);
            ls.add(l);
            l.start();
        }
        waitFor("one leader among three participants", () -> leaders(ls) == 1 && participants(ls.get(0)) == 3);
        int first = leaderIndex(ls);
        for (LeaderLatch l : ls) {
            eq("c" + first, l.getLeader().getId(), "leader seen by each latch");
            eq(3, l.getParticipants().size(), "participants");
        }
        // Expire the leader's session: another client leads, the expired one
        // rejoins with a new node once it has a new session.
        States st = new States(cs.get(first));
        expire(cs.get(first));
        st.await(ConnectionState.LOST);
        waitFor("a new leader", () -> leaders(ls) == 1 && leaderIndex(ls) != first);
        int second = leaderIndex(ls);
        st.await(ConnectionState.RECONNECTED);
        waitFor("the expired client to rejoin", () -> participants(ls.get(second)) == 3);
        eq(second, leaderIndex(ls), "the leader after the expired client rejoined");
        // The leader leaves: the next one leads.
        ls.get(second).close();
        waitFor("a third leader", () -> {
            int n = 0;
            for (int i = 0; i < 3; i++) {
                if (i != second && ls.get(i).hasLeadership()) {
                    n++;
                }
            }
            return n == 1;
        });
        for (int i = 0; i < 3; i++) {
            if (i != second) {
                ls.get(i).close();
            }
        }
        close(cs);
    }

    static void leaderSelector() throws Exception {
        String path = "/leader-selector";
        List<CuratorFramework> cs = clients(3);
        Holders h = new Holders();
        List<Integer> terms = new CopyOnWriteArrayList<>();
        List<Integer> interrupted = new CopyOnWriteArrayList<>();
        long[] hold = {20};
        List<LeaderSelector> ss = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final int k = i;
            LeaderSelector s = new LeaderSelector(cs.get(i), path, new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) throws Exception {
                    h.enter();
                    terms.add(k);
                    try {
                        Thread.sleep(hold[0]);
                    } catch (InterruptedException e) {
                        interrupted.add(k);
                        throw e;
                    } finally {
                        h.exit();
                    }
                }
            });
            s.setId("c" + i);
            s.autoRequeue();
            ss.add(s);
        }
        for (LeaderSelector s : ss) {
            s.start();
        }
        waitFor("six terms", () -> terms.size() >= 6);
        // A sub-list of a CopyOnWriteArrayList fails when the list grows
        // under it (the clients go on leading): read a copy.
        eq(new HashSet<>(list(0, 1, 2)), new HashSet<>(new ArrayList<>(terms).subList(0, 6)), "every client led");
        eq(1, h.max.get(), "most leaders at once");
        // Across an expiry the expired leader learns late that it lost its
        // term (when its connection drops), so terms may overlap by a few
        // ms as the clients see them; only their succession is checked.
        // A long term, cut short by the expiry of the leader's session.
        hold[0] = 60_000;
        int before = terms.size();
        waitFor("a long term", () -> h.now.get() == 1 && terms.size() > before);
        Thread.sleep(50);
        int leader = terms.get(terms.size() - 1);
        States st = new States(cs.get(leader));
        expire(cs.get(leader));
        st.await(ConnectionState.LOST);
        waitFor("the expired leader to be interrupted", () -> interrupted.contains(leader));
        waitFor("another leader", () -> h.now.get() == 1 && terms.get(terms.size() - 1) != leader);
        int next = terms.get(terms.size() - 1);
        hold[0] = 20;
        ss.get(next).interruptLeadership();
        // The expired client recovers and leads again.
        int mark = terms.size();
        waitFor("the expired client to lead again", () -> {
            List<Integer> now = new ArrayList<>(terms);
            return now.subList(mark, now.size()).contains(leader);
        });
        for (LeaderSelector s : ss) {
            s.close();
        }
        close(cs);
    }

    // --- barriers ---

    static void barrier() throws Exception {
        String path = "/barrier";
        List<CuratorFramework> cs = clients(4);
        DistributedBarrier b = new DistributedBarrier(cs.get(0), path);
        b.setBarrier();
        AtomicInteger passed = new AtomicInteger();
        ExecutorService ex = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                final int k = i;
                fs.add(ex.submit(() -> {
                    check(new DistributedBarrier(cs.get(k), path).waitOnBarrier(WAIT, TimeUnit.MILLISECONDS), "waiter %d timed out", k);
                    passed.incrementAndGet();
                    return null;
                }));
            }
            Thread.sleep(300);
            eq(0, passed.get(), "waiters past a set barrier");
            b.removeBarrier();
            for (Future<?> f : fs) {
                f.get(WAIT, TimeUnit.MILLISECONDS);
            }
            eq(3, passed.get(), "waiters past the removed barrier");
            // A barrier that is not set does not hold anyone.
            check(new DistributedBarrier(cs.get(1), path).waitOnBarrier(1, TimeUnit.MILLISECONDS), "an unset barrier held a waiter");
        } finally {
            ex.shutdownNow();
        }
        close(cs);
    }

    static void doubleBarrier() throws Exception {
        String path = "/double-barrier";
        List<CuratorFramework> cs = clients(3);
        AtomicInteger arrived = new AtomicInteger(), left = new AtomicInteger();
        List<Integer> arrivedWhenEntered = new CopyOnWriteArrayList<>(), leftWhenLeft = new CopyOnWriteArrayList<>();
        parallel(3, i -> {
            Thread.sleep(100 * i); // arrive one after another
            DistributedDoubleBarrier b = new DistributedDoubleBarrier(cs.get(i), path, 3);
            arrived.incrementAndGet();
            check(b.enter(WAIT, TimeUnit.MILLISECONDS), "member %d did not enter", i);
            arrivedWhenEntered.add(arrived.get());
            Thread.sleep(100 * i); // leave one after another
            left.incrementAndGet();
            check(b.leave(WAIT, TimeUnit.MILLISECONDS), "member %d did not leave", i);
            leftWhenLeft.add(left.get());
        });
        eq(list(3, 3, 3), arrivedWhenEntered, "members arrived when each entered");
        eq(list(3, 3, 3), leftWhenLeft, "members leaving when each left");
        eq(list(), children(cs.get(0), path), "barrier nodes left");
        close(cs);
    }

    // --- queues ---

    static void queue() throws Exception {
        String path = "/queue";
        List<CuratorFramework> cs = clients(4);
        List<String> consumed = new CopyOnWriteArrayList<>();
        QueueConsumer<String> consumer = new QueueConsumer<String>() {
            @Override
            public void consumeMessage(String message) {
                consumed.add(message);
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        };
        DistributedQueue<String> q = QueueBuilder.builder(cs.get(0), consumer, STRINGS, path).buildQueue();
        q.start();
        parallel(3, i -> {
            DistributedQueue<String> p = QueueBuilder.builder(cs.get(i + 1), null, STRINGS, path).buildQueue();
            p.start();
            for (int k = 0; k < 10; k++) {
                p.put("p" + i + "-" + k);
            }
            p.close();
        });
        waitFor("30 items", () -> consumed.size() >= 30);
        Thread.sleep(100);
        eq(30, consumed.size(), "items consumed");
        eq(30, new HashSet<>(consumed).size(), "distinct items consumed");
        for (int i = 0; i < 3; i++) {
            List<String> mine = new ArrayList<>();
            for (String s : consumed) {
                if (s.startsWith("p" + i + "-")) {
                    mine.add(s);
                }
            }
            List<String> want = new ArrayList<>();
            for (int k = 0; k < 10; k++) {
                want.add("p" + i + "-" + k);
            }
            eq(want, mine, "order of producer " + i + "'s items");
        }
        q.close();
        close(cs);
    }

    static void priorityQueue() throws Exception {
        String path = "/priority-queue";
        List<CuratorFramework> cs = clients(3);
        int[] priorities = {5, 1, 3, 0, 4, 2, 9, 7};
        parallel(2, i -> {
            DistributedPriorityQueue<String> p = QueueBuilder.builder(cs.get(i + 1), null, STRINGS, path).buildPriorityQueue(0);
            p.start();
            for (int k = i; k < priorities.length; k += 2) {
                p.put("item" + priorities[k], priorities[k]);
            }
            p.close();
        });
        List<String> consumed = new CopyOnWriteArrayList<>();
        DistributedPriorityQueue<String> q = QueueBuilder.builder(cs.get(0), new QueueConsumer<String>() {
            @Override
            public void consumeMessage(String message) {
                consumed.add(message);
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        }, STRINGS, path).buildPriorityQueue(0);
        q.start();
        waitFor("8 items", () -> consumed.size() >= priorities.length);
        eq(list("item0", "item1", "item2", "item3", "item4", "item5", "item7", "item9"), consumed, "consumption order");
        q.close();
        close(cs);
    }

    // --- shared values ---

    static void sharedCount() throws Exception {
        String path = "/shared-count";
        List<CuratorFramework> cs = clients(3);
        List<SharedCount> counts = new ArrayList<>();
        for (CuratorFramework c : cs) {
            SharedCount s = new SharedCount(c, path, 0);
            s.start();
            counts.add(s);
        }
        AtomicInteger conflicts = new AtomicInteger();
        parallel(3, i -> {
            SharedCount s = counts.get(i);
            for (int k = 0; k < 10; k++) {
                while (true) {
                    VersionedValue<Integer> v = s.getVersionedValue();
                    if (s.trySetCount(v, v.getValue() + 1)) {
                        break;
                    }
                    conflicts.incrementAndGet();
                }
            }
        });
        for (SharedCount s : counts) {
            waitFor("every client to see 30", () -> s.getCount() == 30);
        }
        Stat st = cs.get(0).checkExists().forPath(path);
        eq(30, st.getVersion(), "node version: one setData per increment");
        // A stale version is refused.
        VersionedValue<Integer> v = counts.get(0).getVersionedValue();
        counts.get(1).setCount(100);
        check(!counts.get(0).trySetCount(v, 5), "trySetCount with a stale version succeeded");
        for (SharedCount s : counts) {
            waitFor("every client to see 100", () -> s.getCount() == 100);
            s.close();
        }
        close(cs);
    }

    static void atomicLong() throws Exception {
        String path = "/atomic-long";
        List<CuratorFramework> cs = clients(3);
        List<Long> posts = new CopyOnWriteArrayList<>();
        parallel(6, i -> {
            DistributedAtomicLong n = new DistributedAtomicLong(cs.get(i % 3), path, new RetryNTimes(1000, 1));
            for (int k = 0; k < 10; k++) {
                while (true) {
                    AtomicValue<Long> r = n.increment();
                    if (r.succeeded()) {
                        eq(r.preValue() + 1, (long) r.postValue(), "post value");
                        posts.add(r.postValue());
                        break;
                    }
                }
            }
        });
        eq(60L, new DistributedAtomicLong(cs.get(0), path, new RetryNTimes(3, 10)).get().postValue(), "final value");
        List<Long> want = new ArrayList<>();
        for (long k = 1; k <= 60; k++) {
            want.add(k);
        }
        eq(want, sorted(posts), "every value seen once");
        DistributedAtomicLong n = new DistributedAtomicLong(cs.get(1), path, new RetryNTimes(3, 10));
        check(n.compareAndSet(60L, 100L).succeeded(), "compareAndSet with the current value");
        check(!n.compareAndSet(60L, 7L).succeeded(), "compareAndSet with a stale value succeeded");
        close(cs);
    }

    // --- caches and nodes ---

    static void curatorCache() throws Exception {
        String path = "/curator-cache";
        List<CuratorFramework> cs = clients(3);
        cs.get(1).create().forPath(path, b("root"));
        cs.get(1).create().forPath(path + "/a", b("1"));
        LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
        CountDownLatch initialized = new CountDownLatch(1);
        CuratorCache cache = CuratorCache.build(cs.get(0), path);
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forAll((type, oldData, data) -> {
                    ChildData d = data != null ? data : oldData;
                    events.add(type + " " + d.getPath() + " " + str(data == null ? null : data.getData()));
                })
                .forInitialized(initialized::countDown)
                .build());
        cache.start();
        check(initialized.await(WAIT, TimeUnit.MILLISECONDS), "the cache did not initialize");
        List<String> initial = new ArrayList<>();
        events.drainTo(initial);
        eq(list("NODE_CREATED " + path + " root", "NODE_CREATED " + path + "/a 1"), sorted(initial), "initial events");
        // The cache watches with one persistent recursive watch.
        eq(list(path), watches(cs.get(0), "PersistentRecursive"), "the cache's persistent recursive watches");
        eq(list(), watches(cs.get(0), "Data"), "the cache's data watches");
        String[][] steps = {
            {"1", "create", path + "/b", "2", "NODE_CREATED " + path + "/b 2"},
            {"2", "set", path + "/a", "3", "NODE_CHANGED " + path + "/a 3"},
            {"1", "create", path + "/b/x", "4", "NODE_CREATED " + path + "/b/x 4"},
            {"2", "delete", path + "/b/x", null, "NODE_DELETED " + path + "/b/x null"},
            {"1", "delete", path + "/a", null, "NODE_DELETED " + path + "/a null"},
            {"2", "set", path, "r2", "NODE_CHANGED " + path + " r2"},
        };
        for (String[] s : steps) {
            CuratorFramework c = cs.get(Integer.parseInt(s[0]));
            switch (s[1]) {
                case "create":
                    c.create().forPath(s[2], b(s[3]));
                    break;
                case "set":
                    c.setData().forPath(s[2], b(s[3]));
                    break;
                default:
                    c.delete().forPath(s[2]);
            }
            String got = events.poll(WAIT, TimeUnit.MILLISECONDS);
            eq(s[4], got, "event after " + s[1] + " " + s[2]);
        }
        Map<String, String> contents = new HashMap<>();
        cache.stream().forEach(d -> contents.put(d.getPath(), str(d.getData())));
        Map<String, String> want = new HashMap<>();
        want.put(path, "r2");
        want.put(path + "/b", "2");
        eq(want, contents, "cache contents");
        cache.close();
        close(cs);
    }

    static void persistentNode() throws Exception {
        String path = "/persistent-node";
        List<CuratorFramework> cs = clients(3);
        PersistentNode pn = new PersistentNode(cs.get(0), CreateMode.EPHEMERAL, false, path, b("v1"));
        pn.start();
        check(pn.waitForInitialCreate(WAIT, TimeUnit.MILLISECONDS), "the node was not created");
        long owner = cs.get(1).checkExists().forPath(path).getEphemeralOwner();
        eq(session(cs.get(0)), owner, "owner");
        States st = new States(cs.get(0));
        expire(cs.get(0));
        st.await(ConnectionState.LOST);
        st.await(ConnectionState.RECONNECTED);
        long now = session(cs.get(0));
        check(now != owner, "the session id did not change");
        waitFor("the node to come back under the new session", () -> {
            try {
                Stat s = cs.get(2).checkExists().forPath(path);
                return s != null && s.getEphemeralOwner() == now;
            } catch (Exception e) {
                return false;
            }
        });
        pn.setData(b("v2"));
        waitFor("the new data", () -> {
            try {
                return "v2".equals(str(cs.get(1).getData().forPath(path)));
            } catch (Exception e) {
                return false;
            }
        });
        // Deleted from outside: the recipe puts it back.
        cs.get(1).delete().forPath(path);
        waitFor("the node to be put back", () -> {
            try {
                return cs.get(2).checkExists().forPath(path) != null;
            } catch (Exception e) {
                return false;
            }
        });
        pn.close();
        eq(null, cs.get(1).checkExists().forPath(path), "the node after close");
        // A sequential ephemeral node comes back under the same name: the
        // recipe recreates the path it had, as a plain ephemeral.
        PersistentNode seq = new PersistentNode(cs.get(1), CreateMode.EPHEMERAL_SEQUENTIAL, false, path + "-seq", b("s"));
        seq.start();
        check(seq.waitForInitialCreate(WAIT, TimeUnit.MILLISECONDS), "the sequential node was not created");
        String first = seq.getActualPath();
        States st1 = new States(cs.get(1));
        expire(cs.get(1));
        st1.await(ConnectionState.LOST);
        st1.await(ConnectionState.RECONNECTED);
        long seqSession = session(cs.get(1));
        waitFor("the sequential node to come back under the new session", () -> {
            try {
                Stat s = cs.get(2).checkExists().forPath(first);
                return s != null && s.getEphemeralOwner() == seqSession;
            } catch (Exception e) {
                return false;
            }
        });
        eq(first, seq.getActualPath(), "the sequential node's path after the expiry");
        int n = 0;
        for (String c : cs.get(2).getChildren().forPath("/")) {
            if (c.startsWith("persistent-node-seq")) {
                n++;
            }
        }
        eq(1, n, "sequential nodes");
        seq.close();
        close(cs);
    }

    static void persistentTtlNode() throws Exception {
        String path = "/persistent-ttl-node";
        List<CuratorFramework> cs = clients(2);
        PersistentTtlNode n = new PersistentTtlNode(cs.get(0), path, 1000, b("ttl"));
        n.start();
        check(n.waitForInitialCreate(WAIT, TimeUnit.MILLISECONDS), "the node was not created");
        // Alive past its TTL while the recipe touches it.
        Thread.sleep(2500);
        check(cs.get(1).checkExists().forPath(path) != null, "the node was reaped while its owner lived");
        eq("ttl", str(cs.get(1).getData().forPath(path)), "data");
        eq(list("touch"), cs.get(1).getChildren().forPath(path), "children");
        n.close();
        // Once no longer touched, the server reaps it.
        waitFor("the node to be reaped", () -> {
            try {
                return cs.get(1).checkExists().forPath(path) == null;
            } catch (Exception e) {
                return false;
            }
        });
        close(cs);
    }

    static void groupMember() throws Exception {
        String path = "/group-member";
        List<CuratorFramework> cs = clients(3);
        List<GroupMember> ms = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            GroupMember m = new GroupMember(cs.get(i), path, "m" + i, b("d" + i));
            m.start();
            ms.add(m);
        }
        Map<String, String> want = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            want.put("m" + i, "d" + i);
        }
        for (GroupMember m : ms) {
            waitFor("three members", () -> members(m).equals(want));
        }
        ms.get(0).setThisData(b("x"));
        want.put("m0", "x");
        ms.get(2).close();
        want.remove("m2");
        for (int i = 0; i < 2; i++) {
            GroupMember m = ms.get(i);
            waitFor("two members, one with new data", () -> members(m).equals(want));
        }
        // A member's session expires: it leaves, then rejoins.
        States st = new States(cs.get(1));
        expire(cs.get(1));
        st.await(ConnectionState.LOST);
        st.await(ConnectionState.RECONNECTED);
        waitFor("the expired member back", () -> members(ms.get(0)).equals(want));
        ms.get(0).close();
        ms.get(1).close();
        close(cs);
    }

    static Map<String, String> members(GroupMember m) {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, byte[]> e : m.getCurrentMembers().entrySet()) {
            out.put(e.getKey(), str(e.getValue()));
        }
        return out;
    }

    static void transaction() throws Exception {
        String path = "/curator-transaction";
        List<CuratorFramework> cs = clients(3);
        CuratorFramework c = cs.get(0);
        c.create().forPath(path);
        List<CuratorTransactionResult> rs = c.transaction().forOperations(
                c.transactionOp().create().forPath(path + "/a", b("1")),
                c.transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(path + "/s", b("s")),
                c.transactionOp().setData().forPath(path + "/a", b("2")),
                c.transactionOp().check().withVersion(1).forPath(path + "/a"),
                c.transactionOp().create().forPath(path + "/b"),
                c.transactionOp().delete().forPath(path + "/b"));
        List<String> got = new ArrayList<>();
        for (CuratorTransactionResult r : rs) {
            got.add(r.getType() + " " + r.getForPath() + " " + r.getResultPath()
                    + (r.getResultStat() == null ? "" : " v" + r.getResultStat().getVersion()) + " " + r.getError());
        }
        eq(list("CREATE " + path + "/a " + path + "/a 0",
                "CREATE " + path + "/s " + path + "/s0000000001 0",
                "SET_DATA " + path + "/a null v1 0",
                "CHECK " + path + "/a null 0",
                "CREATE " + path + "/b " + path + "/b 0",
                "DELETE " + path + "/b null 0"), got, "transaction results");
        eq(list("a", "s0000000001"), sorted(cs.get(1).getChildren().forPath(path)), "children seen by another client");
        try {
            c.transaction().forOperations(
                    c.transactionOp().create().forPath(path + "/c"),
                    c.transactionOp().check().withVersion(5).forPath(path + "/a"));
            throw new AssertionError("the transaction succeeded");
        } catch (KeeperException.BadVersionException e) {
            // expected
        }
        eq(null, cs.get(2).checkExists().forPath(path + "/c"), "nothing of the failed transaction");
        // In a namespace, result paths are relative to it.
        CuratorFramework ns = c.usingNamespace("curator-transaction");
        List<CuratorTransactionResult> nr = ns.transaction().forOperations(ns.transactionOp().create().forPath("/n", b("n")));
        eq("/n", nr.get(0).getResultPath(), "result path in a namespace");
        eq("n", str(cs.get(1).getData().forPath(path + "/n")), "data in a namespace");
        close(cs);
    }
}
