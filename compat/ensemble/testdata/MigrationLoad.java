// MigrationLoad keeps Curator 5.4.0 recipes busy on an ensemble while its
// servers are replaced one at a time, then reports whether the recipes
// kept their promises. Argument: the connect string (every server).
//
// Each recipe runs on clients of its own (one CuratorFramework, one
// session each):
//
//   - lock: three clients take turns at one InterProcessMutex; a holder
//     count checks that no two ever hold it at once;
//   - leader-latch: two LeaderLatch participants; their isLeader and
//     notLeader callbacks count the leaders, which must never be two;
//   - counter: one client increments a DistributedAtomicLong. An
//     increment whose setData was retried after a connection loss may
//     have been applied twice (the first reply was lost, the retry met a
//     new version and the recipe tried again), so the final value must
//     lie between the acknowledged increments and those plus the
//     increments that saw a retry.
//
// Every client's retry policy counts the retries Curator makes and why
// (the connection-loss retries a client sees when its server goes), and a
// state listener counts SUSPENDED, RECONNECTED and LOST; the session ids
// at the end must be those of the start.
//
// Protocol (see compat/javaprog): PLAN, then SIGNAL migrate once every
// recipe has made progress; the Go side answers when the ensemble has
// been moved, and the program stops the recipes and reports CHECK lines
// and one STAT line per client. While the Go side works it reads nothing
// of standard output, so everything else goes to standard error.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.RetryPolicy;
import org.apache.curator.RetrySleeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;

public class MigrationLoad {
    static final String ROOT = "/migration/curator";

    static void err(String format, Object... args) {
        System.err.println(Instant.now() + " " + String.format(format, args));
    }

    static synchronized void out(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** Retries for as long as a rolling restart can take, counting why. */
    static final class CountingRetry implements RetryPolicy {
        final String client;
        final AtomicLong retries = new AtomicLong();
        final Map<String, AtomicLong> byCode = new ConcurrentHashMap<>();

        CountingRetry(String client) {
            this.client = client;
        }

        @Override
        public boolean allowRetry(Throwable e) {
            boolean retry = RetryPolicy.super.allowRetry(e);
            String why = e instanceof KeeperException ? ((KeeperException) e).code().name() : e.getClass().getSimpleName();
            if (retry) {
                retries.incrementAndGet();
                byCode.computeIfAbsent(why, k -> new AtomicLong()).incrementAndGet();
                err("%s: retrying after %s", client, why);
            }
            return retry;
        }

        @Override
        public boolean allowRetry(int retryCount, long elapsedTimeMs, RetrySleeper sleeper) {
            if (elapsedTimeMs > 120_000) {
                return false;
            }
            try {
                sleeper.sleepFor(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return true;
        }
    }

    /** One client: its framework, its retry counts and its states. */
    static final class Client {
        final String name;
        final CountingRetry retry;
        final CuratorFramework cf;
        final Map<ConnectionState, AtomicLong> states = new ConcurrentHashMap<>();
        long sessionAtStart;

        Client(String name, String connect) {
            this.name = name;
            this.retry = new CountingRetry(name);
            this.cf = CuratorFrameworkFactory.builder().connectString(connect)
                    .sessionTimeoutMs(30_000).connectionTimeoutMs(15_000).retryPolicy(retry).build();
            cf.getConnectionStateListenable().addListener((c, s) -> {
                states.computeIfAbsent(s, k -> new AtomicLong()).incrementAndGet();
                err("%s: connection %s", name, s);
            });
        }

        void start() throws Exception {
            cf.start();
            if (!cf.blockUntilConnected(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " did not connect");
            }
            sessionAtStart = cf.getZookeeperClient().getZooKeeper().getSessionId();
        }

        long count(ConnectionState s) {
            AtomicLong n = states.get(s);
            return n == null ? 0 : n.get();
        }

        String stat() throws Exception {
            return String.format("STAT %s retries=%d by=%s suspended=%d reconnected=%d lost=%d session=0x%x",
                    name, retry.retries.get(), new TreeMap<>(retry.byCode), count(ConnectionState.SUSPENDED),
                    count(ConnectionState.RECONNECTED), count(ConnectionState.LOST),
                    cf.getZookeeperClient().getZooKeeper().getSessionId());
        }
    }

    static final AtomicBoolean stop = new AtomicBoolean();
    static final List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());

    static void failed(String what, Throwable e) {
        errors.add(what + ": " + e);
        err("%s: %s", what, e);
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        out("PLAN sessions lock leader-latch counter");

        List<Client> clients = new ArrayList<>();
        Client[] lockers = new Client[3];
        for (int i = 0; i < lockers.length; i++) {
            lockers[i] = new Client("lock-" + (i + 1), connect);
            clients.add(lockers[i]);
        }
        Client[] candidates = new Client[2];
        for (int i = 0; i < candidates.length; i++) {
            candidates[i] = new Client("latch-" + (i + 1), connect);
            clients.add(candidates[i]);
        }
        Client counterClient = new Client("counter", connect);
        clients.add(counterClient);
        for (Client c : clients) {
            c.start();
        }

        // lock: the holders at any moment, the most ever seen.
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger maxHolders = new AtomicInteger();
        AtomicLong acquisitions = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (Client c : lockers) {
            InterProcessMutex mutex = new InterProcessMutex(c.cf, ROOT + "/lock");
            threads.add(new Thread(() -> {
                while (!stop.get()) {
                    try {
                        if (!mutex.acquire(10, TimeUnit.SECONDS)) {
                            continue;
                        }
                        try {
                            int h = holders.incrementAndGet();
                            maxHolders.accumulateAndGet(h, Math::max);
                            acquisitions.incrementAndGet();
                            Thread.sleep(10);
                        } finally {
                            holders.decrementAndGet();
                            mutex.release();
                        }
                    } catch (Exception e) {
                        failed(c.name + " lock", e);
                        sleep(100);
                    }
                }
            }, c.name));
        }

        // leader-latch: the participants that think they lead.
        AtomicInteger leaders = new AtomicInteger();
        AtomicInteger maxLeaders = new AtomicInteger();
        AtomicLong leadershipChanges = new AtomicLong();
        List<LeaderLatch> latches = new ArrayList<>();
        for (Client c : candidates) {
            LeaderLatch latch = new LeaderLatch(c.cf, ROOT + "/latch", c.name);
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    int l = leaders.incrementAndGet();
                    maxLeaders.accumulateAndGet(l, Math::max);
                    leadershipChanges.incrementAndGet();
                    err("%s: leads (%d leaders)", c.name, l);
                }

                @Override
                public void notLeader() {
                    leaders.decrementAndGet();
                    err("%s: no longer leads", c.name);
                }
            });
            latch.start();
            latches.add(latch);
        }

