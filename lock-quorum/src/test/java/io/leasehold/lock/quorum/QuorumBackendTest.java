package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.spi.Deployment;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** QuorumBackend's configuration checks, capabilities, dispatch and lifecycle. */
class QuorumBackendTest {

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    @Test
    void shouldRefuseFewerThanThreeMembers() {
        List<LockBackend> two = Members.backends(members).subList(0, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QuorumBackend.of(two));
        assertEquals("a quorum needs at least 3 nodes, but was 2", e.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, QuorumBackend::of);
        assertEquals("a quorum needs at least 3 nodes, but was 0", none.getMessage());
    }

    @Test
    void shouldRefuseANullMemberNamingIt() {
        List<LockBackend> backends = new ArrayList<>(Members.backends(members));
        backends.set(1, null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QuorumBackend.of(backends));
        assertEquals("a quorum's members must not be null, but member 1 of 3 was null", e.getMessage());
        IllegalArgumentException list =
                assertThrows(IllegalArgumentException.class, () -> QuorumBackend.of((List<LockBackend>) null));
        assertEquals("members must not be null", list.getMessage());
    }

    @Test
    void shouldRefuseTheSameBackendTwiceNamingIt() {
        List<LockBackend> backends = Members.backends(members);
        LockBackend twice = backends.get(0);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> QuorumBackend.of(twice, backends.get(1), twice));
        assertEquals(
                "a quorum's members must be distinct backends, but member 2 (" + twice + ") is member 0 again",
                e.getMessage());
    }

    @Test
    void shouldRefuseASentinelOrClusterMemberNamingItAndTheRule() {
        RedisClient standalone = RedisClient.create();
        RedisClusterClient cluster = RedisClusterClient.create(RedisURI.create("redis://127.0.0.1:1"));
        try (LettuceLockBackend one = LettuceLockBackend.create(standalone, RedisURI.create("redis://127.0.0.1:1"));
                LettuceLockBackend sentinel = LettuceLockBackend.create(
                        standalone, RedisURI.create("redis-sentinel://127.0.0.1:2#mymaster"));
                LettuceLockBackend clustered = LettuceLockBackend.create(cluster)) {
            assertEquals(Deployment.STANDALONE, one.deployment());
            List<LockBackend> backends = Members.backends(members);

            IllegalArgumentException bySentinel = assertThrows(
                    IllegalArgumentException.class, () -> QuorumBackend.of(backends.get(0), sentinel, one));
            assertEquals(
                    "a quorum's members must each be one independent Redis master, but member 1 (" + sentinel
                            + ") is a Sentinel-managed master (a failover to a replica that lags behind loses"
                            + " acquisitions; give each member one standalone server)",
                    bySentinel.getMessage());
            IllegalArgumentException byCluster = assertThrows(
                    IllegalArgumentException.class, () -> QuorumBackend.of(one, backends.get(1), clustered));
            assertEquals(
                    "a quorum's members must each be one independent Redis master, but member 2 (" + clustered
                            + ") is a Redis Cluster (its keys spread over several masters, each with its own"
                            + " failover; give each member one standalone server)",
                    byCluster.getMessage());
        } finally {
            standalone.shutdown();
            cluster.shutdown();
        }
    }

    @Test
    void shouldTakeAMemberThatCannotTellItsDeployment() {
        List<LockBackend> backends = new ArrayList<>(Members.backends(members));
        backends.set(0, new ForwardingLockBackend(backends.get(0)) {
            @Override
            public Deployment deployment() {
                return Deployment.UNKNOWN;
            }
        });
        try (QuorumBackend quorum = QuorumBackend.of(backends)) {
            assertEquals(Deployment.QUORUM, quorum.deployment());
            assertEquals(Deployment.STANDALONE, backends.get(1).deployment());
        }
    }

    @Test
    void shouldRefuseAQuorumAsAMemberNamingIt() {
        List<LockBackend> backends = Members.backends(members);
        LockBackend inner = QuorumBackend.of(backends);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> QuorumBackend.of(inner, backends.get(0), backends.get(1)));
        assertEquals(
                "a quorum's members must each be one Redis master, but member 0 (" + inner
                        + ") composes its grants of several servers' (a quorum inside a quorum)",
                e.getMessage());
    }

    @Test
    void shouldSayItsGrantsAreComposedAndItConfirmsPartially() {
        try (QuorumBackend quorum = members.quorum()) {
            assertTrue(quorum.grantsAreComposed());
            assertTrue(quorum.confirmsPartially());
            assertEquals(3, quorum.members().size());
        }
    }

    @Test
    void shouldFailAHandoffAndAnUnknownScriptNamingTheScript() {
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException handoff = assertThrows(
                    ExecutionException.class,
                    () -> quorum.eval(Members.HANDOFF, List.of("k"), List.of()).get(5, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, handoff.getCause());
            assertTrue(
                    handoff.getCause().getMessage().contains("script 'handoff'"),
                    handoff.getCause().getMessage());
            ExecutionException unknown = assertThrows(
                    ExecutionException.class,
                    () -> quorum.eval(LuaScript.of("mystery", "return 1"), List.of("k"), List.of())
                            .get(5, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, unknown.getCause());
            assertTrue(unknown.getCause().getMessage().startsWith("a quorum does not know script 'mystery'"));
        }
    }

    @Test
    void shouldCloseEveryMember() {
        List<LockBackend> backends = Members.backends(members);
        QuorumBackend quorum = QuorumBackend.of(backends);
        quorum.close();
        for (LockBackend member : backends) {
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> member.eval(Members.INSPECT, List.of(Members.lockKey("x")), List.of())
                            .get(5, TimeUnit.SECONDS));
            assertTrue(
                    e.getCause().getMessage().contains("closed"), e.getCause().getMessage());
        }
    }

    @Test
    void shouldJudgeItsOwnNoMajorityFailureTransientAndAMembersFailureAsTheMemberDoes() {
        try (QuorumBackend quorum = members.quorum()) {
            QuorumUnavailableException noMajority = new QuorumUnavailableException("no majority", true);
            assertTrue(quorum.isTransient(noMajority));
            assertTrue(quorum.isTransient(new ConnectException("refused")));
            assertFalse(quorum.isTransient(new IllegalStateException("ERR a script error")));
        }
    }

    @Test
    void shouldSayItsOwnPubSubModeIsAFixedValue() throws Exception {
        try (QuorumBackend quorum = members.quorum()) {
            assertEquals(false, quorum.shardedPubSub().get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void shouldCopyTheMembersGiven() {
        LockBackend[] given = Members.backends(members).toArray(LockBackend[]::new);
        try (QuorumBackend quorum = QuorumBackend.of(given)) {
            LockBackend first = given[0];
            given[0] = given[1];
            assertTrue(quorum.members().get(0) == first, "the quorum kept its own copy");
            CompletableFuture<Object> done = quorum.eval(Members.INSPECT, List.of(Members.lockKey("x")), List.of());
            assertEquals(List.of(), done.join());
        }
    }
}
