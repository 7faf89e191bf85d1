'use strict';
// Drives node-zookeeper-client (the version pinned in package.json)
// against one ZooKeeper server and prints one JSON line per check:
//
//     {"check": name, "facts": [...], "errors": [...]}
//
// "facts" are what must be the same on every server (error names, data,
// versions, children, event sequences); "errors" are broken expectations
// (a wait that timed out, an exception). The Go test (node_test.go) runs
// it against Apache ZooKeeper 3.8.0 and against gozk, fails on any error
// and compares the facts with the Java run's (testdata/client.golden).
//
// Usage: node client.js host:port /root [check ...]

const net = require('net');
const zookeeper = require('node-zookeeper-client');
const { CreateMode, ACL, Id, Permission } = zookeeper;

// WAIT bounds every wait for a reply or an event: a guard against
// something that never comes, not a performance check.
const WAIT = 30000;

const HOST = process.argv[2];
const ROOT = process.argv[3].replace(/\/$/, '');

function withTimeout(promise, what) {
    let timer;
    return Promise.race([
        promise,
        new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out: ' + what)), WAIT);
        }),
    ]).finally(() => clearTimeout(timer));
}

function connect(sessionTimeout) {
    const client = zookeeper.createClient(HOST, {
        sessionTimeout: sessionTimeout || 10000,
        spinDelay: 100,
        retries: 0,
    });
    const states = [];
    client.on('state', (s) => states.push(s.getName()));
    client.states = states;
    return withTimeout(new Promise((resolve) => {
        client.once('connected', () => resolve(client));
        client.connect();
    }), 'connect');
}

// call runs a callback-style client method and resolves to
// {err, values}: err is the exception's name ("NO_NODE") or null.
function call(client, method, ...args) {
    return withTimeout(new Promise((resolve) => {
        client[method](...args, (err, ...values) => {
            resolve({ err: err ? err.getName ? err.getName() : String(err) : null, values });
        });
    }), method + ' ' + args[0]);
}

function rel(p) {
    return typeof p === 'string' && p.startsWith(ROOT) ? '<root>' + p.slice(ROOT.length) : p;
}

function statText(s) {
    if (!s) return 'null';
    return `version=${s.version} cversion=${s.cversion} aversion=${s.aversion} ` +
        `dataLength=${s.dataLength} numChildren=${s.numChildren}`;
}

function aclText(acls) {
    return (acls || []).map((a) => `${a.id.scheme}:${a.id.id}:${a.permission}`).join(',');
}

// EventLog collects watcher events and lets a check wait for them.
class EventLog {
    constructor() {
        this.events = [];
        this.waiters = [];
        this.watcher = (e) => {
            this.events.push(`${e.getName()} ${rel(e.getPath())}`);
            this.waiters = this.waiters.filter((w) => !w());
        };
    }

    wait(n) {
        return withTimeout(new Promise((resolve) => {
            const done = () => {
                if (this.events.length >= n) {
                    resolve();
                    return true;
                }
                return false;
            };
            if (!done()) this.waiters.push(done);
        }), `${n} events`).catch(() => {});
    }

    text() {
        return '[' + this.events.join(',') + ']';
    }
}

class Check {
    constructor(name) {
        this.name = name;
        this.path = ROOT + '/' + name;
        this.facts = [];
        this.errors = [];
        this.clients = [];
    }

    async client(timeout) {
        const c = await connect(timeout);
        this.clients.push(c);
        return c;
    }

    fact(s) {
        this.facts.push(s);
    }

    expect(what, got, want) {
        this.fact(`${what}=${got}`);
        if (got !== want) this.errors.push(`${what}: got ${got}, want ${want}`);
    }

    close() {
        for (const c of this.clients) c.close();
    }
}

const P = (ck, s) => ck.path + s;
const buf = (s) => Buffer.from(s);

async function createFact(ck, c, label, path, ...args) {
    const r = await call(c, 'create', path, ...args);
    ck.fact(`${label}=${r.err || rel(r.values[0])}`);
    return r;
}

// ---- checks ----

const checks = {};

