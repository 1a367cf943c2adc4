package io.leasehold.lock.inmemory;

import io.leasehold.lock.spi.Deployment;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link LockBackend} that keeps its data in memory: a stand-in for Redis in unit tests, with a
 * controllable clock and fault switches.
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock();
 * try (InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
 *      LockClient nodeA = LockClient.create(redis);
 *      LockClient nodeB = LockClient.create(redis.newNode())) {
 *     LockOptions noRenew = LockOptions.builder().autoRenew(false).build();
 *     Lease first = nodeA.lock("orders:42", noRenew).acquire(Duration.ofSeconds(1));
 *     clock.advance(noRenew.leaseTime());           // the lease runs out in the store
 *     Lease second = nodeB.lock("orders:42").acquire(Duration.ofSeconds(1));
 *     assert second.fencingToken() > first.fencingToken();
 *     redis.makeUnavailable();                      // now every call fails with a ConnectException
 * }
 * }</pre>
 *
 * <p><b>Faithful to the Lua scripts.</b> It runs the bundled scripts ({@code acquire},
 * {@code release}, {@code renew}, {@code extend}, {@code inspect}, {@code force-release}) by
 * emulating them command for command — the same keys, TTLs in milliseconds, lock value
 * {@code "<owner>:<token>"}, fencing counter with its idle TTL, tokens from the same hybrid logical
 * clock ({@code max(counter + 1, TIME in µs)}), replies of the same shape, the same answers for a
 * key that is not a Leasehold lock ({@link #writeForeignKey(String)}), and the same errors for bad
 * arguments — so code
 * that passes against it behaves the same against Redis. Any other script fails with an
 * {@link UnsupportedOperationException} that names it. Release notifications use sharded pub/sub
 * ({@link #shardedPubSub()} is true): a script told to {@code SPUBLISH} reaches subscribers, and,
 * as in Redis, one told to {@code PUBLISH} reaches none of them. Messages are delivered in order on
 * the daemon thread {@code leasehold-inmemory-pubsub}. Differences that no caller should rely on
 * are these: a key expires once its whole TTL has passed (Redis keeps it through the millisecond
 * in which PTTL reads 0); and the emulated {@code TIME} always reads above the highest token
 * issued, standing in for the microseconds a real server spends per acquisition, which keeps tokens
 * monotonic across {@link #flushAll()} and a rolled-back counter even when a {@link ManualClock}
 * stands still.
 *
 * <p><b>Time.</b> TTLs run on the backend's {@link Clock}: the system clock by default, or a
 * {@link ManualClock} given to {@link #withClock(Clock)}. Expiry is checked on every access, so a
 * moved clock is seen by the very next call.
 *
 * <p><b>Nodes.</b> {@link #newNode()} returns another backend on the same data, for simulating
 * several application nodes each with its own {@code LockClient}. Fault switches and data helpers
 * act on the shared store whichever node they are called on. Closing a node drops only its
 * subscriptions; closing the backend created by the constructor or {@link #withClock(Clock)} closes
 * the store, every node and the backend's threads.
 *
 * <p><b>Calls.</b> Without latency a script runs on the caller's thread and its future is complete
 * when {@link #eval} returns; with {@link #setLatency(Duration) latency} it runs, and its future
 * completes, on the daemon thread {@code leasehold-inmemory-latency}. A subscription is active when
 * {@link #subscribe} returns; with a {@link #setSubscribeLatency(Duration) subscribe latency} its
 * future completes later, on the same thread. No future is ever completed while the store's lock
 * is held.
 *
 * <p>This class is threadsafe.
 *
 * @see ManualClock
 * @see "lock-testkit's InMemoryFixture: this backend as a conformance suite fixture"
 */
public final class InMemoryLockBackend implements LockBackend {

    private static final long CLOSE_TIMEOUT_MILLIS = 5_000;
    /** The field and value of the hash {@link #writeForeignKey(String)} writes. */
    static final String FOREIGN_FIELD = "written-by";

    static final String FOREIGN_VALUE = "another application";

    private final InMemoryCore core;
    private final boolean root;
    private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A new, empty store on the system clock (UTC). */
    public InMemoryLockBackend() {
        this(new InMemoryCore(Clock.systemUTC()), true);
    }

    private InMemoryLockBackend(InMemoryCore core, boolean root) {
        this.core = core;
        this.root = root;
    }

    /** A new, empty store whose TTLs and server time follow {@code clock}, typically a {@link ManualClock}. */
    public static InMemoryLockBackend withClock(Clock clock) {
        return new InMemoryLockBackend(new InMemoryCore(clock), true);
    }

    /**
     * Another backend on this store — one simulated application node — sharing data, clock and
     * faults, with its own subscriptions; its {@link #close()} drops only those.
     *
     * @throws IllegalStateException when the store is closed
     */
    public InMemoryLockBackend newNode() {
        if (core.isClosed()) {
            throw new IllegalStateException("the in-memory backend is closed: cannot create a new node");
        }
        return new InMemoryLockBackend(core, false);
    }

    /** The clock this store's TTLs follow. */
    public Clock clock() {
        return core.clock;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("this in-memory backend node is closed: script '"
                            + Objects.requireNonNull(script, "script").name() + "' was not run"));
        }
        return core.eval(script, keys, args);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "this in-memory backend node is closed: cannot subscribe to channel '" + channel + "'"));
        }
        return core.subscribe(channel, listener, subscriptions::remove).thenApply(subscription -> {
            subscriptions.add(subscription);
            if (closed.get()) {
                subscription.unsubscribe(); // lost a race with close(): leave nothing behind
            }
            return subscription;
        });
    }

    /** Always true: subscriptions are sharded, and the scripts should {@code SPUBLISH}. */
    @Override
    public CompletableFuture<Boolean> shardedPubSub() {
        return CompletableFuture.completedFuture(true);
    }

    /**
     * Ends this node's subscriptions; on the backend that created the store, also fails calls still
     * waiting out a latency, ends every node's subscriptions and stops the backend's threads.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        subscriptions.forEach(Subscription::unsubscribe);
        if (root) {
            core.close(CLOSE_TIMEOUT_MILLIS);
        }
    }

    // ---- fault switches: they act on the whole store, whichever node they are called on ----

    /**
     * Makes every call fail fast with a {@link java.net.ConnectException} — scripts (also those
     * waiting out a latency) and new subscriptions — until {@link #makeAvailable()}. Existing
     * subscriptions stay, but nothing can publish meanwhile.
     */
    public void makeUnavailable() {
        core.faults.makeUnavailable();
    }

    /**
     * Ends {@link #makeUnavailable()}. Like a driver that has reconnected, the backend then calls
     * {@link MessageListener#onResubscribed(String)} on every subscription.
     */
    public void makeAvailable() {
        core.makeAvailable();
    }

    /** False between {@link #makeUnavailable()} and {@link #makeAvailable()}. */
    public boolean isAvailable() {
        return !core.faults.unavailable();
    }

    /**
     * Freezes the store, as a {@code SIGSTOP}ped Redis: from now on script calls (also those waiting
     * out a latency) and subscribe confirmations are neither run nor answered, and no caller is told
     * anything, until {@link #thaw()}. Never blocks the caller.
     */
    public void freeze() {
        core.freeze();
    }

    /** Ends {@link #freeze()}: the calls that waited run now, in the order they arrived, and are answered. */
    public void thaw() {
        core.thaw();
    }

    /**
     * Delays every later script call by {@code latency} (on a scheduler, never blocking the caller)
     * before it runs; {@link Duration#ZERO} removes the delay.
     *
     * @throws IllegalArgumentException when {@code latency} is negative
     */
    public void setLatency(Duration latency) {
        core.faults.setLatency(latency);
    }

    /**
     * Makes every later {@link #subscribe} slow to confirm: the subscription is active at once (a
     * message published meanwhile is delivered), but its future completes only after
     * {@code latency}, on the daemon thread {@code leasehold-inmemory-latency}, never blocking the
     * caller; {@link Duration#ZERO} removes the delay. A confirmation still pending when the backend
     * closes fails with an {@link IllegalStateException}.
     *
     * @throws IllegalArgumentException when {@code latency} is negative
     */
    public void setSubscribeLatency(Duration latency) {
        core.faults.setSubscribeLatency(latency);
    }

    /**
     * The next script call to run executes in the store, but its future never completes, as if the
     * reply were lost on the way. Calling this n times loses the next n replies.
     */
    public void loseNextReply() {
        core.faults.loseNextReply();
    }

    /**
     * Clears both latencies, unavailability (as {@link #makeAvailable()} does) and pending lost
     * replies. Calls and confirmations already waiting out a latency keep waiting.
     */
    public void resetFaults() {
        core.resetFaults();
    }

    // ---- data: direct access to the store, as an operator with redis-cli would have ----

    /** Expires {@code key} now, as if its TTL had run out; true when it existed. No message is published. */
    public boolean expireNow(String key) {
        Objects.requireNonNull(key, "key");
        return core.admin(now -> core.store().pexpire(key, 0, now) == 1);
    }

    /** Deletes {@code key} (DEL); true when it existed. No message is published. */
    public boolean deleteKey(String key) {
        Objects.requireNonNull(key, "key");
        return core.admin(now -> core.store().del(key, now));
    }

    /**
     * Sets {@code key} to {@code value} without a TTL, replacing whatever it held (SET), e.g. to roll a
     * fencing counter back as a promoted replica that missed the latest acquisitions would have it.
     */
    public void writeKey(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        core.admin(now -> {
            core.store().set(key, value);
            return null;
        });
    }

    /** Sets the field {@code field} of the hash {@code key} to {@code value} (HSET), e.g. a quorum record's floor. */
    public void writeHashField(String key, String field, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(value, "value");
        core.admin(now -> {
            core.store().hset(key, field, value, now);
            return null;
        });
    }

    /**
     * Adds {@code member} with {@code score} to the sorted set {@code key} (ZADD), e.g. a member of
     * another application scored {@code +inf} in a wait queue's keys.
     *
     * @throws IllegalArgumentException if {@code score} is NaN, which Redis refuses too
     */
    public void writeSortedSetMember(String key, double score, String member) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(member, "member");
        if (Double.isNaN(score)) {
            throw new IllegalArgumentException("score must be a number, but was NaN (key '" + key + "')");
        }
        core.admin(now -> {
            core.store().zadd(key, score, member, now);
            return null;
        });
    }

    /**
     * Replaces {@code key} with a hash, atomically ({@code DEL}, then {@code HSET key field value}),
     * as a foreign application writing under the lock prefix would. {@link #get(String)} on it then
     * fails, as {@code GET} does in Redis.
     */
    public void writeForeignKey(String key) {
        Objects.requireNonNull(key, "key");
        core.admin(now -> {
            core.store().del(key, now);
            core.store().hset(key, FOREIGN_FIELD, FOREIGN_VALUE, now);
            return null;
        });
    }

    /** Loses every key — locks, fencing counters, quorum records — as FLUSHALL does; the server process stays. */
    public void flushAll() {
        core.admin(now -> {
            core.store().clear();
            return null;
        });
    }

    /**
     * Restarts the emulated server without persistence: every key is lost and the server process has a
     * new {@code run_id}, which a quorum's member checks (quorum-enlist.lua). Faults and subscriptions stay.
     */
    public void restartWithoutPersistence() {
        core.admin(now -> {
            core.store().restart();
            return null;
        });
    }

    /** PTTL of {@code key}: remaining milliseconds, -1 when it has no TTL, -2 when it does not exist. */
    public long pttl(String key) {
        Objects.requireNonNull(key, "key");
        return core.admin(now -> core.store().pttl(key, now));
    }

    /** Whether {@code key} exists (and has not expired). */
    public boolean exists(String key) {
        Objects.requireNonNull(key, "key");
        return core.admin(now -> core.store().exists(key, now));
    }

    /**
     * The value of {@code key}, e.g. {@code "<owner>:<token>"} for a lock or the counter of a fence key.
     *
     * @throws IllegalStateException with Redis's {@code WRONGTYPE} error when the key holds a hash
     *     ({@link #writeForeignKey(String)})
     */
    public Optional<String> get(String key) {
        Objects.requireNonNull(key, "key");
        return Optional.ofNullable(core.admin(now -> core.store().get(key, now)));
    }

    /**
     * The field {@code field} of the hash {@code key} (HGET), e.g. the floor of a quorum node's record;
     * empty when the key or the field is absent.
     *
     * @throws IllegalStateException with Redis's {@code WRONGTYPE} error when the key holds no hash
     */
    public Optional<String> hashField(String key, String field) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(field, "field");
        return Optional.ofNullable(core.admin(now -> core.store().hget(key, field, now)));
    }

    /**
     * The members of the sorted set {@code key} in score order (ZRANGE key 0 -1), e.g. the waiting
     * owners of a lock's wait queue; empty when it does not exist.
     */
    public List<String> sortedSetMembers(String key) {
        Objects.requireNonNull(key, "key");
        return core.admin(now ->
                core.store().zrange(key, now).stream().map(Map.Entry::getKey).toList());
    }

    /**
     * The scores of the sorted set {@code key} by member (ZRANGE key 0 -1 WITHSCORES, in score order),
     * e.g. the waiter leases' deadlines (store milliseconds) of a lock's wait queue; empty when it
     * does not exist.
     */
    public Map<String, Double> sortedSetScores(String key) {
        Objects.requireNonNull(key, "key");
        return core.admin(now -> {
            Map<String, Double> scores = new LinkedHashMap<>();
            core.store().zrange(key, now).forEach(entry -> scores.put(entry.getKey(), entry.getValue()));
            return scores;
        });
    }

    /** Every live key, sorted. */
    public Set<String> keys() {
        return core.admin(now -> core.store().keys(now));
    }

    /** How many active subscriptions, over all nodes, listen on {@code channel}. */
    public int subscriberCount(String channel) {
        Objects.requireNonNull(channel, "channel");
        return core.hub.subscriberCount(channel);
    }

    /** {@link Deployment#STANDALONE}: one store, as one server. */
    @Override
    public Deployment deployment() {
        return Deployment.STANDALONE;
    }

    @Override
    public String toString() {
        return "InMemoryLockBackend[" + (root ? "root" : "node") + (closed.get() ? ", closed" : "") + "]";
    }
}
