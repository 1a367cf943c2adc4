package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.spi.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockBackend} over a quorum of N ≥ 3 independent Redis masters (Redlock's setting, with
 * fencing tokens that rise without trusting clocks): each script call is sent to every member in
 * parallel, and one reply stands for the majority's, M = N/2 + 1 (docs/design/quorum-locks.md).
 *
 * <pre>{@code
 * LockBackend quorum = QuorumBackend.of(b1, b2, b3);   // each one independent master's backend
 * LockClient client = LockClient.builder(quorum).build();
 * }</pre>
 *
 * <p><b>What it guarantees</b>, with a majority of the members up and reachable: a lease is granted
 * only once a majority granted it and then committed its fencing token, which is above every token
 * committed on any of them before (see {@link QuorumAcquire}); a renewal or extend counts when a majority
 * confirms it, and is reported {@link LockBackend#CONFIRMED_PARTIALLY confirmed partially} (the lease
 * {@code UNCERTAIN}) when some member did not (see {@link QuorumRenewals}); a release counts when a
 * majority released it or found it gone (see {@link QuorumRelease}). With a majority down, every call
 * fails with a transient {@link QuorumUnavailableException} and nothing is granted.
 *
 * <p><b>A member that lost its data</b> (a restart without persistence, a failover, {@code FLUSHALL}):
 * detected by its quorum record (the server's {@code run_id}, checked inside every commit), it sits out
 * for the {@link Builder#maxLeaseTime largest lease} before it grants again, and comes back with a floor
 * no lower than any token committed before (see {@code QuorumEnlistment}). A majority losing its data at
 * once looks like a new quorum and is not detected.
 *
 * <p><b>Bad configuration</b>: fewer than 3 members, or one backend instance twice, is refused when
 * the quorum is built. Two members that are the same server under two backends (their probes answer
 * the same {@code run_id}), or a member that may evict keys ({@code maxmemory} above 0 with a
 * {@code maxmemory-policy} other than {@code noeviction}: an evicted lease key loses a lock silently),
 * are found when the members are enlisted: every acquisition then fails with a
 * {@link QuorumUnavailableException} that is not transient, naming the rule, the members and their
 * values, until an enlistment finds it fixed (a member at fault is probed again every second).
 *
 * <p>A member that is a Sentinel-managed master or a Redis Cluster ({@link LockBackend#deployment()}) is
 * refused when the quorum is built.
 *
 * <p><b>Fair locks</b> ({@code fairLock}): each member keeps the fair waiters' places in a queue of its
 * own ({@code :quorum-queue}), ordered by a ticket this client chose for each waiter (the largest of
 * the members' first tickets, sent with the waiter's later attempts, see {@code FairWaiters}), so that
 * every member orders them alike; a member grants only the head of its queue, and never hands a lock
 * over. See {@link QuorumAcquire} and quorum-fair-acquire.lua.
 *
 * <p>Not yet built: quiet clean-ups after a split vote (R9), background resends of a release to a
 * member that did not answer. The engine gives every acquire attempt on this backend an owner of its own
 * (R3), so that a clean-up here, which releases by owner, never meets a later attempt's lock.
 *
 * <p><b>Ownership.</b> The quorum owns its members: {@link #close()} closes every one of them.
 *
 * <p><b>Threads.</b> No method blocks its caller. Futures complete on the threads that complete the
 * members' futures (their drivers' I/O threads), or on the common pool when a timer of the quorum's runs out (a straggling member's grace, a
 * patience); the engine never blocks there. This class is threadsafe.
 */
public final class QuorumBackend implements LockBackend {

    /**
     * How long a call that a majority answered waits for the members still out, so that a reply a
     * moment behind the majority's still counts (a phase-1 grant kept, a renewal confirmed by all).
     */
    static final Duration STRAGGLER_GRACE = Duration.ofMillis(50);

    /** The largest lease a quorum built without {@link Builder#maxLeaseTime} takes. */
    public static final Duration DEFAULT_MAX_LEASE_TIME = Duration.ofMinutes(5);

    private final QuorumMembers members;
    private final LeaseCap leaseCap;
    private final QuorumAcquire acquire;
    private final QuorumRenewals renewals;
    private final QuorumRelease release;
    private final ReleaseResends releaseResends;
    private final QuorumInspect inspect;

    private QuorumBackend(QuorumMembers members, Duration maxLeaseTime) {
        this.members = members;
        this.leaseCap = new LeaseCap(maxLeaseTime);
        FairWaiters fairWaiters = new FairWaiters();
        this.releaseResends = new ReleaseResends(members, leaseCap.maxLeaseMs());
        ReleasedOwners released = new ReleasedOwners();
        this.acquire = new QuorumAcquire(
                members,
                new QuorumEnlistment(members, leaseCap.maxLeaseMs()),
                STRAGGLER_GRACE,
                fairWaiters,
                releaseResends,
                new LeaseSpread(members, new QuorumRestore(members, STRAGGLER_GRACE, released, releaseResends)));
        this.renewals = new QuorumRenewals(members, STRAGGLER_GRACE, released, releaseResends);
        this.release = new QuorumRelease(members, STRAGGLER_GRACE, released, fairWaiters, releaseResends);
        this.inspect = new QuorumInspect(members, STRAGGLER_GRACE);
    }

    /**
     * A quorum of {@code members}, each the backend of one independent master (a standalone server),
     * with the {@link #DEFAULT_MAX_LEASE_TIME default largest lease}; see {@link #builder(LockBackend...)}.
     *
     * @param members the members, at least 3; the quorum owns them from now on (its {@link #close()} closes them)
     * @return the quorum
     *
     * @throws IllegalArgumentException when there are fewer than 3 members
     *     ({@code "a quorum needs at least 3 nodes, but was 2"}), a member is null, or the same backend
     *     instance is given twice; the message names the rule, the value and the offending member
     */
    public static QuorumBackend of(LockBackend... members) {
        return builder(members).build();
    }

    /**
     * A quorum of {@code members}; see {@link #of(LockBackend...)}. The list is copied.
     *
     * @param members the members, at least 3; the quorum owns them from now on (its {@link #close()} closes them)
     * @return the quorum
     *
     * @throws IllegalArgumentException as {@link #of(LockBackend...)}
     */
    public static QuorumBackend of(List<? extends LockBackend> members) {
        return builder(members).build();
    }

    /**
     * A builder of a quorum of {@code members}, for a largest lease other than the default.
     *
     * @param members the members, at least 3 (checked by {@link Builder#build()})
     * @return the builder
     */
    public static Builder builder(LockBackend... members) {
        if (members == null) {
            throw new IllegalArgumentException("members must not be null");
        }
        return builder(Arrays.asList(members));
    }

    /**
     * A builder of a quorum of {@code members}; see {@link #builder(LockBackend...)}. The list is copied.
     *
     * @param members the members, at least 3 (checked by {@link Builder#build()})
     * @return the builder
     */
    public static Builder builder(List<? extends LockBackend> members) {
        return new Builder(members == null ? null : new ArrayList<>(members));
    }

    /** Builds a {@link QuorumBackend}; not threadsafe. */
    public static final class Builder {

        private final @Nullable List<LockBackend> members;
        private Duration maxLeaseTime = DEFAULT_MAX_LEASE_TIME;

        private Builder(@Nullable List<LockBackend> members) {
            this.members = members;
        }

        /**
         * The largest lease the quorum grants, extends or renews to (default {@link #DEFAULT_MAX_LEASE_TIME}):
         * a member that lost its data (a restart without persistence, a failover, {@code FLUSHALL}) sits out
         * this long, plus the drift allowance, before it grants again (Redlock's delayed restart), so that
         * every lease it may have granted has run out. A longer lease is refused with an
         * {@link IllegalArgumentException} naming this limit and the lock. Every client of the same members
         * must use the same value: each member's record holds it, and an acquisition by a client configured
         * otherwise fails with an {@link IllegalStateException} naming both values.
         *
         * @param maxLeaseTime greater than 0
         * @return this builder
         * @throws IllegalArgumentException when {@code maxLeaseTime} is null, zero or negative
         */
        public Builder maxLeaseTime(Duration maxLeaseTime) {
            if (maxLeaseTime == null || maxLeaseTime.isZero() || maxLeaseTime.isNegative()) {
                throw new IllegalArgumentException(
                        "maxLeaseTime must be greater than 0, but was " + maxLeaseTime + " (quorum)");
            }
            this.maxLeaseTime = maxLeaseTime;
            return this;
        }

        /**
         * The quorum.
         *
         * @return the quorum, which owns its members from now on
         * @throws IllegalArgumentException as {@link QuorumBackend#of(LockBackend...)}
         */
        public QuorumBackend build() {
            return new QuorumBackend(QuorumMembers.of(members), maxLeaseTime);
        }
    }

    /**
     * The largest lease this quorum takes; see {@link Builder#maxLeaseTime}.
     *
     * @return the largest lease
     */
    public Duration maxLeaseTime() {
        return Duration.ofMillis(leaseCap.maxLeaseMs());
    }

    /** How many members a release is being sent again to, in the background (for tests). */
    int pendingReleaseResends() {
        return releaseResends.pending();
    }

    /** {@link #maxLeaseTime()}: the engine refuses a longer min-hold time when a lock is made. */
    @Override
    public java.util.Optional<Duration> leaseCap() {
        return java.util.Optional.of(maxLeaseTime());
    }

    /**
     * The members, in the order given.
     *
     * @return an unmodifiable list of the members
     */
    public List<LockBackend> members() {
        return members.all();
    }

    /**
     * Runs one of the engine's scripts over the quorum, by its {@link LuaScript#name() name}:
     * acquire (two phases), renew and extend, release and force-release, inspect. handoff.lua, which the
     * engine never sends to a composed backend, and any other script fail the future with an
     * {@link IllegalStateException} naming the script. Never blocks.
     */
    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        Objects.requireNonNull(script, "script");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(args, "args");
        try {
            IllegalArgumentException tooLong = leaseCap.check(script.name(), keys, args);
            if (tooLong != null) {
                return CompletableFuture.failedFuture(tooLong);
            }
            switch (script.name()) {
                case ScriptNames.ACQUIRE:
                    return acquire.acquire(script, keys, args);
                case ScriptNames.RENEW:
                    return renewals.renew(script, keys, args);
                case ScriptNames.EXTEND:
                    return renewals.extend(script, keys, args);
                case ScriptNames.RELEASE:
                    return release.release(script, keys, args);
                case ScriptNames.FORCE_RELEASE:
                    return release.forceRelease(script, keys, args);
                case ScriptNames.INSPECT:
                    return inspect.inspect(script, keys, args);
                case ScriptNames.HANDOFF:
                    return CompletableFuture.failedFuture(new IllegalStateException("a quorum does not run script '"
                            + script.name() + "': its grants are composed, and a handoff would grant per member"
                            + " (the engine never sends it to such a backend)"));
                default:
                    return CompletableFuture.failedFuture(
                            new IllegalStateException("a quorum does not know script '" + script.name() + "' (it runs "
                                    + List.of(
                                            ScriptNames.ACQUIRE,
                                            ScriptNames.RENEW,
                                            ScriptNames.EXTEND,
                                            ScriptNames.RELEASE,
                                            ScriptNames.FORCE_RELEASE,
                                            ScriptNames.INSPECT)
                                    + ")"));
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Subscribes {@code listener} on every member; completes once a majority's subscriptions are active
     * (see {@link QuorumSubscription}). The listener hears every member's messages, on the members'
     * delivery threads, and must not block.
     */
    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(listener, "listener");
        return QuorumSubscription.subscribe(members, channel, listener);
    }

    /**
     * Always {@code false}, a fixed value: each member may use its own pub/sub mode, so every script
     * that publishes (acquire, release, force-release, and extend when it names the release channel)
     * has its publish command replaced, per member, by that member's own ({@code SPUBLISH} where
     * {@link LockBackend#shardedPubSub()} is true, else {@code PUBLISH}), and each member subscribes in
     * its own mode. What the engine passes is ignored.
     */
    @Override
    public CompletableFuture<Boolean> shardedPubSub() {
        return CompletableFuture.completedFuture(false);
    }

    /**
     * Whether {@code failure} of a call is transient: this quorum's own "no majority" failure
     * ({@link QuorumUnavailableException}) says so itself (transient when some member's failure was);
     * a member's failure passed on as it is, as that member judges it.
     */
    @Override
    public boolean isTransient(Throwable failure) {
        return members.isTransient(failure);
    }

    /** True: a grant is composed of a majority of the members' grants. */
    @Override
    public boolean grantsAreComposed() {
        return true;
    }

    /** {@link io.leasehold.lock.spi.Deployment#QUORUM}. */
    @Override
    public io.leasehold.lock.spi.Deployment deployment() {
        return io.leasehold.lock.spi.Deployment.QUORUM;
    }

    /** True: a renewal or extend confirmed by a majority but not by every member answers {@value #CONFIRMED_PARTIALLY}. */
    @Override
    public boolean confirmsPartially() {
        return true;
    }

    /**
     * Closes every member (the quorum owns them), each even when another's close fails; the first
     * failure is thrown with the others suppressed. Whether a member's close blocks is up to the member.
     */
    @Override
    public void close() {
        releaseResends.close();
        RuntimeException first = null;
        for (LockBackend member : members.all()) {
            try {
                member.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        members.timer().close();
        if (first != null) {
            throw first;
        }
    }

    /** Closes every member without blocking the caller ({@link LockBackend#closeAsync()} of each); completes when all did. */
    @Override
    public CompletableFuture<Void> closeAsync() {
        releaseResends.close();
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (LockBackend member : members.all()) {
            try {
                closing.add(member.closeAsync());
            } catch (RuntimeException e) {
                closing.add(CompletableFuture.failedFuture(e));
            }
        }
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new))
                .whenComplete((done, failure) -> members.timer().close());
    }

    /** How many of the quorum's timers (graces, patiences, give-ups) are pending: for tests and diagnostics. */
    int pendingTimers() {
        return members.timer().pending();
    }

    @Override
    public String toString() {
        return "QuorumBackend" + members.all();
    }
}