checks.connect = async (ck) => {
    const c = await ck.client();
    ck.fact(`state=${c.getState().getName()}`);
    ck.fact(`timeout=${c.getSessionTimeout()}`);
    ck.fact(`session_id_length=${c.getSessionId().length}`);
    ck.fact(`password_length=${c.getSessionPassword().length}`);
    ck.fact(`states=${c.states.join(',')}`);
};

checks.create_modes = async (ck) => {
    const c = await ck.client();
    await createFact(ck, c, 'persistent', ck.path, buf('root'));
    await createFact(ck, c, 'with_data', P(ck, '/p'), buf('data'), CreateMode.PERSISTENT);
    await createFact(ck, c, 'no_data', P(ck, '/nodata'));
    await createFact(ck, c, 'seq', P(ck, '/s-'), CreateMode.PERSISTENT_SEQUENTIAL);
    await createFact(ck, c, 'seq', P(ck, '/s-'), CreateMode.PERSISTENT_SEQUENTIAL);
    await createFact(ck, c, 'eph', P(ck, '/e'), CreateMode.EPHEMERAL);
    await createFact(ck, c, 'ephseq', P(ck, '/es-'), buf('x'), CreateMode.EPHEMERAL_SEQUENTIAL);
    // Flags the plain create opcode must not take: container (4) and TTL
    // (5, 6) need their own opcodes.
    await createFact(ck, c, 'container_flag', P(ck, '/c'), 4);
    await createFact(ck, c, 'ttl_flag', P(ck, '/t'), 5);
    await createFact(ck, c, 'bad_flag', P(ck, '/b'), 9);
    const r = await call(c, 'getData', P(ck, '/nodata'));
    ck.fact(`no_data_get=${r.err || (r.values[0] == null ? 'null' : JSON.stringify(r.values[0].toString()))}`);
    const k = await call(c, 'getChildren', ck.path);
    ck.fact(`children=${(k.values[0] || []).join(',')}`);
    const e = await call(c, 'exists', P(ck, '/e'));
    ck.fact(`eph_owner_is_session=${e.values[0] && e.values[0].ephemeralOwner.equals(c.getSessionId())}`);
};

checks.create_errors = async (ck) => {
    const c = await ck.client();
    await call(c, 'create', ck.path);
    await call(c, 'create', P(ck, '/e'), CreateMode.EPHEMERAL);
    await createFact(ck, c, 'exists', ck.path);
    await createFact(ck, c, 'no_parent', P(ck, '/nope/x'));
    await createFact(ck, c, 'under_ephemeral', P(ck, '/e/x'));
    await createFact(ck, c, 'bad_scheme', P(ck, '/acl'), [new ACL(Permission.ALL, new Id('nosuch', 'x'))]);
    await createFact(ck, c, 'bad_ip', P(ck, '/acl'), [new ACL(Permission.ALL, new Id('ip', 'not-an-ip'))]);
    await createFact(ck, c, 'auth_unauthenticated', P(ck, '/acl'), [new ACL(Permission.ALL, new Id('auth', ''))]);
    try {
        await call(c, 'create', ck.path + '//x');
        ck.fact('bad_path=sent');
    } catch (e) {
        ck.fact('bad_path=rejected by the client');
    }
};

