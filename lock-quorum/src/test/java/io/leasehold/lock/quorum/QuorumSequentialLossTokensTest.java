package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.InMemoryFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two of three members lose their data one after the other (the second while the first still sits
 * out: not "at once", and member 0 keeps its record throughout), and the token last committed lived
 * only on those two. A reset takes the largest floor read on the other members, so the token is not
 * forgotten, and the next one is larger even with clocks that disagree (member 0 an hour behind, member
 * 1 an hour ahead). Found by an independent attack (2026-11-28): the reset kept only the floor that
 * survived on the wiped member, and the next token was lower (6 of 6).
 */
class QuorumSequentialLossTokensTest {

    private static final String NAME = "orders:77";
    private static final long MAX_LEASE_MS = 3_000;
    private static final Duration HOUR = Duration.ofHours(1);

    /** A clock whose offset from the system's can change (a machine whose clock is fixed when it reboots). */
    static final class Shifted extends Clock {
        volatile Duration offset;

        Shifted(Duration offset) {
            this.offset = offset;
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return Clock.systemUTC().instant().plus(offset);
        }
    }

    private final Shifted clock1 = new Shifted(HOUR);

    private final List<InMemoryFixture> fixtures = List.of(
            new InMemoryFixture(Clock.offset(Clock.systemUTC(), HOUR.negated())),
            new InMemoryFixture(clock1),
            new InMemoryFixture(Clock.systemUTC()));

    @AfterEach
    void close() {
        fixtures.forEach(InMemoryFixture::close);
    }

    private QuorumBackend quorum() {
        return QuorumBackend.builder(
                        fixtures.stream().map(InMemoryFixture::newBackend).toList())
                .maxLeaseTime(Duration.ofMillis(MAX_LEASE_MS))
                .build();
    }

    private static Object acquire(QuorumBackend q, String owner) {
        try {
            return q.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(owner, MAX_LEASE_MS, "1"))
                    .join();
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    private static boolean granted(Object reply) {
        return reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0));
    }

    private static long token(Object reply) {
        return (Long) ((List<?>) reply).get(1);
    }

    private void release(QuorumBackend q, String owner) {
        q.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(owner))
                .join();
    }

    private long standing(int i) {
        List<?> reply = (List<?>) fixtures.get(i)
                .backend()
                .eval(Members.ENLIST, List.of(LockKeys.quorumRecordKey(Members.PREFIX)), List.of("probe", ""))
                .join();
        return (Long) reply.get(0);
    }

    @Test
    void shouldKeepTokensRisingWhenTwoMembersLoseTheirDataOneAfterTheOther() {
        try (QuorumBackend q = quorum()) {
            // a quorum in use (every member joined)
            Object first = acquire(q, "a");
            assertTrue(granted(first), "a: " + first);
            release(q, "a");
            // member 0 is away while b is granted by members 1 and 2 only; b keeps holding
            fixtures.get(0).makeUnavailable();
            Object second = acquire(q, "b");
            assertTrue(granted(second), "b: " + second);
            long t2 = token(second);
            fixtures.get(0).makeAvailable();

            // member 1 loses its data (its machine reboots; its clock, an hour ahead, is set right)
            clock1.offset = Duration.ZERO;
            fixtures.get(1).backend().restartWithoutPersistence();
            Members.await("member 1 sits out", () -> {
                Object r = acquire(q, "p");
                assertTrue(!granted(r), "no grant while b holds on member 2: " + r);
                return standing(1) == 2;
            });
            // then member 2 loses its data too, while member 1 still sits out (member 0 kept its record)
            fixtures.get(2).backend().restartWithoutPersistence();
            Members.await("member 2 sits out", () -> {
                Object r = acquire(q, "p");
                assertTrue(!granted(r), "no grant: " + r);
                return standing(2) == 2;
            });
            // both come back once their delay is over (seeded: every member answered, so with the largest
            // floor of all, member 0's)
            Members.await("members 1 and 2 take part again", () -> {
                Object r = acquire(q, "c");
                return granted(r);
            });
            Object third = acquire(q, "c"); // c holds (a retried acquire is idempotent)
            long t3 = token(third);
            assertTrue(
                    t3 > t2,
                    "tokens must rise along the acquisition order: b had " + t2 + ", the later c has " + t3 + " ("
                            + (t2 - t3) / 1_000_000 + " s of microseconds lower)");
        }
    }
}
