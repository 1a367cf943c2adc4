package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real redis-servers: a put-back of client A's lease that reaches member 2 after A released (the call
 * slow on its way: held here by a forwarding member backend, as a slow link, a pause or a second pooled
 * connection would) writes a copy of the released lease with a whole lease time to live there. With
 * member 0 killed, the name is then granted to nobody until that copy runs out.
 */
class QuorumRestoreAfterReleaseRedisTest {

    private static final String NAME = "held";
    private static final Duration LEASE = Duration.ofSeconds(5);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldGrantAFreeNameAtOnceWithAMemberDownAfterARestoreArrivedLateToAnotherMember(String driver)
            throws Exception {
        List<Runnable> held = new CopyOnWriteArrayList<>();
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3)) {
            QuorumRestoreRaceTest.HoldingRestores member2 = new QuorumRestoreRaceTest.HoldingRestores(
                    fixture.members().get(2).newBackend(), held);
            List<LockBackend> aMembers = List.of(
                    fixture.members().get(0).newBackend(),
                    fixture.members().get(1).newBackend(),
                    member2);
            try (LockClient a = LockClient.create(QuorumBackend.of(aMembers));
                    LockClient b = LockClient.create(fixture.newBackend())) {
                b.lock("warm-up", LockOptions.builder().leaseTime(LEASE).build())
                        .acquire(Duration.ofSeconds(10))
                        .release(); // every member joined
                Lease lease = a.lock(
                                NAME,
                                LockOptions.builder()
                                        .leaseTime(LEASE)
                                        .autoRenew(true)
                                        .build())
                        .acquire(Duration.ofSeconds(10));
                RedisMembers.server(fixture, 2).command("DEL", LockKeys.lockKey("leasehold:", NAME));
                Members.await("a restore sent to member 2", () -> !held.isEmpty());
                assertTrue(lease.release());
                held.forEach(Runnable::run);
                Members.await("the restore ran on member 2 and answered", () -> member2.answered.get() > 0);
                String stale = copyOn(fixture, 2).orElse("(none)");
                Object pttl = RedisMembers.server(fixture, 2).command("PTTL", LockKeys.lockKey("leasehold:", NAME));
                RedisMembers.server(fixture, 0).kill();
                long start = System.nanoTime();
                Optional<Lease> granted = b.lock(
                                NAME, LockOptions.builder().leaseTime(LEASE).build())
                        .tryAcquire(Duration.ofSeconds(15));
                long tookMs = (System.nanoTime() - start) / 1_000_000;
                assertTrue(granted.isPresent(), "never granted in 15 s");
                granted.get().release();
                assertTrue(
                        tookMs < 1_000,
                        driver + ": B waited " + tookMs + " ms for a name released before it asked, member 0"
                                + " down: member 2 held A's released lease put back after the release ('" + stale
                                + "', PTTL " + pttl + " ms of a " + LEASE.toMillis() + " ms lease)");
            }
        }
    }

    private static Optional<String> copyOn(QuorumFixture fixture, int i) {
        return Optional.ofNullable(
                (String) RedisMembers.server(fixture, i).command("GET", LockKeys.lockKey("leasehold:", NAME)));
    }
}