checks.get_set = async (ck) => {
    const c = await ck.client();
    await call(c, 'create', ck.path, buf('v0'));
    let r = await call(c, 'getData', ck.path);
    ck.fact(`get=${r.values[0]} ${statText(r.values[1])}`);
    r = await call(c, 'setData', ck.path, buf('v1'), -1);
    ck.fact(`set_any=${r.err || statText(r.values[0])}`);
    r = await call(c, 'setData', ck.path, buf('v2'), 1);
    ck.fact(`set_v1=${r.err || statText(r.values[0])}`);
    r = await call(c, 'setData', ck.path, buf('v3'), 1);
    ck.fact(`set_stale=${r.err || statText(r.values[0])}`);
    r = await call(c, 'setData', ck.path, Buffer.alloc(0), -1);
    ck.fact(`set_empty=${r.err || statText(r.values[0])}`);
    r = await call(c, 'getData', ck.path);
    ck.fact(`get_after_empty=${r.values[0] == null ? 'null' : JSON.stringify(r.values[0].toString())} ${statText(r.values[1])}`);
    r = await call(c, 'setData', P(ck, '/missing'), buf('x'), -1);
    ck.fact(`set_missing=${r.err}`);
    r = await call(c, 'getData', P(ck, '/missing'));
    ck.fact(`get_missing=${r.err}`);
    r = await call(c, 'getData', '/zookeeper');
    ck.fact(`get_zookeeper=${r.err || JSON.stringify(String(r.values[0] || ''))} ${statText(r.values[1])}`);
    const big = Buffer.alloc(512 * 1024, 'z');
    r = await call(c, 'setData', ck.path, big, -1);
    ck.fact(`set_512k=${r.err || statText(r.values[0])}`);
    r = await call(c, 'getData', ck.path);
    ck.fact(`get_512k=${r.err || (r.values[0].equals(big) ? 'same' : 'different')}`);
};

checks.exists_children = async (ck) => {
    const c = await ck.client();
    await call(c, 'create', ck.path);
    for (const n of ['b', 'a', 'c']) await call(c, 'create', P(ck, '/' + n));
    let r = await call(c, 'exists', ck.path);
    ck.fact(`exists=${statText(r.values[0])}`);
    r = await call(c, 'exists', P(ck, '/missing'));
    ck.fact(`exists_missing=${r.err || r.values[0]}`);
    r = await call(c, 'getChildren', ck.path);
    ck.fact(`children=${r.values[0].join(',')} ${statText(r.values[1])}`);
    r = await call(c, 'getChildren', P(ck, '/missing'));
    ck.fact(`children_missing=${r.err}`);
    r = await call(c, 'getChildren', P(ck, '/a'));
    ck.fact(`children_leaf=[${r.values[0]}]`);
    r = await call(c, 'mkdirp', P(ck, '/deep/er/path'), buf('leaf'));
    ck.fact(`mkdirp=${r.err || rel(r.values[0])}`);
    // listSubTreeBFS and removeRecursive are the client's own helpers over
    // getChildren and delete; against Java 3.8.0 too, 1.1.3's listing stops
    // short of the deepest level, so removeRecursive gets NOT_EMPTY.
    r = await call(c, 'listSubTreeBFS', P(ck, '/deep'));
    ck.fact(`subtree=${(r.values[0] || []).map(rel).join(',')}`);
    r = await call(c, 'removeRecursive', P(ck, '/deep'));
    ck.fact(`remove_recursive=${r.err}`);
    r = await call(c, 'exists', P(ck, '/deep'));
    ck.fact(`deep_after=${!!r.values[0]}`);
};

checks.remove = async (ck) => {
    const c = await ck.client();
    await call(c, 'create', ck.path);
    await call(c, 'create', P(ck, '/k'));
    let r = await call(c, 'remove', ck.path, -1);
    ck.fact(`not_empty=${r.err}`);
    r = await call(c, 'remove', P(ck, '/k'), 4);
    ck.fact(`bad_version=${r.err}`);
    r = await call(c, 'remove', P(ck, '/k'), 0);
    ck.fact(`version0=${r.err}`);
    r = await call(c, 'remove', P(ck, '/k'), -1);
    ck.fact(`again=${r.err}`);
    r = await call(c, 'remove', ck.path, -1);
    ck.fact(`parent=${r.err}`);
    r = await call(c, 'remove', '/zookeeper', -1);
    ck.fact(`zookeeper=${r.err}`);
};

