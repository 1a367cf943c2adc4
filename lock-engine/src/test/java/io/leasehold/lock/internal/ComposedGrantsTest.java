package io.leasehold.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the engine does differently on a backend whose grants are composed of several servers' and
 * whose renewals may be confirmed partially (a quorum: {@link LockBackend#grantsAreComposed},
 * {@link LockBackend#confirmsPartially}), against one in-memory node that says so of itself
 * ({@link ComposedGrantsBackend}); each switch is also shown off, on the same node, so that every
 * test can fail. On a hand-moved clock that drives both the store's TTLs and the engines.
 */
class ComposedGrantsTest {

    private static final String NAME = "orders:42";
    private static final String KEY = "leasehold:{" + NAME + "}";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final long BOUND_SECONDS = 10;

    private final List<String> events = new CopyOnWriteArrayList<>();
    private ManualClock clock;
    private InMemoryLockBackend redis;
    private LockClient other;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        other = LockClient.builder(redis.newNode()).ticker(clock).build();
    }

    @AfterEach
    void stop() {
        other.close();
        redis.close();
    }

    /** A client whose node says its grants are composed (or not), counting its calls. */
    private LockClient client(ComposedGrantsBackend backend, CountingLockBackend[] counted) {
        counted[0] = new CountingLockBackend(backend);
        return LockClient.builder(counted[0])
                .ticker(clock)
                .listener(new EventNames(events))
                .build();
    }

    private static LockOptions lease(boolean autoRenew) {
        return LockOptions.builder().leaseTime(LEASE).autoRenew(autoRenew).build();
    }

    private void awaitQueued(CompletableFuture<Lease> waiting) {
        Eventually.until(
                "the waiter took its place in Redis's queue",
                () -> redis.sortedSetMembers(KEY + ":queue").size() == 1);
        assertThat(waiting).as("contended").isNotDone();
        Eventually.until("the waiter's subscription is active", () -> redis.subscriberCount(KEY + ":released") >= 1);
    }

    @ParameterizedTest(name = "composed: {0}")
    @ValueSource(booleans = {true, false})
    void shouldHandTheLockToALocalWaiterWithinTheReleaseOnlyWhereGrantsAreNotComposed(boolean composed)
            throws Exception {
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(new ComposedGrantsBackend(redis.newNode(), composed), calls)) {
            Lease held = client.lock(NAME, lease(false)).acquire(Duration.ZERO);
            CompletableFuture<Lease> waiting = client.lock(NAME, lease(false)).acquireAsync(WAIT);
            awaitQueued(waiting);
            long attemptsBefore = calls[0].count(ScriptNames.ACQUIRE);

            assertThat(held.release()).isTrue();
            Lease next = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS);
            long attemptsAfterRelease = calls[0].count(ScriptNames.ACQUIRE) - attemptsBefore;

            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            if (composed) {
                assertThat(calls[0].count(ScriptNames.HANDOFF)).as("no handoff").isZero();
                assertThat(calls[0].count(ScriptNames.RELEASE))
                        .as("a plain release")
                        .isEqualTo(1);
                assertThat(attemptsAfterRelease)
                        .as("the waiter asked after the release")
                        .isEqualTo(1);
            } else {
                assertThat(calls[0].count(ScriptNames.HANDOFF))
                        .as("handed over in the release")
                        .isEqualTo(1);
                assertThat(calls[0].count(ScriptNames.RELEASE)).isZero();
                assertThat(attemptsAfterRelease)
                        .as("the handoff was its attempt")
                        .isZero();
            }
            next.release();
        }
    }

    @ParameterizedTest(name = "composed: {0}")
    @ValueSource(booleans = {true, false})
    void shouldAskInsteadOfTakingAServersGrantMessageWhereGrantsAreComposed(boolean composed) throws Exception {
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(new ComposedGrantsBackend(redis.newNode(), composed), calls)) {
            Lease held = other.lock(NAME, lease(false)).acquire(Duration.ZERO);
            // (auto-renewed: a lease without renewals would ask all the same, for its lease time)
            CompletableFuture<Lease> waiting = client.lock(NAME, lease(true)).acquireAsync(WAIT);
            awaitQueued(waiting);

            long attemptsBefore = calls[0].count(ScriptNames.ACQUIRE);
            assertThat(held.release()).isTrue(); // grants the lock to the waiter in Redis, and names it
            Lease lease = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS);
            long attemptsAfterRelease = calls[0].count(ScriptNames.ACQUIRE) - attemptsBefore;

            assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
            if (composed) {
                assertThat(attemptsAfterRelease).as("asked after the message").isEqualTo(1);
                assertThat(redis.pttl(KEY)).as("its ask set the lease time").isEqualTo(LEASE.toMillis());
            } else {
                assertThat(redis.pttl(KEY)).as("the grant window's TTL").isEqualTo(GrantOrder.WAITER_LEASE_MS);
                assertThat(attemptsAfterRelease).as("taken from the message").isZero();
            }
            lease.release();
        }
    }

    @Test
    void shouldRefuseAFairLockWhereGrantsAreComposed() {
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(new ComposedGrantsBackend(redis.newNode(), true), calls)) {
            assertThatThrownBy(() -> client.fairLock(NAME))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("fairLock needs one wait queue in one order on every server")
                    .hasMessageContaining("(lock '" + NAME + "')");
            assertThatThrownBy(() -> client.fairLock("", LockOptions.defaults()))
                    .as("a bad name is still named as such")
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(calls[0].total()).as("no call to the backend").isZero();
        }
    }

    @Test
    void shouldCountAPartiallyConfirmedRenewalAndReportTheLeaseUncertainUntilOneIsConfirmedEverywhere()
            throws Exception {
        ComposedGrantsBackend backend = new ComposedGrantsBackend(redis.newNode(), true);
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(backend, calls)) {
            Lease lease = client.lock(NAME, lease(true)).acquire(Duration.ZERO);
            backend.confirmPartially(true);

            // Renewals confirmed partially, for more than a lease: each one counts
            for (int renewal = 1; renewal <= 4; renewal++) {
                clock.advance(LEASE.dividedBy(3));
                int renewed = renewal;
                Eventually.until(
                        "renewal " + renewed + " answered",
                        () -> events.stream().filter("renewed"::equals).count() == renewed);
            }
            assertThat(lease.state()).isEqualTo(LeaseState.UNCERTAIN);
            assertThat(lease.isValid())
                    .as("valid: each partial renewal moved its validity on")
                    .isTrue();
            assertThat(lease.lost()).isNotDone();
            assertThat(lease.remaining()).isGreaterThan(LEASE.dividedBy(2));

            backend.confirmPartially(false);
            clock.advance(LEASE.dividedBy(3));
            Eventually.until("the lease is held again", () -> lease.state() == LeaseState.HELD);
            Eventually.until("reconfirmed", () -> events.contains("reconfirmed"));
            assertThat(events)
                    .containsExactly(
                            "acquired",
                            "renewed",
                            "uncertain",
                            "renewed",
                            "renewed",
                            "renewed",
                            "renewed",
                            "reconfirmed");
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void shouldCountAPartiallyConfirmedExtendAndReportTheLeaseUncertain() throws Exception {
        ComposedGrantsBackend backend = new ComposedGrantsBackend(redis.newNode(), true);
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(backend, calls)) {
            Lease lease = client.lock(NAME, lease(false)).acquire(Duration.ZERO);
            backend.confirmPartially(true);

            lease.extend(Duration.ofSeconds(60));

            assertThat(lease.state()).isEqualTo(LeaseState.UNCERTAIN);
            assertThat(lease.remaining()).as("the extend counts").isGreaterThan(LEASE);
            backend.confirmPartially(false);
            lease.extend(Duration.ofSeconds(60));
            assertThat(lease.state()).isEqualTo(LeaseState.HELD);
            Eventually.until("reconfirmed", () -> events.contains("reconfirmed"));
            assertThat(events).containsExactly("acquired", "renewed", "uncertain", "renewed", "reconfirmed");
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void shouldTakeAPartialConfirmationForALossOnABackendThatNeverConfirmsPartially() throws Exception {
        ComposedGrantsBackend backend = new ComposedGrantsBackend(redis.newNode(), false);
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(backend, calls)) {
            Lease lease = client.lock(NAME, lease(true)).acquire(Duration.ZERO);
            backend.confirmPartially(true);

            clock.advance(LEASE.dividedBy(3));

            LeaseLoss loss = lease.lost().get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(loss.reason())
                    .as("a code the backend never answers is no confirmation")
                    .isEqualTo(LeaseLoss.Reason.STOLEN);
        }
    }

    /** Records the name of each lease event, in the order the listener hears of them. */
    private static final class EventNames implements LockEventListener {
        private final List<String> names;

        EventNames(List<String> names) {
            this.names = names;
        }

        @Override
        public void onAcquired(String lockName, long fencingToken, Duration waited) {
            names.add("acquired");
        }

        @Override
        public void onRenewed(String lockName, long fencingToken) {
            names.add("renewed");
        }

        @Override
        public void onRenewalFailed(String lockName, long fencingToken, Throwable cause) {
            names.add("renewalFailed");
        }

        @Override
        public void onLeaseUncertain(String lockName, long fencingToken, Duration validFor, Throwable cause) {
            names.add("uncertain");
        }

        @Override
        public void onLeaseReconfirmed(String lockName, long fencingToken) {
            names.add("reconfirmed");
        }

        @Override
        public void onLeaseLost(LeaseLoss loss) {
            names.add("lost");
        }
    }
}
