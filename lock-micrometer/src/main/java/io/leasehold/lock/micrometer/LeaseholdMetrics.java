package io.leasehold.lock.micrometer;

import static io.leasehold.lock.micrometer.LeaseholdMeters.TAG_LOCK_GROUP;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters for Leasehold locks, recorded from the engine's events: one line to wire,
 * <pre>{@code
 * LockClient client = LockClient.builder(backend).listener(LeaseholdMetrics.of(registry)).build();
 * }</pre>
 * The meters ({@link LeaseholdMeters} has their names and tags): acquire latency by outcome, leases
 * held now and hold time, renewals by result, leases lost by reason, leases uncertain now, waiters
 * now, and handoff latency. Every meter is tagged with a bounded <em>lock group</em> derived from the
 * lock name, never the name itself (names are unbounded, {@code order:123}).
 *
 * <p>One instance may serve several clients. As a {@link MeterBinder} it can also be declared as a
 * bean and bound by the framework (Spring Boot binds {@code MeterBinder} beans); events that arrive
 * before it is bound are not recorded. It binds to one registry only (use a composite registry for
 * several).
 *
 * <p>Events arrive on each client's event thread, never on a Redis I/O thread or the renewal
 * thread, so recording cannot delay locking. This class is threadsafe.
 */
public final class LeaseholdMetrics implements LockEventListener, MeterBinder {

    /** Default cap on distinct lock groups; further groups are recorded as {@value LeaseholdMeters#OTHER_GROUP}. */
    public static final int DEFAULT_MAX_LOCK_GROUPS = 100;

    private final LockGroups groups;
    private volatile @Nullable MeterRegistry registry;
    private final Map<String, GroupGauges> gauges = new ConcurrentHashMap<>();
    /** Leases held now, by lock name and token: for the hold time of a lost lease and the gauges. */
    private final Map<LeaseKey, HeldLease> held = new ConcurrentHashMap<>();

    private final Set<LeaseKey> uncertain = ConcurrentHashMap.newKeySet();

    private LeaseholdMetrics(Builder builder) {
        this.groups = new LockGroups(builder.groupOf, builder.maxGroups);
    }

    /** Metrics with the default lock group (the part of the name before the first {@code ':'}), bound to {@code registry}. */
    public static LeaseholdMetrics of(MeterRegistry registry) {
        LeaseholdMetrics metrics = builder().build();
        metrics.bindTo(registry);
        return metrics;
    }

