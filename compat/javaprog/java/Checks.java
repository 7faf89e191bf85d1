// Checks is the harness of the Java test programs under compat/: it
// announces the checks (PLAN), runs each one and prints one line per check
// (CHECK <name> PASS|FAIL <detail>), asks the Go side to act (SIGNAL <word>,
// answered "OK <word>" on standard input), and holds the helpers the checks
// share: assertions, an event recorder and a callback recorder.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

public class Checks {
    protected Checks() {}

    /** A check body; any Throwable fails the check with its message. */
    public interface Body {
        void run() throws Exception;
    }

    /** WAIT bounds every wait for an event or a callback (ms). */
    public static final long WAIT = 20_000;

    private static final Map<String, Body> checks = new LinkedHashMap<>();
    private static final BufferedReader stdin =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

    public static void add(String name, Body body) {
        if (checks.put(name, body) != null) {
            throw new IllegalStateException("duplicate check " + name);
        }
    }

    /** Runs the checks named in only (all when it is empty), in order. */
    public static void runAll(List<String> only) {
        List<String> names = new ArrayList<>();
        for (String n : checks.keySet()) {
            if (only.isEmpty() || only.contains(n)) {
                names.add(n);
            }
        }
        out("PLAN " + String.join(" ", names));
        for (String n : names) {
            run(n, checks.get(n));
        }
    }

    /** Runs one check and reports it. */
    public static void run(String name, Body body) {
        long start = System.nanoTime();
        try {
            body.run();
            out("CHECK " + name + " PASS " + (System.nanoTime() - start) / 1_000_000 + " ms");
        } catch (Throwable e) {
            out("CHECK " + name + " FAIL " + describe(e));
            log("%s: %s", name, stackTrace(e));
        }
    }

    static String describe(Throwable e) {
        String s = e.getClass().getSimpleName() + ": " + e.getMessage();
        return s.replace('\n', ' ');
    }

