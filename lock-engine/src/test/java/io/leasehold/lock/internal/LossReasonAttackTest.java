package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.CountingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the loss reason a lease reports (G6, README "How a lease ends"), on a hand-moved clock:
 * the reason must say who is to blame by what happened last, not by a renewal failure that Redis has
 * since answered past.
 */
class LossReasonAttackTest {

    private static final String NAME = "reason:1";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RENEW_PERIOD = LEASE.dividedBy(3);

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private CountingLockBackend counted;
    private LockClient client;
    private final List<String> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        counted = new CountingLockBackend(redis.newNode());
        client = LockClient.builder(counted)
                .ticker(clock)
                .listener(new LockEventListener() {
                    @Override
                    public void onLeaseUncertain(String lockName, long token, Duration validFor, Throwable cause) {
                        events.add("uncertain");
                    }

                    @Override
                    public void onLeaseReconfirmed(String lockName, long token) {
                        events.add("reconfirmed");
                    }

                    @Override
                    public void onLeaseLost(LeaseLoss loss) {
                        events.add("lost:" + loss.reason());
                    }
                })
                .build();
    }

    @AfterEach
    void stop() {
        client.close();
        redis.close();
    }

    /**
     * A renewal fails (Redis briefly unreachable: the lease goes UNCERTAIN), then Redis is back and the
     * holder's extend is confirmed (HELD again: Redis answered). Then the process stalls past the
     * validity before the watchdog's retry was even sent. Nothing was sent and left unanswered, and
     * the last TTL command was confirmed: this is a stalled process, EXPIRED, like any other stall,
     * not BACKEND_UNAVAILABLE blamed on the renewal failure that the extend already answered past.
     */
    @Test
    void shouldCallAStallExpiredWhenAnExtendReconfirmedTheLeaseAfterAFailedRenewal() throws Exception {
        Lease lease = client.lock(NAME, LockOptions.builder().leaseTime(LEASE).build())
                .acquire(Duration.ZERO);

        // Given a failed renewal (UNCERTAIN) ...
        redis.makeUnavailable();
        clock.advance(RENEW_PERIOD);
        Eventually.until("the lease went uncertain", () -> lease.state() == LeaseState.UNCERTAIN);
        // ... that Redis has since answered past: the extend is confirmed (HELD again)
        redis.makeAvailable();
        lease.extend(LEASE);
        assertEquals(LeaseState.HELD, lease.state(), "confirmed by the extend");
        Eventually.until("reconfirmed reported", () -> events.contains("reconfirmed"));
        long renewalsBeforeStall = counted.count(ScriptNames.RENEW);

        // When the process stalls past the whole validity (the clock jumps; nothing is sent meanwhile)
        clock.advance(LEASE.plusSeconds(5));

        // Then the loss is the stall's: EXPIRED, not BACKEND_UNAVAILABLE
        assertEquals(LeaseState.LOST, lease.state());
        LeaseLoss loss = lease.lost().get(10, TimeUnit.SECONDS);
        assertEquals(renewalsBeforeStall, counted.count(ScriptNames.RENEW), "sanity: no renewal sent after the stall");
        assertEquals(
                LeaseLoss.Reason.EXPIRED,
                loss.reason(),
                "a HELD lease (last TTL command confirmed) whose process stalled past its validity; loss " + loss
                        + ", cause " + loss.cause().map(Throwable::toString).orElse("none") + ", events " + events);
        Eventually.until("the loss reported", () -> events.stream().anyMatch(e -> e.startsWith("lost:")));
        assertTrue(
                events.indexOf("reconfirmed") == events.lastIndexOf("uncertain") + 1,
                "no uncertainty invented after the reconfirmation: " + events);
    }
}