    /** A builder, for a custom lock group function or cap; bind the result with {@link #bindTo}. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Records into {@code registry} from now on.
     *
     * @throws IllegalStateException if already bound to another registry
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        synchronized (this) {
            MeterRegistry current = this.registry;
            if (current != null && current != registry) {
                throw new IllegalStateException(
                        "LeaseholdMetrics must be bound to one registry, but was already bound to " + current
                                + "; use a CompositeMeterRegistry to record into several");
            }
            this.registry = registry;
        }
    }

    // ---- acquisitions -------------------------------------------------------------------------------

    @Override
    public void onAcquired(String lockName, long fencingToken, Duration waited) {
        MeterRegistry to = registry;
        if (to == null) {
            return;
        }
        String group = groups.groupOf(lockName);
        acquireTimer(to, group, LeaseholdMeters.OUTCOME_ACQUIRED).record(waited);
        if (held.putIfAbsent(new LeaseKey(lockName, fencingToken), new HeldLease(group, System.nanoTime())) == null) {
            gauges(to, group).held.incrementAndGet();
        }
    }

    @Override
    public void onAcquireFailed(String lockName, LockException failure, Duration waited) {
        MeterRegistry to = registry;
        if (to != null) {
            String outcome = failure instanceof LockTimeoutException
                    ? LeaseholdMeters.OUTCOME_TIMEOUT
                    : LeaseholdMeters.OUTCOME_ERROR;
            acquireTimer(to, groups.groupOf(lockName), outcome).record(waited);
        }
    }

    @Override
    public void onAcquireCancelled(String lockName, Duration waited) {
        MeterRegistry to = registry;
        if (to != null) {
            acquireTimer(to, groups.groupOf(lockName), LeaseholdMeters.OUTCOME_CANCELLED)
                    .record(waited);
        }
    }

    @Override
    public void onWaitStarted(String lockName) {
        MeterRegistry to = registry;
        if (to != null) {
            gauges(to, groups.groupOf(lockName)).waiters.incrementAndGet();
        }
    }

    @Override
    public void onWaitEnded(String lockName, Duration waited) {
        MeterRegistry to = registry;
        if (to != null) {
            gauges(to, groups.groupOf(lockName)).waiters.updateAndGet(n -> Math.max(0, n - 1));
        }
    }

    @Override
    public void onHandoff(String lockName, long fencingToken, Duration sinceReleaseSeen) {
        MeterRegistry to = registry;
        if (to != null) {
            Timer.builder(LeaseholdMeters.HANDOFF)
                    .description("Time from a release message seen to the local acquisition it woke")
                    .tag(TAG_LOCK_GROUP, groups.groupOf(lockName))
                    .register(to)
                    .record(sinceReleaseSeen);
        }
    }

    // ---- leases -------------------------------------------------------------------------------------

    @Override
    public void onReleased(String lockName, long fencingToken, Duration heldFor) {
        MeterRegistry to = registry;
        if (to != null) {
            String group = leaseEnded(to, lockName, fencingToken);
            holdTimer(to, group, LeaseholdMeters.ENDING_RELEASED).record(heldFor);
        }
    }

    @Override
    public void onReleaseUnconfirmed(
            String lockName, long fencingToken, Duration heldFor, ReleaseUnconfirmedException cause) {
        MeterRegistry to = registry;
        if (to != null) {
            String group = leaseEnded(to, lockName, fencingToken);
            holdTimer(to, group, LeaseholdMeters.ENDING_RELEASE_UNCONFIRMED).record(heldFor);
        }
    }

    @Override
    public void onRenewed(String lockName, long fencingToken) {
        renewal(lockName, LeaseholdMeters.RESULT_RENEWED);
    }

    @Override
    public void onRenewalFailed(String lockName, long fencingToken, Throwable cause) {
        renewal(lockName, LeaseholdMeters.RESULT_FAILED);
    }

    @Override
    public void onLeaseUncertain(String lockName, long fencingToken, Duration validFor, Throwable cause) {
        MeterRegistry to = registry;
        if (to != null && uncertain.add(new LeaseKey(lockName, fencingToken))) {
            gauges(to, groups.groupOf(lockName)).uncertain.incrementAndGet();
        }
    }

    @Override
    public void onLeaseReconfirmed(String lockName, long fencingToken) {
        MeterRegistry to = registry;
        if (to != null) {
            endUncertainty(to, groups.groupOf(lockName), new LeaseKey(lockName, fencingToken));
        }
    }

    @Override
    public void onLeaseLost(LeaseLoss loss) {
        MeterRegistry to = registry;
        if (to == null) {
            return;
        }
        HeldLease lease = held.get(new LeaseKey(loss.lockName(), loss.fencingToken()));
        String group = leaseEnded(to, loss.lockName(), loss.fencingToken());
        lostCounter(to, group, loss.reason()).increment();
        if (lease != null) {
            holdTimer(to, group, LeaseholdMeters.ENDING_LOST)
                    .record(Duration.ofNanos(System.nanoTime() - lease.startNanos));
        }
    }

    /** Forgets an ended lease (held and uncertain gauges); returns its group. */
    private String leaseEnded(MeterRegistry to, String lockName, long fencingToken) {
        LeaseKey key = new LeaseKey(lockName, fencingToken);
        HeldLease lease = held.remove(key);
        String group = lease != null ? lease.group : groups.groupOf(lockName);
        if (lease != null) {
            gauges(to, group).held.updateAndGet(n -> Math.max(0, n - 1));
        }
        endUncertainty(to, group, key);
        return group;
    }

    private void endUncertainty(MeterRegistry to, String group, LeaseKey key) {
        if (uncertain.remove(key)) {
            gauges(to, group).uncertain.updateAndGet(n -> Math.max(0, n - 1));
        }
    }

    private void renewal(String lockName, String result) {
        MeterRegistry to = registry;
        if (to != null) {
            Counter.builder(LeaseholdMeters.RENEWALS)
                    .description("Renewal and extend attempts of held leases, by result")
                    .baseUnit("renewals")
                    .tag(TAG_LOCK_GROUP, groups.groupOf(lockName))
                    .tag(LeaseholdMeters.TAG_RESULT, result)
                    .register(to)
                    .increment();
        }
    }

    // ---- meters -------------------------------------------------------------------------------------