    static String stackTrace(Throwable e) {
        java.io.StringWriter w = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    public static synchronized void out(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void log(String format, Object... args) {
        out("LOG " + String.format(format, args));
    }

    /** Asks the Go side to do word and waits for its answer. */
    public static synchronized void signal(String word) throws Exception {
        out("SIGNAL " + word);
        String reply = stdin.readLine();
        if (!("OK " + word).equals(reply)) {
            throw new AssertionError("signal " + word + " answered " + reply);
        }
    }

    // --- assertions ---

    public static void check(boolean cond, String format, Object... args) {
        if (!cond) {
            throw new AssertionError(String.format(format, args));
        }
    }

    public static void eq(Object want, Object got, String what) {
        if (!Objects.deepEquals(want, got)) {
            throw new AssertionError(what + ": got " + show(got) + ", want " + show(want));
        }
    }

    static String show(Object o) {
        if (o instanceof byte[]) {
            return "bytes\"" + new String((byte[]) o, StandardCharsets.UTF_8) + "\"";
        }
        if (o instanceof Stat) {
            return stat((Stat) o);
        }
        return String.valueOf(o);
    }

    public static String stat(Stat s) {
        if (s == null) {
            return "null";
        }
        return String.format("{czxid=%d mzxid=%d pzxid=%d ctime=%d mtime=%d version=%d cversion=%d aversion=%d owner=%x len=%d children=%d}",
                s.getCzxid(), s.getMzxid(), s.getPzxid(), s.getCtime(), s.getMtime(), s.getVersion(),
                s.getCversion(), s.getAversion(), s.getEphemeralOwner(), s.getDataLength(), s.getNumChildren());
    }

    /** Returns the code of the KeeperException body throws, or OK. */
    public static KeeperException.Code code(Body body) throws Exception {
        try {
            body.run();
            return KeeperException.Code.OK;
        } catch (KeeperException e) {
            return e.code();
        }
    }

    public static void fails(KeeperException.Code want, String what, Body body) throws Exception {
        eq(want, code(body), what);
    }

    public static byte[] b(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    public static <T extends Comparable<T>> List<T> sorted(List<T> l) {
        if (l == null) {
            return null;
        }
        List<T> c = new ArrayList<>(l);
        Collections.sort(c);
        return c;
    }

    @SafeVarargs
    public static <T> List<T> list(T... s) {
        return Arrays.asList(s);
    }

    // --- events ---

    /** ev renders an event as "<type> <path>", or "None <state>". */
    public static String ev(WatchedEvent e) {
        if (e.getType() == EventType.None) {
            return "None " + e.getState();
        }
        String s = e.getType() + " " + e.getPath();
        if (e.getState() != KeeperState.SyncConnected) {
            s += " " + e.getState();
        }
        return s;
    }

    /** Events records what a watcher is given, in order. */
    public static final class Events implements Watcher {
        private final LinkedBlockingQueue<WatchedEvent> q = new LinkedBlockingQueue<>();
        public final String name;

        public Events(String name) {
            this.name = name;
        }

        @Override
        public void process(WatchedEvent e) {
            q.add(e);
        }

        /** next returns the next event, failing after ms. */
        public String next(long ms) throws InterruptedException {
            WatchedEvent e = q.poll(ms, TimeUnit.MILLISECONDS);
            if (e == null) {
                throw new AssertionError(name + ": no event within " + ms + " ms");
            }
            return ev(e);
        }

        /** expect requires the next events to be want, in order. */
        public void expect(String... want) throws InterruptedException {
            List<String> got = new ArrayList<>();
            for (String w : want) {
                WatchedEvent e = q.poll(WAIT, TimeUnit.MILLISECONDS);
                if (e == null) {
                    throw new AssertionError(name + ": got " + got + ", want " + Arrays.asList(want));
                }
                got.add(ev(e));
            }
            eq(Arrays.asList(want), got, name + " events");
        }

        /** expectAnyOrder requires the next events to be want, in any order. */
        public void expectAnyOrder(String... want) throws InterruptedException {
            List<String> got = new ArrayList<>();
            for (int i = 0; i < want.length; i++) {
                WatchedEvent e = q.poll(WAIT, TimeUnit.MILLISECONDS);
                if (e == null) {
                    break;
                }
                got.add(ev(e));
            }
            eq(sorted(Arrays.asList(want)), sorted(got), name + " events");
        }

        /** none requires that no event comes within ms. */
        public void none(long ms) throws InterruptedException {
            WatchedEvent e = q.poll(ms, TimeUnit.MILLISECONDS);
            if (e != null) {
                throw new AssertionError(name + ": unexpected event " + ev(e));
            }
        }

        /** drain returns the events that came so far. */
        public List<String> drain() {
            List<WatchedEvent> l = new ArrayList<>();
            q.drainTo(l);
            List<String> out = new ArrayList<>();
            for (WatchedEvent e : l) {
                out.add(ev(e));
            }
            return out;
        }

        /** waitState skips events until a session event with state s. */
        public List<String> waitState(KeeperState s, long ms) throws InterruptedException {
            long deadline = System.currentTimeMillis() + ms;
            List<String> skipped = new ArrayList<>();
            while (true) {
                long left = deadline - System.currentTimeMillis();
                WatchedEvent e = left > 0 ? q.poll(left, TimeUnit.MILLISECONDS) : null;
                if (e == null) {
                    throw new AssertionError(name + ": no " + s + " within " + ms + " ms; saw " + skipped);
                }
                if (e.getType() == EventType.None && e.getState() == s) {
                    return skipped;
                }
                skipped.add(ev(e));
            }
        }
    }

    // --- callbacks ---

    /** Reply records one asynchronous callback of any kind. */
    public static final class Reply implements AsyncCallback.StringCallback, AsyncCallback.Create2Callback,
            AsyncCallback.VoidCallback, AsyncCallback.StatCallback, AsyncCallback.DataCallback,
            AsyncCallback.ChildrenCallback, AsyncCallback.Children2Callback,
            AsyncCallback.AllChildrenNumberCallback, AsyncCallback.EphemeralsCallback {
        private final CountDownLatch done = new CountDownLatch(1);
        public int rc;
        public String path;
        public Object ctx;
        public String name;
        public Stat stat;
        public byte[] data;
        public List<ACL> acl;
        public List<String> children;
        public List<OpResult> results;
        public int number;
        public List<String> paths;

        public KeeperException.Code code() {
            return KeeperException.Code.get(rc);
        }

        /** await waits for the callback and returns this. */
        public Reply await() throws InterruptedException {
            if (!done.await(WAIT, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no callback within " + WAIT + " ms");
            }
            return this;
        }

        private void common(int rc, String path, Object ctx) {
            this.rc = rc;
            this.path = path;
            this.ctx = ctx;
        }

        @Override
        public void processResult(int rc, String path, Object ctx, String name) {
            common(rc, path, ctx);
            this.name = name;
            done.countDown();
        }

        @Override
        public void processResult(int rc, String path, Object ctx, String name, Stat stat) {
            common(rc, path, ctx);
            this.name = name;
            this.stat = stat;
            done.countDown();
        }

        @Override
        public void processResult(int rc, String path, Object ctx) {
            common(rc, path, ctx);
            done.countDown();
        }

        @Override
        public void processResult(int rc, String path, Object ctx, Stat stat) {
            common(rc, path, ctx);
            this.stat = stat;
            done.countDown();
        }

        @Override
        public void processResult(int rc, String path, Object ctx, byte[] data, Stat stat) {
            common(rc, path, ctx);
            this.data = data;
            this.stat = stat;
            done.countDown();
        }

        /** acls is the ACLCallback (its erasure clashes with Children2Callback's). */
        public AsyncCallback.ACLCallback acls() {
            return (rc, path, ctx, acl, stat) -> {
                common(rc, path, ctx);
                this.acl = acl;
                this.stat = stat;
                done.countDown();
            };
        }

        @Override
        public void processResult(int rc, String path, Object ctx, List<String> children) {
            common(rc, path, ctx);
            this.children = children;
            done.countDown();
        }

        @Override
        public void processResult(int rc, String path, Object ctx, List<String> children, Stat stat) {
            common(rc, path, ctx);
            this.children = children;
            this.stat = stat;
            done.countDown();
        }

        /** multis is the MultiCallback (its erasure clashes with ChildrenCallback's). */
        public AsyncCallback.MultiCallback multis() {
            return (rc, path, ctx, results) -> {
                common(rc, path, ctx);
                this.results = results;
                done.countDown();
            };
        }

        @Override
        public void processResult(int rc, String path, Object ctx, int number) {
            common(rc, path, ctx);
            this.number = number;
            done.countDown();
        }

        @Override
        public void processResult(int rc, Object ctx, List<String> paths) {
            this.rc = rc;
            this.ctx = ctx;
            this.paths = paths;
            done.countDown();
        }
    }

    /** describe renders multi results, e.g. "create /a|error -101". */
    public static String results(List<OpResult> rs) {
        if (rs == null) {
            return "null";
        }
        List<String> out = new ArrayList<>();
        for (OpResult r : rs) {
            if (r instanceof OpResult.CreateResult) {
                OpResult.CreateResult c = (OpResult.CreateResult) r;
                out.add("create " + c.getPath() + (c.getStat() == null ? "" : " v" + c.getStat().getVersion()));
            } else if (r instanceof OpResult.SetDataResult) {
                out.add("setData v" + ((OpResult.SetDataResult) r).getStat().getVersion());
            } else if (r instanceof OpResult.DeleteResult) {
                out.add("delete");
            } else if (r instanceof OpResult.CheckResult) {
                out.add("check");
            } else if (r instanceof OpResult.GetDataResult) {
                OpResult.GetDataResult g = (OpResult.GetDataResult) r;
                out.add("getData " + show(g.getData()) + " v" + g.getStat().getVersion());
            } else if (r instanceof OpResult.GetChildrenResult) {
                out.add("getChildren " + sorted(((OpResult.GetChildrenResult) r).getChildren()));
            } else if (r instanceof OpResult.ErrorResult) {
                out.add("error " + ((OpResult.ErrorResult) r).getErr());
            } else {
                out.add(r.getClass().getSimpleName());
            }
        }
        return String.join("|", out);
    }
}
