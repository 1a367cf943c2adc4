package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On real redis-servers: a member whose phase-1 grant comes after the majority decided the lease's token
 * (a slow member: its acquire ran later, so the token its clock gave is above the quorum's) holds the
 * lease too, so that the lease lives on every member and survives the death of any one of them. Under
 * load (2026-11-29) such a grant's commit was refused and the member released: the lease lived on exactly
 * a majority, and `QuorumStaleJoinReplayTest`, which then deletes one copy and kills another member, saw a
 * second holder.
 */
class QuorumLateGrantTest {

    private static final String NAME = "orders:late";
    private static final long LEASE_MS = 20_000;
    /** Far more than the straggler grace, so that the slow member's grant comes after the decision. */
    private static final long SLOW_MS = 300;

    /** Sends acquire.lua to its member {@link #SLOW_MS} late: the script runs, and its clock reads, later. */
    private static final class SlowAcquire extends ForwardingLockBackend {
        SlowAcquire(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (!script.name().equals(Members.ACQUIRE.name())) {
                return delegate().eval(script, keys, args);
            }
            return CompletableFuture.supplyAsync(
                            () -> null, CompletableFuture.delayedExecutor(SLOW_MS, TimeUnit.MILLISECONDS))
                    .thenCompose(ignored -> delegate().eval(script, keys, args));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldCommitTheLeaseOnAMemberWhoseGrantCameAfterTheDecision(String driver) throws Exception {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3)) {
            List<LockBackend> backends = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                LockBackend member = fixture.members().get(i).newBackend();
                backends.add(i == 0 ? new SlowAcquire(member) : member);
            }
            try (QuorumBackend quorum = QuorumBackend.builder(backends)
                    .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                    .build()) {
                List<?> reply = (List<?>)
                        quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs("x", LEASE_MS, "1"))
                                .get(30, TimeUnit.SECONDS);
                assertEquals(1L, reply.get(0), driver + ": granted: " + reply);
                String lease = "x:" + reply.get(1);

                Members.await(
                        driver + ": the slow member holds the lease " + lease,
                        () -> lease.equals(valueOn(fixture.members().get(0))));
                long slowGrant = Long.parseLong((String)
                        node(fixture.members().get(0)).command("GET", LockKeys.fenceKey(Members.PREFIX, NAME)));
                assertTrue(
                        slowGrant > (Long) reply.get(1),
                        driver + ": the slow member granted " + slowGrant + ", above the lease's token " + reply.get(1)
                                + " (the case this test is about), and its counter is not lowered");
                assertEquals(lease, valueOn(fixture.members().get(1)), driver + ": member 1");
                assertEquals(lease, valueOn(fixture.members().get(2)), driver + ": member 2");
            }
        }
    }

    private static RedisNode node(LockBackendFixture member) {
        return ((RedisLockBackendFixture<?>) member).topology().masterForKey(LockKeys.lockKey(Members.PREFIX, NAME));
    }

    private static String valueOn(LockBackendFixture member) {
        return (String) node(member).command("GET", LockKeys.lockKey(Members.PREFIX, NAME));
    }
}
