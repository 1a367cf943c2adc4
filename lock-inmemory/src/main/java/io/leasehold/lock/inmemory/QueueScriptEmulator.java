package io.leasehold.lock.inmemory;

import java.util.List;
import java.util.Map;

/**
 * The scripts that keep a lock's wait queue ({@code acquire.lua}, {@code release.lua},
 * {@code handoff.lua}), transliterated line by line into Java over an {@link InMemoryStore}: the same
 * commands in the same order and the same replies. Their shared block ("queue") is the methods
 * after the scripts here, in the order the scripts define them; those that quorum-fair-acquire.lua
 * calls too are package-private, for {@link QuorumFairAcquireEmulator}.
 *
 * <p>Not threadsafe: called by {@link ScriptEmulator#run} holding the store's monitor.
 */
final class QueueScriptEmulator {

    /** KEYS of the three scripts: lock, fencing counter, queue, waiter leases, channel (and the marker). */
    private static final int LOCK = 1;

    private static final int COUNTER = 2;
    private static final int QUEUE = 3;
    private static final int WAITERS = 4;
    private static final int CHANNEL = 5;
    /** release.lua's and handoff.lua's KEYS[6]. */
    private static final int MARKER = 6;

    private final InMemoryStore store;
    private final ScriptEmulator scripts;

    QueueScriptEmulator(InMemoryStore store, ScriptEmulator scripts) {
        this.store = store;
        this.scripts = scripts;
    }

    /** acquire.lua. ARGV: owner, lease, counter TTL, waiter lease, publish command, place mode. */
    Object acquire(ScriptCall c) {
        String me = c.requiredArg(1);
        ScriptEmulator.LockValue held = scripts.readLock(c);
        if (held != null && held.owner().equals(me)) {
            if (held.hasSeq()) {
                return List.of(1L, held.token(), store.pttl(c.key(LOCK), c.nowMillis()));
            }
            scripts.pexpire(c, LOCK, 2);
            return List.of(1L, held.token(), c.integerArg(2, "tonumber"));
        }
        if (!queued(c)) {
            // nobody queued: a free lock is taken, a held one is contended (or its first waiter joins below)
            if (held == null) {
                return List.of(1L, grant(c, me, 2, 3), c.integerArg(2, "tonumber"));
            }
            if ("1".equals(c.arg(6))) {
                return List.of(0L, held.token(), store.pttl(c.key(LOCK), c.nowMillis()), 0L);
            }
        }
        checkKeys(c);
        long now = c.nowMillis();
        purge(c, now);
        String token;
        long pttl;
        if (held != null) {
            token = held.token();
            pttl = store.pttl(c.key(LOCK), now);
        } else {
            String head = head(c);
            if (head == null || head.equals(me)) {
                store.zrem(c.key(QUEUE), me, now);
                store.zrem(c.key(WAITERS), me, now);
                token = grant(c, me, 2, 3);
                expireQueue(c, now);
                return List.of(1L, token, c.integerArg(2, "tonumber"));
            }
            token = grantHead(c, 4, 3, 5);
            pttl = c.integerArg(4, "tonumber");
        }
        if ("1".equals(c.arg(6))) {
            expireQueue(c, now);
            return List.of(0L, token, pttl, 0L); // it only tried: no place
        }
        long placeLease =
                "2".equals(c.arg(6)) ? Math.max(pttl, 0) + c.integerArg(4, "tonumber") : c.integerArg(4, "tonumber");
        enqueue(c, me, now, placeLease);
        expireQueue(c, now);
        return List.of(0L, token, pttl, rank(c, me, now) + 1);
    }