checks.acl = async (ck) => {
    const c = await ck.client();
    await call(c, 'create', ck.path, buf('x'));
    let r = await call(c, 'getACL', ck.path);
    ck.fact(`default=${aclText(r.values[0])} aversion=${r.values[1].aversion}`);
    const readOnly = [new ACL(Permission.READ, new Id('world', 'anyone'))];
    const two = [new ACL(Permission.READ | Permission.ADMIN, new Id('world', 'anyone')),
        new ACL(Permission.ALL, new Id('ip', '127.0.0.1'))];
    r = await call(c, 'setACL', ck.path, readOnly, 5);
    ck.fact(`set_bad_version=${r.err}`);
    r = await call(c, 'setACL', ck.path, two, 0);
    ck.fact(`set=${r.err || statText(r.values[0])}`);
    r = await call(c, 'getACL', ck.path);
    ck.fact(`get=${aclText(r.values[0])} aversion=${r.values[1].aversion}`);
    r = await call(c, 'setACL', ck.path, readOnly, -1);
    ck.fact(`set_read_only=${r.err || statText(r.values[0])}`);
    r = await call(c, 'setData', ck.path, buf('y'), -1);
    ck.fact(`write_read_only=${r.err}`);
    r = await call(c, 'create', P(ck, '/k'));
    ck.fact(`create_under_read_only=${r.err}`);
    r = await call(c, 'setACL', ck.path, ACL.OPEN_ACL_UNSAFE, -1);
    ck.fact(`set_without_admin=${r.err}`);
    r = await call(c, 'getACL', P(ck, '/missing'));
    ck.fact(`get_missing=${r.err}`);
    r = await call(c, 'getACL', '/zookeeper/config');
    ck.fact(`zookeeper_config=${r.err || aclText(r.values[0])}`);
};

checks.auth = async (ck) => {
    const a = await ck.client();
    const b = await ck.client();
    await call(a, 'create', ck.path);
    a.addAuthInfo('digest', buf('alice:secret'));
    const mine = [new ACL(Permission.ALL, new Id('auth', ''))];
    let r = await call(a, 'create', P(ck, '/private'), buf('secret data'), mine);
    ck.fact(`create=${r.err || rel(r.values[0])}`);
    r = await call(a, 'getACL', P(ck, '/private'));
    ck.fact(`acl=${aclText(r.values[0])}`);
    r = await call(a, 'getData', P(ck, '/private'));
    ck.fact(`owner_get=${r.err || r.values[0]}`);
    r = await call(b, 'getData', P(ck, '/private'));
    ck.fact(`other_get=${r.err}`);
    r = await call(b, 'setData', P(ck, '/private'), buf('x'), -1);
    ck.fact(`other_set=${r.err}`);
    r = await call(b, 'exists', P(ck, '/private'));
    ck.fact(`other_exists=${r.err || statText(r.values[0])}`);
    b.addAuthInfo('digest', buf('alice:wrong'));
    r = await call(b, 'getData', P(ck, '/private'));
    ck.fact(`other_wrong_password=${r.err}`);
    b.addAuthInfo('digest', buf('alice:secret'));
    r = await call(b, 'getData', P(ck, '/private'));
    ck.fact(`other_right_password=${r.err || r.values[0]}`);

    const bad = await ck.client();
    const failed = new Promise((resolve) => bad.once('authenticationFailed', () => resolve('authenticationFailed')));
    bad.addAuthInfo('nosuchscheme', buf('x'));
    ck.fact(`unknown_scheme=${await withTimeout(failed, 'authenticationFailed').catch((e) => e.message)}`);
    ck.fact(`unknown_scheme_state=${bad.getState().getName()}`);
};

