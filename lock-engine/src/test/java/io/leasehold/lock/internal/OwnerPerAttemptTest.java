package io.leasehold.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where grants are composed of several servers' (a quorum), every acquire attempt carries an owner of
 * its own: the backend's clean-up of a split attempt (a release by owner, which it may resend in the
 * background) must never delete the lock a later attempt of the same acquisition took. Elsewhere an
 * acquisition keeps one owner across its attempts, so that an attempt whose reply was lost is
 * repeated idempotently. Against one in-memory node that says whether its grants are composed
 * ({@link ComposedGrantsBackend}), on the real clock with generous bounds.
 */
class OwnerPerAttemptTest {

    private static final String NAME = "orders:42";
    private static final String KEY = "leasehold:{" + NAME + "}";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long BOUND_SECONDS = 20;

    private InMemoryLockBackend redis;
    private LockClient other;

    @BeforeEach
    void start() {
        redis = new InMemoryLockBackend();
        other = LockClient.create(redis.newNode());
    }

    @AfterEach
    void stop() {
        other.close();
        redis.close();
    }

    /** Not renewed, so that no grant message stands for an attempt: the waiter asks again after the release. */
    private static LockOptions lease() {
        return LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .autoRenew(false)
                .build();
    }

    /** The owner in the lock's value {@code <owner>:<token>[:<seq>]}. */
    private String holder() {
        String value = redis.get(KEY).orElseThrow();
        return value.substring(0, value.indexOf(':'));
    }

    @ParameterizedTest(name = "composed: {0}")
    @ValueSource(booleans = {true, false})
    void shouldGiveEveryAttemptItsOwnOwnerOnlyWhereGrantsAreComposed(boolean composed) throws Exception {
        MessageTapBackend calls = new MessageTapBackend(new ComposedGrantsBackend(redis.newNode(), composed));
        try (LockClient client = LockClient.create(calls)) {
            Lease held = other.lock(NAME, lease()).acquire(Duration.ZERO);
            CompletableFuture<Lease> waiting = client.lock(NAME, lease()).acquireAsync(WAIT);
            Eventually.until(
                    "the waiter's subscription is active", () -> redis.subscriberCount(KEY + ":released") >= 1);
            Eventually.until(
                    "the waiter's attempts were answered contended",
                    () -> !calls.attemptOwners().isEmpty()
                            && client.diagnostics().watchedCalls() == 0);
            assertThat(waiting).as("contended").isNotDone();

            held.release();
            Lease next = waiting.get(BOUND_SECONDS, TimeUnit.SECONDS);

            List<String> owners = calls.attemptOwners();
            assertThat(owners).as("attempts").hasSizeGreaterThanOrEqualTo(2);
            assertThat(holder()).as("the lock's owner is the last attempt's").isEqualTo(owners.get(owners.size() - 1));
            if (composed) {
                assertThat(owners).as("an owner per attempt").doesNotHaveDuplicates();
                assertThat(calls.releaseOwners())
                        .as("an attempt answered contended holds nothing anywhere: nothing to clean up")
                        .isEmpty();
            } else {
                assertThat(owners).as("one owner per acquisition").containsOnly(owners.get(0));
            }
            next.release();
        }
    }

    @Test
    void shouldReleaseTheOwnerOfAnAttemptWhoseReplyWasLostBeforeTheNextAttemptWhereGrantsAreComposed()
            throws Exception {
        MessageTapBackend calls = new MessageTapBackend(new ComposedGrantsBackend(redis.newNode(), true));
        try (LockClient client =
                LockClient.builder(calls).commandTimeout(Duration.ofMillis(300)).build()) {
            redis.loseNextReply(); // the first attempt runs (and takes the lock), its reply never comes

            Lease lease = client.lock(NAME, lease()).acquire(WAIT);

            String lost = calls.attemptOwners().get(0);
            assertThat(holder()).as("held by a later attempt's owner").isNotEqualTo(lost);
            assertThat(calls.releaseOwners())
                    .as("the lost attempt's owner released, as its outcome is unknown")
                    .contains(lost);
            assertThat(lease.fencingToken()).isPositive();
            lease.release();
            assertThat(redis.exists(KEY)).as("nothing left behind").isFalse();
        }
    }
}
