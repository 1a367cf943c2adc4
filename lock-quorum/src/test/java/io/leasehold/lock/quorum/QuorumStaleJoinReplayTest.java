package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On real redis-servers: client Y probed a new quorum (no member has a record) and its joins go out
 * late; meanwhile X joined, holds a lease on exactly members 0 and 1, and member 1 is killed. Y's join to
 * member 1 is sent while member 1 is down: Lettuce keeps it and sends it once it has reconnected to the
 * restarted, empty server. That server is not the process Y's probe read, so it must not join, and Y
 * must not be granted while X's lease is valid. Found by an independent attack (2026-11-28): before the
 * join named the probe's run_id, Lettuce let Y in 3 of 3 times (Jedis fails the join to a dead member).
 * Once more (2026-11-29, at load 10–12): X's lease had ended on exactly members 1 and 2, because the
 * grant of member 0, more than the grace behind the others, carried a token above the quorum's and its
 * commit was refused; the test now starts from X's lease seen on every member.
 */
class QuorumStaleJoinReplayTest {

    private static final String NAME = "orders:replay";
    private static final long LEASE_MS = 20_000;

    private static Object acquire(QuorumBackend q, String owner) {
        try {
            return q.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(owner, LEASE_MS, "1"))
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            return e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
        }
    }

    private static RedisNode node(LockBackendFixture member) {
        return ((RedisLockBackendFixture<?>) member).topology().masterForKey(LockKeys.lockKey(Members.PREFIX, NAME));
    }

    private static String valueOn(LockBackendFixture member) {
        return (String) node(member).command("GET", LockKeys.lockKey(Members.PREFIX, NAME));
    }

    private static boolean granted(Object reply) {
        return reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldNotLetAJoinReplayedToARestartedMemberLetASecondHolderIn(String driver) throws Exception {
        try (QuorumFixture fixture = driver.equals("lettuce") ? RedisMembers.lettuce(3) : RedisMembers.jedis(3)) {
            List<Runnable> held = new CopyOnWriteArrayList<>();
            List<LockBackend> yMembers = new ArrayList<>();
            for (LockBackendFixture f : fixture.members()) {
                yMembers.add(new QuorumStaleJoinTest.HoldingJoins(f.newBackend(), held));
            }
            try (QuorumBackend x = QuorumBackend.builder(fixture.members().stream()
                                    .map(LockBackendFixture::newBackend)
                                    .toList())
                            .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                            .build();
                    QuorumBackend y = QuorumBackend.builder(yMembers)
                            .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                            .build()) {
                CompletableFuture<Object> yAcquire = CompletableFuture.supplyAsync(() -> acquire(y, "y"));
                Members.await("Y's three joins are on their way", () -> held.size() == 3);

                Object first = acquire(x, "x");
                assertTrue(granted(first), "x is granted: " + first);
                // X's lease lives on every member (a member that answered after the majority is committed
                // too), then on exactly members 0 and 1: member 2's copy is gone
                String xLease = "x:" + ((List<?>) first).get(1);
                Members.await(
                        "x's lease " + xLease + " is on every member",
                        () -> fixture.members().stream().allMatch(m -> xLease.equals(valueOn(m))));
                fixture.members().get(2).deleteKey(LockKeys.lockKey(Members.PREFIX, NAME));
                RedisNode node1 = node(fixture.members().get(1));
                node1.kill();
                Thread.sleep(300); // the connection notices
                held.forEach(Runnable::run); // Y's joins go out: the one to member 1 while it is down
                Thread.sleep(200);
                node1.restart(); // empty

                Object second = yAcquire.get(40, TimeUnit.SECONDS);
                assertTrue(
                        !granted(second),
                        driver + ": a second holder while x's lease (" + first + ") is valid: y was granted " + second);
            }
        }
    }
}