checks.transaction = async (ck) => {
    const c = await ck.client();
    await call(c, 'create', ck.path);
    let r = await withTimeout(new Promise((resolve) => c.transaction()
        .create(P(ck, '/t'), buf('one'))
        .create(P(ck, '/t/s-'), CreateMode.PERSISTENT_SEQUENTIAL)
        .setData(P(ck, '/t'), buf('two'), 0)
        .check(P(ck, '/t'), 1)
        .create(P(ck, '/t/e'), CreateMode.EPHEMERAL)
        .remove(P(ck, '/t/e'), 0)
        .commit((err, results) => resolve({ err, results }))), 'commit');
    // type:err[:path][:version] per op.
    const resultText = (res) => (res || []).map((x) => [x.type, x.err || 0]
        .concat(x.path ? [rel(x.path)] : [])
        .concat(x.stat ? ['v' + x.stat.version] : []).join(':')).join(',');
    ck.fact(`ok=${r.err ? r.err.getName() : 'null'} results=${resultText(r.results)}`);
    r = await withTimeout(new Promise((resolve) => c.transaction()
        .create(P(ck, '/t2'))
        .setData(P(ck, '/t'), buf('x'), 9)
        .remove(P(ck, '/missing'))
        .commit((err, results) => resolve({ err, results }))), 'commit');
    ck.fact(`failing=${r.err ? r.err.getName() : 'null'} results=${resultText(r.results)}`);
    const e = await call(c, 'exists', P(ck, '/t2'));
    ck.fact(`t2_exists=${!!e.values[0]}`);
    r = await withTimeout(new Promise((resolve) => c.transaction()
        .check(P(ck, '/missing'))
        .commit((err, results) => resolve({ err, results }))), 'commit');
    ck.fact(`check_missing=${r.err ? r.err.getName() : 'null'} results=${resultText(r.results)}`);
    const g = await call(c, 'getData', P(ck, '/t'));
    ck.fact(`t=${g.values[0]} ${statText(g.values[1])}`);
};

checks.watches = async (ck) => {
    const a = await ck.client();
    const b = await ck.client();
    await call(a, 'create', ck.path);
    await call(a, 'create', P(ck, '/n'), buf('0'));
    const data = new EventLog();
    const kids = new EventLog();
    const ex = new EventLog();
    const exMissing = new EventLog();
    let r = await call(b, 'getData', P(ck, '/n'), data.watcher);
    ck.fact(`getData=${r.err || r.values[0]}`);
    r = await call(b, 'getChildren', P(ck, '/n'), kids.watcher);
    ck.fact(`getChildren=${r.err || r.values[0].length}`);
    r = await call(b, 'exists', P(ck, '/n'), ex.watcher);
    ck.fact(`exists=${r.err || !!r.values[0]}`);
    r = await call(b, 'exists', P(ck, '/later'), exMissing.watcher);
    ck.fact(`exists_missing=${r.err || r.values[0]}`);

    await call(a, 'setData', P(ck, '/n'), buf('1'), -1);
    await data.wait(1);
    await ex.wait(1);
    await call(a, 'setData', P(ck, '/n'), buf('2'), -1); // one-shot: no second event
    await call(a, 'create', P(ck, '/n/k'));
    await kids.wait(1);
    await call(a, 'create', P(ck, '/later'));
    await exMissing.wait(1);

    // Re-arm and delete: data and exists watchers see NODE_DELETED, the
    // child watcher of the parent NODE_CHILDREN_CHANGED.
    const data2 = new EventLog();
    const kids2 = new EventLog();
    const parent = new EventLog();
    await call(b, 'getData', P(ck, '/n/k'), data2.watcher);
    await call(b, 'getChildren', P(ck, '/n/k'), kids2.watcher);
    await call(b, 'getChildren', P(ck, '/n'), parent.watcher);
    await call(a, 'remove', P(ck, '/n/k'), -1);
    await data2.wait(1);
    await kids2.wait(1);
    await parent.wait(1);

    // The session's own change: the event comes before the reply.
    const own = new EventLog();
    await call(a, 'getData', P(ck, '/n'), own.watcher);
    await call(a, 'setData', P(ck, '/n'), buf('3'), -1);
    const beforeReply = own.events.length;
    // A sync on b flushes anything still on its way to it.
    await call(b, 'exists', '/');
    ck.fact(`data=${data.text()} children=${kids.text()} exists=${ex.text()} exists_missing=${exMissing.text()}`);
    ck.fact(`on_delete: data=${data2.text()} children=${kids2.text()} parent=${parent.text()}`);
    ck.fact(`own_change_events_before_reply=${beforeReply} ${own.text()}`);

    // A failed read leaves no watch.
    const none = new EventLog();
    r = await call(b, 'getData', P(ck, '/gone'), none.watcher);
    ck.fact(`getData_missing=${r.err}`);
    await call(a, 'create', P(ck, '/gone'));
    await call(b, 'exists', '/');
    ck.fact(`failed_read_watch=${none.text()}`);
};