    private static Timer acquireTimer(MeterRegistry to, String group, String outcome) {
        return Timer.builder(LeaseholdMeters.ACQUIRE)
                .description("Time from an acquire call to its outcome (waiting included), by outcome")
                .tag(TAG_LOCK_GROUP, group)
                .tag(LeaseholdMeters.TAG_OUTCOME, outcome)
                .register(to);
    }

    private static Timer holdTimer(MeterRegistry to, String group, String ending) {
        return Timer.builder(LeaseholdMeters.HOLD)
                .description("How long leases were held, recorded when they end, by how they ended")
                .tag(TAG_LOCK_GROUP, group)
                .tag(LeaseholdMeters.TAG_ENDING, ending)
                .register(to);
    }

    private static Counter lostCounter(MeterRegistry to, String group, LeaseLoss.Reason reason) {
        return Counter.builder(LeaseholdMeters.LOST)
                .description("Leases lost before their owner released them, by reason; alert on any")
                .baseUnit("leases")
                .tag(TAG_LOCK_GROUP, group)
                .tag(LeaseholdMeters.TAG_REASON, reason.name())
                .register(to);
    }

    /**
     * The gauges of a group, registered when the group is first seen, together with a zero
     * {@code lost} counter for every reason, so that an alert on any loss has a series to watch
     * before the first one happens.
     */
    private GroupGauges gauges(MeterRegistry to, String group) {
        return gauges.computeIfAbsent(group, g -> {
            GroupGauges created = new GroupGauges();
            gauge(to, LeaseholdMeters.HELD, "Leases held now", g, created.held);
            gauge(
                    to,
                    LeaseholdMeters.UNCERTAIN,
                    "Leases held now whose latest renewal failed (state UNCERTAIN)",
                    g,
                    created.uncertain);
            gauge(to, LeaseholdMeters.WAITERS, "Acquisitions waiting now for a held lock", g, created.waiters);
            for (LeaseLoss.Reason reason : LeaseLoss.Reason.values()) {
                lostCounter(to, g, reason);
            }
            return created;
        });
    }

    private static void gauge(MeterRegistry to, String name, String description, String group, AtomicLong value) {
        Gauge.builder(name, value, AtomicLong::get)
                .description(description)
                .baseUnit(name.equals(LeaseholdMeters.WAITERS) ? "waiters" : "leases")
                .tag(TAG_LOCK_GROUP, group)
                .strongReference(true)
                .register(to);
    }

    /** The values behind one group's gauges. */
    private static final class GroupGauges {
        final AtomicLong held = new AtomicLong();
        final AtomicLong uncertain = new AtomicLong();
        final AtomicLong waiters = new AtomicLong();
    }

    /** One lease: a lock name and the fencing token of one acquisition (unique per name). */
    private record LeaseKey(String lockName, long fencingToken) {}

    private record HeldLease(String group, long startNanos) {}

    /**
     * Options of {@link LeaseholdMetrics}.
     *
     * <p>This class is not threadsafe.
     */
    public static final class Builder {
        private Function<String, String> groupOf = LockGroups::prefixBeforeColon;
        private int maxGroups = DEFAULT_MAX_LOCK_GROUPS;

        private Builder() {}

        /**
         * How a lock name maps to its {@value LeaseholdMeters#TAG_LOCK_GROUP} tag; default: the part
         * before the first {@code ':'} ({@code order:123} is in group {@code order}). It must give
         * few distinct values; null, empty, or an exception gives {@value LeaseholdMeters#OTHER_GROUP}.
         */
        public Builder lockGroup(Function<String, String> groupOf) {
            this.groupOf = Objects.requireNonNull(groupOf, "groupOf");
            return this;
        }

        /**
         * The most distinct lock groups recorded; lock names of further groups are recorded as
         * {@value LeaseholdMeters#OTHER_GROUP}. Default {@value #DEFAULT_MAX_LOCK_GROUPS}.
         *
         * @throws IllegalArgumentException if {@code maxGroups} is below 1
         */
        public Builder maxLockGroups(int maxGroups) {
            if (maxGroups < 1) {
                throw new IllegalArgumentException("maxLockGroups must be at least 1, but was " + maxGroups);
            }
            this.maxGroups = maxGroups;
            return this;
        }

        /** The metrics listener, not yet bound: pass it to {@link MeterBinder#bindTo} (or let the framework). */
        public LeaseholdMetrics build() {
            return new LeaseholdMetrics(this);
        }
    }
}