        // counter: acknowledged increments and those a retry made uncertain.
        DistributedAtomicLong counter = new DistributedAtomicLong(counterClient.cf, ROOT + "/counter", new RetryNTimes(1000, 10));
        AtomicLong acked = new AtomicLong();
        AtomicLong uncertain = new AtomicLong();
        threads.add(new Thread(() -> {
            while (!stop.get()) {
                long before = counterClient.retry.retries.get();
                try {
                    AtomicValue<Long> v = counter.increment();
                    if (v.succeeded()) {
                        acked.incrementAndGet();
                    }
                    if (!v.succeeded() || counterClient.retry.retries.get() != before) {
                        uncertain.incrementAndGet();
                    }
                } catch (Exception e) {
                    uncertain.incrementAndGet();
                    failed("counter increment", e);
                }
                sleep(20);
            }
        }, "counter"));

        for (Thread t : threads) {
            t.start();
        }
        long deadline = System.currentTimeMillis() + 60_000;
        while ((acquisitions.get() == 0 || acked.get() == 0 || leaders.get() == 0) && System.currentTimeMillis() < deadline) {
            sleep(50);
        }
        err("recipes running: %d acquisitions, %d increments, %d leaders", acquisitions.get(), acked.get(), leaders.get());

        // The Go side moves the ensemble now and answers when it is done.
        out("SIGNAL migrate");
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String reply = stdin.readLine();
        if (!"OK migrate".equals(reply)) {
            err("signal migrate answered %s", reply);
        }

        stop.set(true);
        for (Thread t : threads) {
            t.join(60_000);
            if (t.isAlive()) {
                errors.add(t.getName() + " did not stop");
            }
        }

        // sessions: none lost, none replaced.
        List<String> sessionProblems = new ArrayList<>();
        for (Client c : clients) {
            long now = c.cf.getZookeeperClient().getZooKeeper().getSessionId();
            if (c.count(ConnectionState.LOST) != 0) {
                sessionProblems.add(c.name + " LOST " + c.count(ConnectionState.LOST) + " times");
            }
            if (now != c.sessionAtStart) {
                sessionProblems.add(String.format("%s session 0x%x became 0x%x", c.name, c.sessionAtStart, now));
            }
            out(c.stat());
        }
        sessionProblems.addAll(errors);
        report("sessions", sessionProblems.isEmpty(), sessionProblems.isEmpty()
                ? clients.size() + " sessions kept" : String.join("; ", sessionProblems));

        report("lock", maxHolders.get() == 1 && acquisitions.get() > 0,
                String.format("acquisitions=%d max-holders=%d", acquisitions.get(), maxHolders.get()));

        // The latch settles on one leader once the ensemble is whole.
        deadline = System.currentTimeMillis() + 60_000;
        int leading = 0;
        while (System.currentTimeMillis() < deadline) {
            leading = 0;
            for (LeaderLatch l : latches) {
                if (l.hasLeadership()) {
                    leading++;
                }
            }
            if (leading == 1) {
                break;
            }
            sleep(100);
        }
        report("leader-latch", maxLeaders.get() == 1 && leading == 1,
                String.format("leadership-changes=%d max-leaders=%d leaders-at-end=%d",
                        leadershipChanges.get(), maxLeaders.get(), leading));
        for (LeaderLatch l : latches) {
            l.close();
        }

        AtomicValue<Long> fin = counter.get();
        long value = fin.postValue();
        boolean counted = fin.succeeded() && value >= acked.get() && value <= acked.get() + uncertain.get();
        report("counter", counted, String.format("value=%d acked=%d uncertain=%d", value, acked.get(), uncertain.get()));

        for (Client c : clients) {
            c.cf.close();
        }
    }

    static void report(String check, boolean pass, String detail) {
        out("CHECK " + check + (pass ? " PASS " : " FAIL ") + detail);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