    /** release.lua. ARGV: owner, counter TTL, grant window, publish command, marker TTL, and the owner a handoff granted to. */
    Object release(ScriptCall c) {
        ScriptEmulator.Get current = scripts.pcallGet(c, LOCK);
        String value = current.value();
        if (current.wrongType() || (value != null && value.indexOf(':') < 0)) {
            return -1L;
        }
        String me = c.requiredArg(1);
        String owner = value == null ? null : value.substring(0, value.indexOf(':'));
        if (!queued(c)) {
            // nobody queued
            if (owner == null) {
                return 0L;
            }
            if (!owner.equals(me)) {
                return movedOn(c, owner, me) ? 1L : -1L;
            }
            store.del(c.key(LOCK), c.nowMillis());
            scripts.publish(c, 4, CHANNEL, "released");
            return 1L;
        }
        checkQueue(c);
        // a foreign counter must not keep the owner from letting go: deleted all the same, granted to nobody
        boolean foreignCounter = !readableCounter(c);
        long now = c.nowMillis();
        if (!me.equals(owner)) { // a holder has no place to take out
            store.zrem(c.key(QUEUE), me, now);
            store.zrem(c.key(WAITERS), me, now);
        }
        purge(c, now);
        if (owner != null && !owner.equals(me)) {
            expireQueue(c, now);
            return movedOn(c, owner, me) ? 1L : -1L;
        }
        long released = owner != null ? 1L : 0L;
        // null when nobody waits; a grant replaces the released lock
        String grantedToken = foreignCounter ? null : grantHead(c, 3, 2, 4);
        if (released == 1L) {
            mark(c, me, now, c.integerArg(5, "tonumber"));
            if (grantedToken == null) {
                store.del(c.key(LOCK), now);
                scripts.publish(c, 4, CHANNEL, "released");
            }
        }
        expireQueue(c, now);
        return released;
    }

    /**
     * handoff.lua: the releasing owner's (ARGV[4]) release, and the lock granted to ARGV[1] in the
     * same step, or yielded to the head of the wait queue (ARGV[6]).
     */
    Object handoff(ScriptCall c) {
        String me = c.requiredArg(1);
        String releasing = c.arg(4);
        ScriptEmulator.LockValue held = scripts.readLock(c);
        if (held != null && held.owner().equals(me)) {
            if (held.hasSeq()) {
                return List.of(1L, held.token(), store.pttl(c.key(LOCK), c.nowMillis()), 1L);
            }
            scripts.pexpire(c, LOCK, 2);
            return List.of(1L, held.token(), c.integerArg(2, "tonumber"), 1L);
        }
        if (held != null && !held.owner().equals(releasing)) {
            long pttl = store.pttl(c.key(LOCK), c.nowMillis());
            if (releasing != null && marked(c, releasing, c.nowMillis())) {
                // an earlier send of this handoff yielded, and another owner took the lock since
                return List.of(0L, held.token(), pttl, 2L);
            }
            return List.of(0L, held.token(), pttl, -1L);
        }
        boolean queued = queued(c);
        if (queued) {
            checkKeys(c);
        } else {
            readCounter(c);
        }
        long released = held != null ? 1L : 0L;
        if (queued) {
            long now = c.nowMillis();
            if (held == null || "1".equals(c.arg(6))) {
                purge(c, now);
                String head = head(c);
                if (head != null && !head.equals(me)) {
                    if (held != null) {
                        mark(c, releasing, now, c.integerArg(2, "tonumber")); // the yield marker
                    }
                    String granted = grantHead(c, 7, 3, 5); // its grant replaces the released lock
                    enqueue(c, me, now, 2 * c.integerArg(7, "tonumber"));
                    expireQueue(c, now);
                    return List.of(0L, granted, c.integerArg(7, "tonumber"), released);
                }
            }
            // the new holder keeps no place, also when its ticket is gone (a lost queue key)
            long ticket = store.zrem(c.key(QUEUE), me, now);
            if (store.zrem(c.key(WAITERS), me, now) + ticket > 0) {
                expireQueue(c, now);
            }
        }
        String token = grant(c, me, 2, 3);
        return List.of(1L, token, c.integerArg(2, "tonumber"), released);
    }

