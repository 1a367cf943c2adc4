package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On real {@code redis-server}s, a client cut from a majority of the members (a partition through a
 * {@link FaultProxy} per member, its third member still reachable): its lease's validity ends before its
 * copies run out on the members it was cut from, so before another client can have their grants, and
 * the holder is told (LOST) by the time that client is granted; the next token is higher.
 */
class QuorumPartitionTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final LockOptions RENEWED =
            LockOptions.builder().leaseTime(LEASE).autoRenew(true).build();
    private static final String NAME = "held";
    /** How long after the other client's grant returned the holder's lost() may still be on its way. */
    private static final Duration DELIVERY_SLACK = Duration.ofSeconds(2);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldEndTheValidityOfAClientCutFromAMajorityBeforeAnotherClientIsGranted(String driver) throws Exception {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3);
                ProxiedMembers proxied = new ProxiedMembers(fixture, driver)) {
            try (LockClient holder = LockClient.create(QuorumBackend.of(proxied.backends()));
                    LockClient other = LockClient.create(fixture.newBackend())) {
                other.lock("warm-up", RENEWED).acquire(Duration.ofSeconds(10)).release();
                Lease held = holder.lock(NAME, RENEWED).acquire(Duration.ofSeconds(10));

                // When the holder is cut from members 0 and 1 (member 2 still hears its renewals)
                proxied.proxy(0).partition();
                proxied.proxy(1).partition();
                String copy =
                        (String) RedisMembers.server(fixture, 2).command("GET", LockKeys.lockKey("leasehold:", NAME));
                String holderOwner = copy.substring(0, copy.indexOf(':') + 1);
                ExpiryWatch watch = new ExpiryWatch(
                        List.of(RedisMembers.server(fixture, 0), RedisMembers.server(fixture, 1)), holderOwner);
                watch.start();
                long validityEnd = latestValidityEnd(held);
                Lease taken = other.lock(NAME, RENEWED).acquire(Duration.ofSeconds(20));
                long grantReturned = System.nanoTime();
                boolean stateLostAtGrant = held.state() == LeaseState.LOST;
                watch.join(TimeUnit.SECONDS.toMillis(20));

                // Then its validity ended before its copies ran out on the members it was cut from
                long earliestExpiry = watch.earliestExpiryLowerBound();
                assertTrue(
                        validityEnd - earliestExpiry <= 0,
                        () -> "the holder's validity ended "
                                + TimeUnit.NANOSECONDS.toMillis(validityEnd - earliestExpiry)
                                + " ms after its copy ran out on a member it was cut from");
                // And it was told by the time the other client was granted, with a higher token
                assertTrue(stateLostAtGrant, "the holder's lease says LOST once another client holds the lock");
                LeaseLoss loss = held.lost().get(DELIVERY_SLACK.toMillis(), TimeUnit.MILLISECONDS);
                assertTrue(
                        System.nanoTime() - grantReturned < DELIVERY_SLACK.toNanos(),
                        "lost() completed within the delivery slack");
                assertTrue(
                        loss.reason() == LeaseLoss.Reason.BACKEND_UNAVAILABLE
                                || loss.reason() == LeaseLoss.Reason.EXPIRED,
                        () -> "lost for want of a majority: " + loss);
                assertTrue(taken.fencingToken() > held.fencingToken(), "a higher token for the next holder");
                assertTrue(taken.release());
            }
        }
    }

    /**
     * The latest end of {@code lease}'s validity that {@link Lease#remaining()} tells until it reads zero,
     * each reading counted from just before it was taken (so that none seems to end earlier than it does).
     */
    private static long latestValidityEnd(Lease lease) throws InterruptedException {
        long latest = System.nanoTime();
        long deadline = latest + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            long before = System.nanoTime();
            Duration left = lease.remaining();
            if (left.isZero()) {
                return latest;
            }
            latest = Math.max(latest, before + left.toNanos());
            assertTrue(before - deadline < 0, "the validity ran out within 20 s");
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    /**
     * Reads the lock's PTTL on some members until the holder's copy is gone there (absent, or another
     * owner's), and keeps, per member, the latest lower
     * bound of the moment it ran out ({@code before + pttl} of each reading; a renewal that landed after a
     * reading only moves the end later).
     */
    private static final class ExpiryWatch extends Thread {

        private final List<RedisNode> nodes;
        private final String holderOwner;
        private final long[] expiryLowerBound;
        private volatile Throwable failure;

        ExpiryWatch(List<RedisNode> nodes, String holderOwner) {
            super("expiry-watch");
            setDaemon(true);
            this.nodes = nodes;
            this.holderOwner = holderOwner;
            this.expiryLowerBound = new long[nodes.size()];
        }

        @Override
        public void run() {
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                boolean[] gone = new boolean[nodes.size()];
                int left = nodes.size();
                while (left > 0 && System.nanoTime() - deadline < 0) {
                    for (int i = 0; i < nodes.size(); i++) {
                        if (gone[i]) {
                            continue;
                        }
                        long before = System.nanoTime();
                        String key = LockKeys.lockKey("leasehold:", NAME);
                        long pttl = (Long) nodes.get(i).command("PTTL", key);
                        String value = (String) nodes.get(i).command("GET", key);
                        // (read after the PTTL: when it is still the holder's, so was the key the PTTL read)
                        if (pttl < 0 || value == null || !value.startsWith(holderOwner)) {
                            gone[i] = true;
                            left--;
                        } else {
                            expiryLowerBound[i] =
                                    Math.max(expiryLowerBound[i], before + TimeUnit.MILLISECONDS.toNanos(pttl));
                        }
                    }
                    TimeUnit.MILLISECONDS.sleep(5);
                }
                if (left > 0) {
                    throw new AssertionError("the holder's copies ran out on the members it was cut from within 20 s");
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        long earliestExpiryLowerBound() {
            assertEquals(null, failure, "the expiry watch");
            long earliest = Long.MAX_VALUE;
            for (long bound : expiryLowerBound) {
                assertTrue(bound != 0, "the copy was seen on every member watched");
                earliest = Math.min(earliest, bound);
            }
            return earliest;
        }
    }
}