checks.odd_paths = async (ck) => {
    // Path rules are the server's: long, non-ASCII, spaces, control
    // characters, characters outside the Basic Multilingual Plane.
    const c = await ck.client();
    await call(c, 'create', ck.path);
    const names = {
        long: 'x'.repeat(5000), huge: 'y'.repeat(300000), unicode: 'ünïcødé☃',
        space: 'with space', tab: 'tab\there', dot: 'dot.', dotdotx: '..x',
        latin1: '\u00ff', emoji: '\ud83d\ude00', del: 'del\u007f', nbsp: 'a\u00a0b',
        zookeeper: 'zookeeper', nul: 'a\u0000b', surrogate: 'a\ud800b', fffe: 'a\ufffeb',
    };
    for (const [label, name] of Object.entries(names)) {
        try {
            const r = await call(c, 'create', P(ck, '/' + name), buf('d'));
            ck.fact(`${label}=${r.err || 'ok'}`);
        } catch (e) {
            ck.fact(`${label}=refused by the client`);
        }
    }
    const k = await call(c, 'getChildren', ck.path);
    ck.fact(`children_lengths=${(k.values[0] || []).map((x) => x.length).join(',')}`);
};

// Proxy is a loopback proxy to the server whose connections can be cut:
// while cut it drops what it has and refuses new connections.
class Proxy {
    constructor() {
        const [host, port] = [HOST.slice(0, HOST.lastIndexOf(':')), Number(HOST.slice(HOST.lastIndexOf(':') + 1))];
        this.blocked = false;
        this.sockets = new Set();
        this.server = net.createServer((down) => {
            if (this.blocked) {
                down.destroy();
                return;
            }
            const up = net.connect(port, host);
            for (const [a, b] of [[down, up], [up, down]]) {
                this.sockets.add(a);
                a.on('data', (d) => b.write(d));
                a.on('error', () => b.destroy());
                a.on('close', () => {
                    this.sockets.delete(a);
                    b.destroy();
                });
            }
        });
    }

    listen() {
        return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => {
            this.addr = '127.0.0.1:' + this.server.address().port;
            resolve(this.addr);
        }));
    }

    cut() {
        this.blocked = true;
        for (const s of this.sockets) s.destroy();
    }

    allow() {
        this.blocked = false;
    }

    close() {
        this.cut();
        this.server.close();
    }
}

checks.reconnect_set_watches = async (ck) => {
    // A session's connection drops; while it is away another session
    // changes what it watches; when it is back (same session, SetWatches)
    // the server fires the watches whose nodes changed and keeps the rest.
    const proxy = new Proxy();
    const addr = await proxy.listen();
    const a = zookeeper.createClient(addr, { sessionTimeout: 10000, spinDelay: 100, retries: 0 });
    const states = [];
    a.on('state', (s) => states.push(s.getName()));
    await withTimeout(new Promise((resolve) => {
        a.once('connected', resolve);
        a.connect();
    }), 'connect through the proxy');
    ck.clients.push(a);
    const b = await ck.client();
    await call(b, 'create', ck.path);
    for (const n of ['data', 'kids', 'gone', 'same']) await call(b, 'create', P(ck, '/' + n), buf('0'));
    const log = new EventLog();
    await call(a, 'getData', P(ck, '/data'), log.watcher);
    await call(a, 'getChildren', P(ck, '/kids'), log.watcher);
    await call(a, 'exists', P(ck, '/later'), log.watcher);
    await call(a, 'getData', P(ck, '/gone'), log.watcher);
    await call(a, 'getData', P(ck, '/same'), log.watcher);
    const sid = a.getSessionId().toString('hex');
    const disconnected = new Promise((resolve) => a.once('disconnected', resolve));
    proxy.cut();
    await withTimeout(disconnected, 'disconnected');
    await call(b, 'setData', P(ck, '/data'), buf('1'), -1);
    await call(b, 'create', P(ck, '/kids/k'));
    await call(b, 'create', P(ck, '/later'));
    await call(b, 'remove', P(ck, '/gone'), -1);
    const back = new Promise((resolve) => a.once('connected', resolve));
    proxy.allow();
    await withTimeout(back, 'reconnected');
    await log.wait(4);
    ck.fact(`same_session=${a.getSessionId().toString('hex') === sid}`);
    ck.fact(`fired=${log.text()}`);
    await call(b, 'setData', P(ck, '/same'), buf('x'), -1);
    await log.wait(5);
    ck.fact(`kept=${log.events.slice(4).join(',')}`);
    ck.fact(`states=${states.join(',')}`);
    proxy.close();
};