    /**
     * mark(owner, now, ttl): the owner added to the release marker (a zset of releasing owners by
     * deadline) until now + ttl, lapsed ones dropped, the key's TTL the last deadline; a marker
     * key of another type is passed over (the script's pcalls).
     */
    private void mark(ScriptCall c, String owner, long now, long ttlMs) {
        String marker = c.key(MARKER);
        try {
            for (Map.Entry<String, Double> entry : store.zrange(marker, now)) {
                if (entry.getValue() <= now) {
                    store.zrem(marker, entry.getKey(), now);
                }
            }
        } catch (InMemoryStore.WrongTypeException foreign) {
            // pcall: passed over
        }
        try {
            store.zadd(marker, now + ttlMs, owner, now);
        } catch (InMemoryStore.WrongTypeException foreign) {
            // pcall: passed over
        }
        List<Map.Entry<String, Double>> all;
        try {
            all = store.zrange(marker, now);
        } catch (InMemoryStore.WrongTypeException foreign) {
            return;
        }
        if (!all.isEmpty()) {
            store.pexpire(
                    marker, Math.max((long) (double) all.get(all.size() - 1).getValue() - now, 1), now);
        }
    }

    /** marked(owner, now): the release marker names the owner with a deadline after now. */
    private boolean marked(ScriptCall c, String owner, long now) {
        try {
            Double deadline = store.zscore(c.key(MARKER), owner, now);
            return deadline != null && deadline > now;
        } catch (InMemoryStore.WrongTypeException foreign) {
            return false;
        }
    }

    /** EXISTS queue waiters > 0: whether anyone is queued (the queue keys come and go together). */
    private boolean queued(ScriptCall c) {
        long now = c.nowMillis();
        return !store.type(c.key(QUEUE), now).equals("none")
                || !store.type(c.key(WAITERS), now).equals("none");
    }

    /** release.lua's movedOn(): the owner a handoff granted to holds it, or the marker names the caller. */
    private boolean movedOn(ScriptCall c, String owner, String me) {
        return owner.equals(c.arg(6)) || marked(c, me, c.nowMillis());
    }

    /** checkKeys(): the counter readable (readCounter()), the queue keys zsets or absent. */
    void checkKeys(ScriptCall c) {
        readCounter(c);
        checkQueue(c);
    }

    /** {@code local _, err = readCounter()}: whether the counter is absent or a Leasehold counter. */
    private boolean readableCounter(ScriptCall c) {
        ScriptEmulator.Get counter = scripts.pcallGet(c, COUNTER);
        return !counter.wrongType() && (counter.value() == null || ScriptEmulator.isCounter(counter.value()));
    }

    /** checkQueue(): the queue keys zsets or absent. */
    void checkQueue(ScriptCall c) {
        for (int key = QUEUE; key <= WAITERS; key++) {
            String kind = store.type(c.key(key), c.nowMillis());
            if (!kind.equals("none") && !kind.equals("zset")) {
                throw scripts.foreign(c, key, "wait queue", "a zset");
            }
        }
    }

    /** readCounter(): the fencing counter, or null when absent; refused when foreign. */
    private String readCounter(ScriptCall c) {
        ScriptEmulator.Get counter = scripts.pcallGet(c, COUNTER);
        if (counter.wrongType()) {
            throw scripts.foreign(c, COUNTER, "fencing counter", "a string holding a decimal integer");
        }
        if (counter.value() != null && !ScriptEmulator.isCounter(counter.value())) {
            throw scripts.foreign(c, COUNTER, "fencing counter", "a decimal integer below 2^53 - 1");
        }
        return counter.value();
    }

    /** purge(now): drops the waiters whose lease ran out (deadline <= now). */
    void purge(ScriptCall c, long now) {
        for (Map.Entry<String, Double> waiter : store.zrange(c.key(WAITERS), now)) {
            if (waiter.getValue() <= now) {
                store.zrem(c.key(QUEUE), waiter.getKey(), now);
                store.zrem(c.key(WAITERS), waiter.getKey(), now);
            }
        }
    }

    /** grant(owner, px, counterTtl): the lock for owner with a fresh token; the token. */
    String grant(ScriptCall c, String owner, int pxArg, int counterTtlArg) {
        String tokenText = issueToken(c, counterTtlArg);
        scripts.setPx(c, LOCK, owner + ":" + tokenText, pxArg, "lease");
        store.tokenIssued(Long.parseLong(tokenText));
        return tokenText;
    }

