package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.LockBackendFixture;
import io.leasehold.lock.testkit.faults.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The same wait on real redis-servers (Lettuce, 5 s command timeout): five members, member 0 lost
 * its record, member 3 slower than phase 1's patience, member 4 partitioned (a proxy holding its bytes).
 * Members 1, 2 and 3 take part. The acquisition must answer (granted or not) well before a
 * partitioned member's command timeout; the enlistment it now waits for probes member 4 too.
 */
class QuorumEnlistAnewRedisAttackTest {

    private static final String NAME = "orders:enlist-anew-redis";
    private static final long LEASE_MS = 2_000;
    private static final String RECORD = LockKeys.quorumRecordKey(Members.PREFIX);

    @Test
    void shouldAnswerAnAcquisitionBeforeAPartitionedMembersCommandTimeoutWhenAnotherMemberLostItsRecord()
            throws Exception {
        try (QuorumFixture fixture = RedisMembers.lettuce(5);
                FaultProxy proxy =
                        FaultProxy.start(RedisMembers.server(fixture, 4).endpoint())) {
            List<LockBackend> backends = new ArrayList<>();
            for (LockBackendFixture member : fixture.members()) {
                backends.add(member.newBackend());
            }
            SlowFromNowBackend slow = new SlowFromNowBackend(backends.get(3), Duration.ofMillis(600));
            backends.set(3, slow);
            backends.set(4, RedisMembers.member("lettuce", proxy.endpoint()));
            try (QuorumBackend quorum = QuorumBackend.builder(backends)
                    .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                    .build()) {
                Object warmUp = acquire(quorum, "warm-up").get(10, TimeUnit.SECONDS);
                assertTrue(
                        warmUp instanceof List && Long.valueOf(1).equals(((List<?>) warmUp).get(0)),
                        () -> "every member joined: " + warmUp);
                quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs("warm-up"))
                        .get(10, TimeUnit.SECONDS);
                RedisMembers.server(fixture, 0).command("DEL", RECORD);
                slow.slowFromNow();
                proxy.partition();

                long start = System.nanoTime();
                CompletableFuture<Object> acquisition = acquire(quorum, "a");
                Object answer;
                try {
                    answer = acquisition.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    answer = e.getCause();
                } catch (TimeoutException e) {
                    answer = "no answer in 30 s";
                }
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                Object seen = answer;
                proxy.resume();
                assertTrue(
                        ms < 4_000,
                        () -> "answered after " + ms + " ms (partitioned member's command timeout 5 s): " + seen);
            }
        }
    }

    private static CompletableFuture<Object> acquire(QuorumBackend quorum, String owner) {
        return quorum.eval(Members.ACQUIRE, Members.acquireKeys(NAME), Members.acquireArgs(owner, LEASE_MS, "1"));
    }
}