checks.session_expiry = async (ck) => {
    // Kept away (by the proxy) past its 4 s timeout, a session expires:
    // its ephemeral goes, others' watches fire, and when it is back the
    // client is told EXPIRED.
    const proxy = new Proxy();
    const addr = await proxy.listen();
    const a = zookeeper.createClient(addr, { sessionTimeout: 4000, spinDelay: 100, retries: 0 });
    const states = [];
    a.on('state', (s) => states.push(s.getName()));
    await withTimeout(new Promise((resolve) => {
        a.once('connected', resolve);
        a.connect();
    }), 'connect through the proxy');
    ck.clients.push(a);
    const b = await ck.client();
    await call(b, 'create', ck.path);
    ck.fact(`timeout=${a.getSessionTimeout()}`);
    let r = await call(a, 'create', P(ck, '/eph'), CreateMode.EPHEMERAL);
    ck.fact(`eph=${r.err || rel(r.values[0])}`);
    const w = new EventLog();
    await call(b, 'exists', P(ck, '/eph'), w.watcher);
    proxy.cut();
    await w.wait(1);
    ck.fact(`watch=${w.text()}`);
    const expired = new Promise((resolve) => a.once('expired', resolve));
    proxy.allow();
    await withTimeout(expired, 'expired').catch((e) => ck.errors.push(e.message));
    ck.fact(`states=${states.join(',')}`);
    r = await call(b, 'exists', P(ck, '/eph'));
    ck.fact(`eph_after=${r.values[0]}`);
    proxy.close();
};

checks.session_close = async (ck) => {
    const a = await ck.client();
    const b = await ck.client();
    await call(b, 'create', ck.path);
    await call(a, 'create', P(ck, '/eph'), CreateMode.EPHEMERAL);
    const s = await call(a, 'create', P(ck, '/eseq-'), CreateMode.EPHEMERAL_SEQUENTIAL);
    const w = new EventLog();
    await call(b, 'exists', P(ck, '/eph'), w.watcher);
    const closed = new Promise((resolve) => a.once('disconnected', resolve));
    a.close();
    await withTimeout(closed, 'disconnected');
    await w.wait(1);
    ck.fact(`watch=${w.text()}`);
    let r = await call(b, 'exists', P(ck, '/eph'));
    ck.fact(`eph_after=${r.values[0]}`);
    r = await call(b, 'exists', s.values[0]);
    ck.fact(`eseq_after=${r.values[0]}`);
    ck.fact(`states=${a.states.join(',')}`);
};

async function main() {
    const only = new Set(process.argv.slice(4));
    const setup = await connect();
    await call(setup, 'mkdirp', ROOT);
    setup.close();
    let failed = false;
    for (const [name, fn] of Object.entries(checks)) {
        if (only.size && !only.has(name)) continue;
        const ck = new Check(name);
        const start = Date.now();
        try {
            await fn(ck);
        } catch (e) {
            ck.errors.push(`${e.name}: ${e.message}\n${e.stack}`);
        } finally {
            ck.close();
        }
        failed = failed || ck.errors.length > 0;
        console.log(JSON.stringify({
            check: name, facts: ck.facts, errors: ck.errors, seconds: (Date.now() - start) / 1000,
        }));
    }
    process.exit(failed ? 1 : 0);
}

main().catch((e) => {
    console.error(e);
    process.exit(2);
});
