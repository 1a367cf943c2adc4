package io.leasehold.lock.quorum;

import static io.leasehold.lock.quorum.Members.ownerOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.faults.Silence;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * On real {@code redis-server}s: B's spread sends a put-back to member 2 that is dropped on the way (the
 * proxy drops every byte), B's own client then force-releases (or releases) the lock, and D, reaching the
 * members directly, takes it on all three. The dropped put-back's connection is then cut: the call fails.
 * D's copy on member 2 must stay: the put-back never landed, and a force-release sent again there would
 * delete whoever holds the key (a release is checked against B's owner).
 */
class QuorumPutBackAfterForceReleaseRedisTest {

    private static final String NAME = "undo:force:redis";
    private static final String KEY = LockKeys.lockKey("leasehold:", NAME);
    private static final LockOptions LONG_NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    @ParameterizedTest(name = "{0}, force {1}")
    // Not Lettuce with a force-release: Lettuce itself sends an unanswered command again when it reconnects,
    // so B's own force-release, held by the proxy, lands after D's grant and deletes D's copy there (what a
    // force-release does to whoever holds the lock when it lands; the quorum sends nothing: see the note
    // in docs/design/quorum-locks.md, F12)
    @CsvSource({"jedis,true", "lettuce,false", "jedis,false"})
    void shouldLeaveTheNextHoldersCopyAfterAFailedPutBack(String driver, boolean force) throws Exception {
        try (QuorumFixture fixture = RedisMembers.of(driver, 3);
                ProxiedMembers proxied = new ProxiedMembers(fixture, driver)) {
            java.util.concurrent.atomic.AtomicInteger forcesSent = new java.util.concurrent.atomic.AtomicInteger();
            LockBackend member2 = new io.leasehold.lock.testkit.ForwardingLockBackend(
                    proxied.backends().get(2)) {
                @Override
                public java.util.concurrent.CompletableFuture<Object> eval(
                        io.leasehold.lock.spi.LuaScript script,
                        java.util.List<String> keys,
                        java.util.List<String> args) {
                    if (io.leasehold.lock.spi.ScriptNames.FORCE_RELEASE.equals(script.name())) {
                        forcesSent.incrementAndGet();
                    }
                    return delegate().eval(script, keys, args);
                }
            };
            QuorumBackend bQuorum = QuorumBackend.of(
                    proxied.backends().get(0), proxied.backends().get(1), member2);
            LockBackend dQuorum = fixture.newBackend();
            try (bQuorum;
                    dQuorum;
                    LockClient b = LockClient.create(bQuorum);
                    LockClient d = LockClient.create(dQuorum)) {
                b.lock("warm-up").acquire(Duration.ofSeconds(10)).release();
                d.lock("warm-up").acquire(Duration.ofSeconds(10)).release();
                fixture.members().get(2).writeKey(KEY, "x.1:1");
                Lease bLease = b.lock(NAME, LONG_NO_RENEW).acquire(Duration.ofSeconds(10));
                // B granted on 0 and 1; its spread asks member 2 again at 10, 30, 70, 150, 310 ... ms
                proxied.proxy(2).partition(Silence.DROP);
                Thread.sleep(400); // at least one put-back try is sent into the drop (tries at 150 and 310 ms)
                if (force) {
                    assertTrue(b.lock(NAME).forceRelease(), "B's client force-released the lock (members 0, 1)");
                } else {
                    assertTrue(bLease.release(), "B released (members 0, 1)");
                }
                fixture.members().get(2).deleteKey(KEY); // member 2 frees up
                Lease dLease = d.lock(NAME, LONG_NO_RENEW).acquire(Duration.ofSeconds(10));
                Object on0 = RedisMembers.server(fixture, 0).command("GET", KEY);
                assertEquals(
                        ownerOf(on0), ownerOf(RedisMembers.server(fixture, 2).command("GET", KEY)), "D holds member 2");

                int forcesBeforeCut = forcesSent.get();
                proxied.proxy(2).cutConnections(); // B's calls in the drop fail
                proxied.proxy(2).resume();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
                Object on2 = RedisMembers.server(fixture, 2).command("GET", KEY);
                while (on2 != null && System.nanoTime() - deadline < 0) {
                    Thread.sleep(20); // bounded: 8 s for B's client to delete D's copy (past member skipping)
                    on2 = RedisMembers.server(fixture, 2).command("GET", KEY);
                }
                assertEquals(
                        ownerOf(on0),
                        ownerOf(on2),
                        "D's copy on member 2, 8 s after B's dropped put-back failed (B's resends pending: "
                                + bQuorum.pendingReleaseResends() + "; force-release.lua calls sent to member 2 by B's"
                                + " quorum: " + forcesBeforeCut + " before the cut, " + forcesSent.get() + " now)");
                assertTrue(dLease.release());
            }
        }
    }
}
