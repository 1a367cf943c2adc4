package io.leasehold.lock.inmemory;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;

/**
 * quorum-fair-acquire.lua, emulated line for line (see its header): phase 1 of a fairLock acquisition
 * over a quorum of independent masters, on one member: the lock for an owner where it is free and the
 * waiter heads this member's quorum queue (for a grant window, the place kept), else the waiter's place
 * there, ordered by the ticket the quorum chose. The script carries acquire.lua's shared block ("queue"), so the helpers are
 * {@link QueueScriptEmulator}'s, not a copy. Called by {@link ScriptEmulator} under the store's lock,
 * so each call is atomic as a script is.
 */
final class QuorumFairAcquireEmulator {

    /** KEYS: lock, fencing counter, quorum queue, waiter leases (the queue helpers' layout). */
    private static final int LOCK = 1;

    private static final int QUEUE = 3;
    private static final int WAITERS = 4;
    /** ARGV[1] '': the waiter ARGV[4] leaves. */
    private static final String LEAVES = "";
    /** A waiter that takes no place: ARGV[4] ''. */
    private static final String NO_WAITER = "";
    /** ARGV[6] '': the quorum chose no ticket yet. */
    private static final String NO_TICKET = "";

    /** The token of a free lock and the ticket of a reply without a place: the string '0', as the script's. */
    private static final String ZERO = "0";

    private final InMemoryStore store;
    private final ScriptEmulator scripts;
    private final QueueScriptEmulator queue;

    QuorumFairAcquireEmulator(InMemoryStore store, ScriptEmulator scripts, QueueScriptEmulator queue) {
        this.store = store;
        this.scripts = scripts;
        this.queue = queue;
    }

    /** quorum-fair-acquire.lua. ARGV: owner, lease, counter TTL, waiter, waiter lease, ticket. */
    Object acquire(ScriptCall c) {
        String me = c.requiredArg(1);
        if (me.equals(LEAVES)) {
            // the waiter leaves: its place is taken out, nothing else
            queue.checkQueue(c);
            long now = c.nowMillis();
            String waiter = c.requiredArg(4);
            store.zrem(c.key(QUEUE), waiter, now);
            store.zrem(c.key(WAITERS), waiter, now);
            queue.expireQueue(c, now);
            return List.of(0L);
        }
        ScriptEmulator.LockValue held = scripts.readLock(c);
        if (held != null && held.owner().equals(me)) {
            if (held.hasSeq()) {
                return List.of(1L, held.token(), store.pttl(c.key(LOCK), c.nowMillis()));
            }
            long window = grantWindow(c);
            store.pexpire(c.key(LOCK), window, c.nowMillis());
            return List.of(1L, held.token(), window);
        }
        queue.checkKeys(c);
        String ticket = c.requiredArg(6);
        if (!ticket.equals(NO_TICKET) && !ScriptEmulator.isCounter(ticket)) { // (a counter's rule too)
            throw c.error("ERR ticket must be a decimal integer below 2^53 - 1, but was '" + ticket + "'", "ARGV[6]");
        }
        long now = c.nowMillis();
        queue.purge(c, now);
        String waiter = c.requiredArg(4);
        if (waiter.equals(NO_WAITER)) {
            // no place: granted only when the lock is free and nobody waits
            if (held == null && !store.exists(c.key(QUEUE), now)) {
                String token = queue.grant(c, me, 2, 3);
                return List.of(1L, token, c.integerArg(2, "tonumber"));
            }
            queue.expireQueue(c, now);
            if (held != null) {
                return List.of(0L, held.token(), store.pttl(c.key(LOCK), now), 0L, ZERO);
            }
            return List.of(0L, ZERO, c.integerArg(5, "tonumber"), 0L, ZERO);
        }
        long waiterLease;
        if (!ticket.equals(NO_TICKET)) {
            // the quorum's ticket: the same place on every member (a re-score when it has one here)
            store.zadd(c.key(QUEUE), Long.parseLong(ticket), waiter, now);
            waiterLease = c.integerArg(5, "tonumber"); // (read after the first ZADD, as the script does)
            store.zadd(c.key(WAITERS), now + waiterLease, waiter, now);
        } else {
            waiterLease = c.integerArg(5, "tonumber");
            queue.enqueue(c, waiter, now, waiterLease);
        }
        if (held == null && waiter.equals(queue.head(c))) {
            // the place stays until the quorum's leave after its commit (see the script)
            long window = grantWindow(c);
            String token = queue.grant(c, me, window, 2, 3);
            queue.expireQueue(c, now);
            return List.of(1L, token, window);
        }
        String token;
        long pttl;
        if (held != null) {
            token = held.token();
            pttl = store.pttl(c.key(LOCK), now);
        } else {
            token = ZERO;
            pttl = waiterLease;
        }
        queue.expireQueue(c, now);
        return List.of(0L, token, pttl, queue.rank(c, waiter, now) + 1, score(store.zscore(c.key(QUEUE), waiter, now)));
    }

    /**
     * The script's grantWindow(): the lease (ARGV[2]) for an attempt without a place, else the lease or
     * the waiter lease (ARGV[5]), whichever is shorter.
     */
    private static long grantWindow(ScriptCall c) {
        long lease = c.integerArg(2, "tonumber");
        if (c.requiredArg(4).equals(NO_WAITER)) {
            return lease;
        }
        return Math.min(lease, c.integerArg(5, "tonumber"));
    }

    /**
     * ZSCORE's reply, as Redis formats a score ({@code %.17g}): an integer (every ticket the scripts
     * write) in plain digits, infinities as {@code inf} and {@code -inf}; a fraction (only another
     * application's score could be one) to 17 significant digits.
     */
    private static String score(double score) {
        if (Double.isInfinite(score)) {
            return score > 0 ? "inf" : "-inf";
        }
        if (score == Math.rint(score) && Math.abs(score) < 1e17) {
            return Long.toString((long) score);
        }
        return new BigDecimal(score)
                .round(new MathContext(17))
                .stripTrailingZeros()
                .toString();
    }
}
