package io.leasehold.lock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Real lock traffic that makes every meter of {@link LeaseholdMetrics} move, on any backend fixture
 * (in-memory or real Redis): acquisitions of every outcome, a wait ended by a handoff, a lost lease
 * and an uncertain period. Three clients share one metrics listener, as three nodes' clients in one
 * process would. Lock names fall into the groups {@code orders}, {@code payments}, {@code reports}.
 */
final class MetricsTraffic implements AutoCloseable {

    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);
    private static final long AWAIT_SECONDS = 15;

    private final LockBackendFixture fixture;
    private final MeterRegistry registry;
    private final List<LockClient> clients = new ArrayList<>();
    private final CountingLockBackend waiterBackend;
    final LockClient holder;
    final LockClient waiter;
    final LockClient other;

    MetricsTraffic(LockBackendFixture fixture, MeterRegistry registry) {
        this.fixture = fixture;
        this.registry = registry;
        LeaseholdMetrics metrics = LeaseholdMetrics.of(registry);
        this.waiterBackend = new CountingLockBackend(fixture.newBackend());
        this.holder = client(fixture.newBackend(), metrics);
        this.waiter = client(waiterBackend, metrics);
        this.other = client(fixture.newBackend(), metrics);
    }

    private LockClient client(io.leasehold.lock.spi.LockBackend backend, LeaseholdMetrics metrics) {
        LockClient client = LockClient.builder(backend)
                .commandTimeout(COMMAND_TIMEOUT)
                .listener(metrics)
                .build();
        clients.add(client);
        return client;
    }

    /** An uncontended acquire and release in group {@code orders}. */
    void uncontended(String name) {
        Lease lease = holder.lock(name).acquire(Duration.ofSeconds(10));
        assertThat(lease.release()).isTrue();
    }

    /**
     * In group {@code orders}: a waiter that ends by a handoff, a wait that times out and one that is
     * cancelled, while the holder holds. Checks the held and waiters gauges while they are up.
     */
    void contended(String name) throws Exception {
        Lease held = holder.lock(name).acquire(Duration.ofSeconds(10));
        await("the held gauge shows the lease", () -> gauge(LeaseholdMeters.HELD, "orders") == 1);
        long attemptsBefore = waiterBackend.count(ScriptNames.ACQUIRE);
        CompletableFuture<Lease> waiting = waiter.lock(name).acquireAsync(Duration.ofSeconds(30));
        // Subscribed once it tried again (the engine retries when the subscription is active): the release is then seen
        await("the waiter is subscribed", () -> waiterBackend.count(ScriptNames.ACQUIRE) >= attemptsBefore + 2);
        await("the waiters gauge shows it", () -> gauge(LeaseholdMeters.WAITERS, "orders") == 1);

        assertThat(other.lock(name).tryAcquire(Duration.ofMillis(100))).isEmpty();
        CompletableFuture<Lease> givingUp = other.lock(name).acquireAsync(Duration.ofSeconds(30));
        await("two waiters", () -> gauge(LeaseholdMeters.WAITERS, "orders") == 2);
        givingUp.cancel(false);
        await("the cancelled wait ended", () -> gauge(LeaseholdMeters.WAITERS, "orders") == 1);

        assertThat(held.release()).isTrue();
        Lease next = waiting.get(AWAIT_SECONDS, TimeUnit.SECONDS);
        await("the handoff is recorded", () -> timerCount(LeaseholdMeters.HANDOFF, "orders") == 1);
        await("nobody waits", () -> gauge(LeaseholdMeters.WAITERS, "orders") == 0);
        assertThat(next.release()).isTrue();
        await("nothing held", () -> gauge(LeaseholdMeters.HELD, "orders") == 0);
    }

    /** In group {@code payments}: a lease whose lock is deleted behind its back is lost as STOLEN. */
    void lost(String name) throws Exception {
        Lease lease = holder.lock(
                        name,
                        LockOptions.builder().leaseTime(Duration.ofMillis(900)).build())
                .acquire(Duration.ofSeconds(10));
        fixture.deleteKey(LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, name));
        assertThat(lease.lost().get(AWAIT_SECONDS, TimeUnit.SECONDS).reason()).isEqualTo(LeaseLoss.Reason.STOLEN);
        await(
                "the loss is counted",
                () -> registry.get(LeaseholdMeters.LOST)
                                .tags(LeaseholdMeters.TAG_LOCK_GROUP, "payments", LeaseholdMeters.TAG_REASON, "STOLEN")
                                .counter()
                                .count()
                        == 1);
    }

    /**
     * In group {@code reports}: the backend goes away until a renewal failed (the lease goes
     * uncertain), then comes back (held again); then an acquisition fails on the backend (outcome error).
     */
    void uncertainThenBack(String name) throws Exception {
        Lease lease = holder.lock(
                        name,
                        LockOptions.builder().leaseTime(Duration.ofSeconds(6)).build())
                .acquire(Duration.ofSeconds(10));
        fixture.makeUnavailable();
        try {
            await("the lease is uncertain", () -> lease.state() == LeaseState.UNCERTAIN);
            await("the uncertain gauge shows it", () -> gauge(LeaseholdMeters.UNCERTAIN, "reports") == 1);
            assertThatThrownBy(() -> other.lock(name + ":other").acquire(Duration.ZERO))
                    .isInstanceOf(LockBackendException.class);
        } finally {
            fixture.makeAvailable();
        }
        await("the lease is held again", () -> lease.state() == LeaseState.HELD);
        await("the uncertain gauge is back to 0", () -> gauge(LeaseholdMeters.UNCERTAIN, "reports") == 0);
        assertThat(lease.lost()).isNotDone();
        assertThat(lease.release()).isTrue();
    }

    /**
     * In group {@code audits}: while the backend is away, one lease goes uncertain and is then
     * released, another is released while still held; both releases fail (Redis cannot be reached),
     * but both leases have ended here. Then the backend comes back.
     */
    void releasedDuringOutage(String name) throws Exception {
        Lease uncertain = holder.lock(
                        name + ":uncertain",
                        LockOptions.builder().leaseTime(Duration.ofSeconds(6)).build())
                .acquire(Duration.ofSeconds(10));
        Lease held = holder.lock(
                        name + ":held",
                        LockOptions.builder().leaseTime(Duration.ofSeconds(60)).build())
                .acquire(Duration.ofSeconds(10));
        await("both counted as held", () -> gauge(LeaseholdMeters.HELD, "audits") == 2);
        fixture.makeUnavailable();
        try {
            await("the short lease is uncertain", () -> uncertain.state() == LeaseState.UNCERTAIN);
            assertThatThrownBy(uncertain::release).isInstanceOf(LockBackendException.class);
            assertThatThrownBy(held::release).isInstanceOf(LockBackendException.class);
            assertThat(uncertain.state()).isEqualTo(LeaseState.RELEASED);
            assertThat(held.state()).isEqualTo(LeaseState.RELEASED);
        } finally {
            fixture.makeAvailable();
        }
    }

    double gauge(String name, String group) {
        return registry.get(name)
                .tag(LeaseholdMeters.TAG_LOCK_GROUP, group)
                .gauge()
                .value();
    }

    long timerCount(String name, String group) {
        return registry.find(name).tag(LeaseholdMeters.TAG_LOCK_GROUP, group).timers().stream()
                .mapToLong(t -> t.count())
                .sum();
    }

    long acquireCount(String group, String outcome) {
        var timer = registry.find(LeaseholdMeters.ACQUIRE)
                .tags(LeaseholdMeters.TAG_LOCK_GROUP, group, LeaseholdMeters.TAG_OUTCOME, outcome)
                .timer();
        return timer == null ? 0 : timer.count();
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        while (!safely(condition)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + AWAIT_SECONDS + " s waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    /** A meter that does not exist yet reads as "not yet". */
    private static boolean safely(BooleanSupplier condition) {
        try {
            return condition.getAsBoolean();
        } catch (io.micrometer.core.instrument.search.MeterNotFoundException notYet) {
            return false;
        }
    }

    @Override
    public void close() {
        for (LockClient client : clients) {
            client.close();
        }
    }
}
