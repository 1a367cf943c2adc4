package io.leasehold.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
    private static final String CHANNEL = KEY + ":released";
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
    private LockClient client(LockBackend backend, CountingLockBackend[] counted) {
        counted[0] = new CountingLockBackend(backend);
        return LockClient.builder(counted[0])
                .ticker(clock)
                .listener(new EventNames(events))
                .build();
    }

    private static LockOptions lease(boolean autoRenew) {
        return LockOptions.builder().leaseTime(LEASE).autoRenew(autoRenew).build();
    }

    /**
     * Waits until {@code waiting}'s contended attempt was answered and its subscription is active, and
     * nothing of {@code client} is in flight (the clock stands still: nothing more is sent until a
     * message or the test makes it).
     */
    private void awaitWaiting(LockClient client, CompletableFuture<Lease> waiting) {
        Eventually.until("the waiter's subscription is active", () -> redis.subscriberCount(KEY + ":released") >= 1);
        Eventually.until("nothing in flight", () -> client.diagnostics().watchedCalls() == 0);
        assertThat(waiting).as("contended").isNotDone();
    }

    @ParameterizedTest(name = "composed: {0}")
    @ValueSource(booleans = {true, false})
    void shouldHandTheLockToALocalWaiterWithinTheReleaseOnlyWhereGrantsAreNotComposed(boolean composed)
            throws Exception {
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(new ComposedGrantsBackend(redis.newNode(), composed), calls)) {
            Lease held = client.lock(NAME, lease(false)).acquire(Duration.ZERO);
            CompletableFuture<Lease> waiting = client.lock(NAME, lease(false)).acquireAsync(WAIT);
            awaitWaiting(client, waiting);
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
                        .isPositive();
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
    void shouldTakeNoPlaceInAServersWaitQueueWhereGrantsAreComposed(boolean composed) throws Exception {
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(new ComposedGrantsBackend(redis.newNode(), composed), calls)) {
            Lease held = other.lock(NAME, lease(false)).acquire(Duration.ZERO);
            CompletableFuture<Lease> waiting = client.lock(NAME, lease(false)).acquireAsync(WAIT);
            awaitWaiting(client, waiting);

            // A server's queue orders waiters by when their calls reached that server, and its grant
            // to one of them would be no grant: a composed backend's waiter takes no place there.
            assertThat(redis.sortedSetMembers(KEY + ":queue")).hasSize(composed ? 0 : 1);

            assertThat(held.release()).isTrue();
            assertThat(waiting.get(BOUND_SECONDS, TimeUnit.SECONDS).release()).isTrue();
        }
    }

    @ParameterizedTest(name = "composed: {0}")
    @ValueSource(booleans = {true, false})
    void shouldAskInsteadOfTakingAServersGrantMessageWhereGrantsAreComposed(boolean composed) throws Exception {
        CountingLockBackend[] calls = new CountingLockBackend[1];
        MessageTapBackend tap = new MessageTapBackend(new ComposedGrantsBackend(redis.newNode(), composed));
        try (LockClient client = client(tap, calls)) {
            Lease held = other.lock(NAME, lease(false)).acquire(Duration.ZERO);
            // (auto-renewed: a lease without renewals would ask all the same, for its lease time)
            CompletableFuture<Lease> waiting = client.lock(NAME, lease(true)).acquireAsync(WAIT);
            awaitWaiting(client, waiting);
            long attemptsBefore = calls[0].count(ScriptNames.ACQUIRE);
            String waiter = tap.attemptOwners().get(0);

            // One server's grant to this waiter, with a token above the holder's (as a grant after its
            // contended attempt would have): the lock is still the holder's everywhere else.
            tap.inject(CHANNEL, "granted " + waiter + " " + (held.fencingToken() + 1_000));
            Eventually.until(
                    "the waiter acted on the message",
                    () -> waiting.isDone() || calls[0].count(ScriptNames.ACQUIRE) > attemptsBefore);

            if (composed) {
                Eventually.until("its ask answered", () -> client.diagnostics().watchedCalls() == 0);
                assertThat(waiting).as("asked, and found the lock held").isNotDone();
                assertThat(calls[0].count(ScriptNames.ACQUIRE) - attemptsBefore).isEqualTo(1);
                assertThat(held.release()).isTrue();
                assertThat(waiting.get(BOUND_SECONDS, TimeUnit.SECONDS).release())
                        .isTrue();
            } else {
                Lease fromMessage = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS);
                assertThat(fromMessage.fencingToken())
                        .as("one server's grant taken for the lock: why a composed backend must not")
                        .isEqualTo(held.fencingToken() + 1_000);
                held.release();
            }
        }
    }

    @Test
    void shouldHaveTheLocalHeadAskOnceItsClientsReleaseSettledWhereGrantsAreComposed() throws Exception {
        CountingLockBackend[] calls = new CountingLockBackend[1];
        MessageTapBackend tap = new MessageTapBackend(new ComposedGrantsBackend(redis.newNode(), true));
        try (LockClient client = client(tap, calls)) {
            Lease held = client.lock(NAME, lease(false)).acquire(Duration.ZERO);
            CompletableFuture<Lease> waiting = client.lock(NAME, lease(false)).acquireAsync(WAIT);
            awaitWaiting(client, waiting);
            tap.dropMessages(true); // the release's message never arrives

            assertThat(held.release()).isTrue();

            Lease next = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS); // the clock stands still: no alarm fired
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            next.release();
        }
    }

    @ParameterizedTest(name = "composed: {0}")
    @ValueSource(booleans = {true, false})
    void shouldNameOneWaiterInEveryAttemptOfAFairAcquisitionWhereGrantsAreComposed(boolean composed) throws Exception {
        List<List<String>> attempts = new CopyOnWriteArrayList<>();
        LockBackend recording = new ForwardingLockBackend(new ComposedGrantsBackend(redis.newNode(), composed)) {
            @Override
            public CompletableFuture<Object> eval(
                    LuaScript script, List<String> keys, List<String> args, Runnable writing) {
                if (script.name().equals(ScriptNames.ACQUIRE)) {
                    attempts.add(List.copyOf(args));
                }
                return super.eval(script, keys, args, writing);
            }
        };
        CountingLockBackend[] calls = new CountingLockBackend[1];
        try (LockClient client = client(recording, calls)) {
            Lease held = other.lock(NAME, lease(false)).acquire(Duration.ZERO);
            CompletableFuture<Lease> waiting =
                    client.fairLock(NAME, lease(false)).acquireAsync(WAIT.multipliedBy(6));
            awaitWaiting(client, waiting);

            clock.advance(LEASE.plusSeconds(1)); // the holder's lease runs out: the waiter asks again
            Lease next = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS);

            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(attempts).hasSizeGreaterThanOrEqualTo(2);
            for (List<String> args : attempts) {
                assertThat(args.get(5))
                        .as("place mode of %s: a fair waiter's place", args)
                        .isEqualTo("0");
            }
            if (composed) {
                // every attempt has an owner of its own (R3), and names the one waiter it is made for
                assertThat(attempts.stream().map(a -> a.get(0)).distinct()).hasSameSizeAs(attempts);
                assertThat(attempts).allSatisfy(a -> assertThat(a).hasSize(7));
                assertThat(attempts.stream().map(a -> a.get(6)).distinct()).hasSize(1);
                assertThat(attempts.get(0).get(6)).isEqualTo(attempts.get(0).get(0));
            } else {
                assertThat(attempts).allSatisfy(a -> assertThat(a).hasSize(6));
            }
            next.release();
        }
    }

    @Test
    void shouldLetEveryLocalAndRemoteWaiterHaveTheLockUnderContentionWhereGrantsAreComposed() throws Exception {
        // A real clock here: waiters must get the lock by asking on releases, not by alarms.
        try (InMemoryLockBackend store = new InMemoryLockBackend();
                LockClient first = LockClient.builder(new ComposedGrantsBackend(store.newNode(), true))
                        .build();
                LockClient second = LockClient.builder(new ComposedGrantsBackend(store.newNode(), true))
                        .build()) {
            int threadsPerClient = 8;
            int acquisitionsEach = 20;
            ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerClient);
            List<CompletableFuture<Integer>> workers = new ArrayList<>();
            AtomicInteger holders = new AtomicInteger();
            AtomicLong lastToken = new AtomicLong();
            for (LockClient client : List.of(first, second)) {
                for (int t = 0; t < threadsPerClient; t++) {
                    workers.add(CompletableFuture.supplyAsync(
                            () -> {
                                for (int i = 0; i < acquisitionsEach; i++) {
                                    Lease lease =
                                            client.lock(NAME, lease(false)).acquire(WAIT);
                                    assertThat(holders.incrementAndGet())
                                            .as("one holder at a time")
                                            .isEqualTo(1);
                                    assertThat(lastToken.getAndSet(lease.fencingToken()))
                                            .as("tokens rise in grant order")
                                            .isLessThan(lease.fencingToken());
                                    holders.decrementAndGet();
                                    assertThat(lease.release()).isTrue();
                                }
                                return acquisitionsEach;
                            },
                            pool));
                }
            }
            try {
                int done = 0;
                for (CompletableFuture<Integer> worker : workers) {
                    done += worker.get(120, TimeUnit.SECONDS);
                }
                assertThat(done).isEqualTo(2 * threadsPerClient * acquisitionsEach);
            } finally {
                pool.shutdownNow();
            }
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
}