    /** grant(owner, px, counterTtl) with a px the script computed from ARGV[pxArg]: the token. */
    String grant(ScriptCall c, String owner, long px, int pxArg, int counterTtlArg) {
        String tokenText = issueToken(c, counterTtlArg);
        scripts.setPx(c, LOCK, owner + ":" + tokenText, px, pxArg, "lease");
        store.tokenIssued(Long.parseLong(tokenText));
        return tokenText;
    }

    /** grant()'s first half: the fresh token, written to the counter (before the lock, as the script). */
    private String issueToken(ScriptCall c, int counterTtlArg) {
        long token = store.serverTimeMicros(c.clockMicros());
        String counter = readCounter(c);
        if (counter != null) {
            token = Math.max(Long.parseLong(counter) + 1, token);
        }
        String tokenText = Long.toString(token);
        scripts.setPx(c, COUNTER, tokenText, counterTtlArg, "counter idle TTL");
        return tokenText;
    }

    /** grantHead(window, counterTtl, publish): the free lock to the head waiter; its token, or null. */
    private String grantHead(ScriptCall c, int windowArg, int counterTtlArg, int publishArg) {
        String head = head(c);
        if (head == null) {
            return null;
        }
        long now = c.nowMillis();
        store.zrem(c.key(QUEUE), head, now);
        store.zrem(c.key(WAITERS), head, now);
        String token = grant(c, head, windowArg, counterTtlArg);
        scripts.publish(c, publishArg, CHANNEL, "granted " + head + (token == null ? "" : " " + token));
        return token;
    }

    /** enqueue(owner, now, lease): a place at the tail unless it has one; its deadline now + lease. */
    void enqueue(ScriptCall c, String owner, long now, long leaseMs) {
        if (store.zscore(c.key(QUEUE), owner, now) == null) {
            // the enqueue order: the server's TIME in µs, and always after the last ticket
            double ticket = c.clockMicros();
            List<Map.Entry<String, Double>> queue = store.zrange(c.key(QUEUE), now);
            if (!queue.isEmpty()) {
                ticket = Math.max(ticket, queue.get(queue.size() - 1).getValue() + 1);
            }
            store.zadd(c.key(QUEUE), ticket, owner, now);
        }
        store.zadd(c.key(WAITERS), now + leaseMs, owner, now);
    }

    /**
     * expireQueue(now): the queue keys live as long as the longest waiter lease in them; a member
     * scored +inf (another application's) is no deadline and is passed over, as is a queue of only
     * such; one scored far in the future gets at most 1e15 ms.
     */
    void expireQueue(ScriptCall c, long now) {
        List<Map.Entry<String, Double>> waiters = store.zrange(c.key(WAITERS), now);
        Double longest = null;
        for (Map.Entry<String, Double> waiter : waiters) {
            if (waiter.getValue() != Double.POSITIVE_INFINITY) {
                longest = waiter.getValue(); // (in score order: the last finite one is the longest)
            }
        }
        if (longest == null) {
            if (waiters.isEmpty()) {
                store.del(c.key(QUEUE), now);
            }
            return;
        }
        // (in doubles, as Lua: a foreign -inf gives 1, one far in the future at most 1e15 ms)
        long ttl = (long) Math.min(Math.max(longest - now, 1), 1e15);
        store.pexpire(c.key(QUEUE), ttl, now);
        store.pexpire(c.key(WAITERS), ttl, now);
    }

    /** ZRANGE queue 0 0: the head waiter, or null. */
    String head(ScriptCall c) {
        List<Map.Entry<String, Double>> queue = store.zrange(c.key(QUEUE), c.nowMillis());
        return queue.isEmpty() ? null : queue.get(0).getKey();
    }

    /** ZRANK queue member (0-based). */
    long rank(ScriptCall c, String member, long now) {
        List<Map.Entry<String, Double>> queue = store.zrange(c.key(QUEUE), now);
        for (int i = 0; i < queue.size(); i++) {
            if (queue.get(i).getKey().equals(member)) {
                return i;
            }
        }
        throw new IllegalStateException("member '" + member + "' was just added to " + c.key(QUEUE));
    }
}
