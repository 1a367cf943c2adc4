package io.leasehold.lock.quorum;

import static io.leasehold.lock.quorum.Members.ownerOf;
import static io.leasehold.lock.quorum.Members.sleepUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.faults.Direction;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisLockBackendFixture;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review attack (helper 64) on the acquisition's lease spread ({@link LeaseSpread}) over three real
 * {@code redis-server}s. Member 2 holds another owner's lock ({@code x.1:1}, no TTL) at B's grant, so B's
 * lease is granted on members 0 and 1 only and its spread keeps asking member 2 (about 2.5 s); the test
 * frees member 2 when it wants the next put-back to land.
 */
class QuorumSpreadRedisRacesTest {

    private static final String NAME = "spread:races";
    private static final String KEY = Members.lockKey(NAME);
    private static final String OTHER = "x.1:1";
    private static final LockOptions LEASE_20S = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(20))
            .autoRenew(false)
            .build();
    /** Past the spread's last try (2.55 s after the grant), with margin for a loaded machine. */
    private static final long SPREAD_OVER_MS = 4_500;

    private QuorumFixture fixture;
    private final List<LockClient> clients = new ArrayList<>();
    private final List<FaultProxy> proxies = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
        proxies.forEach(FaultProxy::close);
        if (fixture != null) {
            fixture.close();
        }
    }

    private RedisNode node(int member) {
        return ((RedisLockBackendFixture<?>) fixture.members().get(member))
                .topology()
                .masterForKey(KEY);
    }

    private String valueOn(int member) {
        try {
            Object value = node(member).command("GET", KEY);
            return value == null ? "(none)" : String.valueOf(value);
        } catch (RuntimeException down) {
            return "(down)";
        }
    }

    private long pttl(int member) {
        try {
            return ((Number) node(member).command("PTTL", KEY)).longValue();
        } catch (RuntimeException down) {
            return -3;
        }
    }

    private String values() {
        List<String> v = new ArrayList<>();
        for (int m = 0; m < 3; m++) {
            v.add(valueOn(m) + " (pttl " + pttl(m) + ")");
        }
        return v.toString();
    }

    /** A client over {@code backends} (it owns them), its members enlisted by a first acquisition. */
    private LockClient client(List<LockBackend> backends) {
        LockClient client = LockClient.builder(QuorumBackend.of(backends)).build();
        clients.add(client);
        RuntimeException last = null;
        for (int i = 0; i < 3; i++) {
            try {
                client.lock("warm-up").acquire(Duration.ofSeconds(30)).release();
                return client;
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw last;
    }

    private LockClient client() {
        List<LockBackend> backends = new ArrayList<>();
        for (int m = 0; m < 3; m++) {
            backends.add(fixture.members().get(m).newBackend());
        }
        return client(backends);
    }

    /**
     * Member 2 as one application's backend sees it, with its quorum-restore calls on a connection of their
     * own ({@code restores}): what Jedis's pool does anyway (each call borrows whichever connection is
     * idle); here the put-back's connection goes through a proxy, so that its bytes can be slow (a lost
     * segment retransmitted) while the release's connection is not.
     */
    static final class SplitRestores extends ForwardingLockBackend {
        private final LockBackend restores;
        final AtomicInteger sent = new AtomicInteger();
        final List<String> replies = new CopyOnWriteArrayList<>();

        SplitRestores(LockBackend delegate, LockBackend restores) {
            super(delegate);
            this.restores = restores;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (!ScriptNames.QUORUM_RESTORE.equals(script.name())) {
                return delegate().eval(script, keys, args);
            }
            sent.incrementAndGet();
            return restores.eval(script, keys, args).whenComplete((r, f) -> replies.add(f == null ? "" + r : "" + f));
        }

        @Override
        public void close() {
            try {
                if (restores != delegate()) {
                    restores.close();
                }
            } finally {
                super.close();
            }
        }
    }

    private record Split(LockClient b, SplitRestores member2, FaultProxy link) {}

    /**
     * B's client: members 0 and 1 direct; member 2 direct but for its put-backs, which go through a proxy
     * ({@code putBacksOnly}), or member 2 entirely through the proxy (one link, as Lettuce's one
     * connection).
     */
    private Split bWithAProxiedMember2(String driver, boolean putBacksOnly) throws Exception {
        FaultProxy proxy = FaultProxy.start(node(2).endpoint());
        proxies.add(proxy);
        LockBackend proxied = RedisMembers.member(driver, proxy.endpoint());
        SplitRestores member2 = putBacksOnly
                ? new SplitRestores(fixture.members().get(2).newBackend(), proxied)
                : new SplitRestores(proxied, proxied);
        // the proxied connection opened before any latency: a quorum-restore of another key (below the
        // floor once the warm-up committed, so it writes nothing)
        List<LockBackend> backends = new ArrayList<>();
        backends.add(fixture.members().get(0).newBackend());
        backends.add(fixture.members().get(1).newBackend());
        backends.add(member2);
        LockClient b = client(backends);
        proxied.eval(
                        QuorumRestore.RESTORE,
                        List.of(LockKeys.quorumRecordKey(Members.PREFIX), Members.lockKey("warm-up")),
                        List.of("w.1:1:0", "1000"))
                .get(10, TimeUnit.SECONDS);
        return new Split(b, member2, proxy);
    }

    private record Granted(Lease lease, String owner, long grantedAt) {}

    private Granted grantedOnMembers0And1(LockClient b, LockOptions options) {
        fixture.members().get(2).writeKey(KEY, OTHER);
        Lease lease = b.lock(NAME, options).acquire(Duration.ofSeconds(10));
        long grantedAt = System.nanoTime();
        String owner = ownerOf(valueOn(0));
        assertEquals(OTHER, valueOn(2), "member 2 held by another owner at B's grant");
        return new Granted(lease, owner, grantedAt);
    }

    /**
     * Slows member 2's put-back link by {@code latency} and waits until the spread sent a put-back after
     * that (its bytes are then on the slow link); when it was sent.
     */
    private static long aPutBackOnTheSlowLink(Split split, Duration latency) {
        split.link().latency(Direction.CLIENT_TO_TARGET, latency);
        int before = split.member2().sent.get();
        Members.await(
                "a put-back sent on the slow link", () -> split.member2().sent.get() > before);
        return System.nanoTime();
    }

    /**
     * Close: the same slow put-back on its own pooled connection, but B's client closes instead
     * of releasing (it releases the lease, then closes the members). The put-back lands after the release;
     * its answer finds the backend closed. No copy of B's lease may stay on member 2.
     */
    @RepeatedTest(2)
    void shouldNotLeaveACopyWhenTheClientClosesWhileAPutBackIsOnItsWay() throws Exception {
        fixture = RedisMembers.of("jedis", 3);
        Split split = bWithAProxiedMember2("jedis", true);
        Granted granted = grantedOnMembers0And1(split.b(), LEASE_20S);
        long sentAt = aPutBackOnTheSlowLink(split, Duration.ofMillis(1_500));
        fixture.members().get(2).deleteKey(KEY);
        Thread closing = new Thread(split.b()::close, "closing-b");
        closing.start();
        Members.await(
                "B's lease released on member 0 by the close", () -> valueOn(0).equals("(none)"));
        long releasedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        closing.join(TimeUnit.SECONDS.toMillis(20));
        long closedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        assertTrue(
                releasedMs < 1_300,
                "the close's release came " + releasedMs + " ms after the put-back was sent:"
                        + " it did not overtake it");
        sleepUntil(Math.max(sentAt + TimeUnit.MILLISECONDS.toNanos(1_500 + 3_000), System.nanoTime()));
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's lease 3 s after its put-back landed (released " + releasedMs + " ms and"
                        + " closed " + closedMs + " ms after the put-back was sent; lease 20 s): " + values());
    }

    /**
     * The same close over one link per member (Lettuce's one connection; the whole of member 2's link slow):
     * the release follows the put-back on the same link, so it lands after it.
     */
    @RepeatedTest(2)
    void shouldNotLeaveACopyWhenTheClientClosesWhileAPutBackIsOnItsWayOnOneLink() throws Exception {
        fixture = RedisMembers.of("lettuce", 3);
        Split split = bWithAProxiedMember2("lettuce", false);
        Granted granted = grantedOnMembers0And1(split.b(), LEASE_20S);
        long sentAt = aPutBackOnTheSlowLink(split, Duration.ofMillis(1_500));
        fixture.members().get(2).deleteKey(KEY);
        split.b().close();
        assertEquals("(none)", valueOn(0), "B's lease released on member 0 by the close");
        sleepUntil(Math.max(sentAt + TimeUnit.MILLISECONDS.toNanos(1_500 + 3_000), System.nanoTime()));
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's lease after its client closed (lease 20 s): " + values());
    }

    /**
     * Jedis's pool, a put-back whose answer is lost: the put-back's request is 1.5 s on its way
     * and its reply 1.5 s more (past Jedis's 2 s socket timeout), B releases on another connection
     * meanwhile. The put-back lands after the release; its call failed (read timed out): it may have
     * landed, so the release is sent there again. No copy of B's lease may stay on member 2.
     */
    @RepeatedTest(2)
    void shouldNotLeaveACopyWhenAPutBackOvertakenByTheReleaseTimesOut() throws Exception {
        fixture = RedisMembers.of("jedis", 3);
        Split split = bWithAProxiedMember2("jedis", true);
        Granted granted = grantedOnMembers0And1(split.b(), LEASE_20S);
        // the put-back's request 1.5 s on its way (it lands after the release), its reply 1.5 s more: past
        // Jedis's 2 s socket timeout, so the call fails (Jedis resets the connection: the reply is lost)
        long sentAt = aPutBackOnTheSlowLink(split, Duration.ofMillis(1_500));
        split.link().latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(1_500)); // before its reply comes
        fixture.members().get(2).deleteKey(KEY);
        assertTrue(granted.lease().release(), "B's release confirmed");
        long releasedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        assertTrue(releasedMs < 1_200, "the release took " + releasedMs + " ms: it did not overtake the put-back");
        // released again once the failed call is known (the member skipped for a second after its failure,
        // then the release resent there, 1.5 s on its way): gone long before the 20 s lease would end
        long landed = sentAt + TimeUnit.MILLISECONDS.toNanos(1_500);
        sleepUntil(landed + TimeUnit.MILLISECONDS.toNanos(100));
        boolean seen = ownerOf(valueOn(2)).equals(granted.owner());
        while (ownerOf(valueOn(2)).equals(granted.owner())) {
            assertTrue(
                    System.nanoTime() - landed < TimeUnit.SECONDS.toNanos(8),
                    () -> "member 2 holds B's released lease 8 s after its put-back landed (lease 20 s; put-back"
                            + " replies " + split.member2().replies + "): " + values());
            Thread.sleep(10);
        }
        System.out.println("[spread] a put-back whose answer was lost (its copy seen after it landed: " + seen
                + "): no copy " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - landed) + " ms after it landed");
    }

    /** The same over one slow link (Lettuce; 6 s, past its 5 s command timeout): the release follows. */
    @RepeatedTest(2)
    void shouldNotLeaveACopyWhenAPutBackOnOneSlowLinkTimesOut() throws Exception {
        fixture = RedisMembers.of("lettuce", 3);
        Split split = bWithAProxiedMember2("lettuce", false);
        Granted granted = grantedOnMembers0And1(split.b(), LEASE_20S);
        long sentAt = aPutBackOnTheSlowLink(split, Duration.ofMillis(6_000));
        fixture.members().get(2).deleteKey(KEY);
        assertTrue(granted.lease().release(), "B's release confirmed");
        sleepUntil(Math.max(sentAt + TimeUnit.MILLISECONDS.toNanos(6_000 + 3_000), System.nanoTime()));
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's released lease (lease 20 s; put-back replies " + split.member2().replies
                        + "): " + values());
    }

    /**
     * ForceRelease during the spread: B's own client force-releases the lock while B's spread still tries
     * member 2; member 2 then frees up. No copy of the force-released lease may be put there. (A
     * force-release from another client is not seen by B's: see docs/design/quorum-locks.md, F12.)
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldNotPutBackALeaseThatItsClientForceReleasedWhileItsSpreadTried(String driver) throws Exception {
        fixture = RedisMembers.of(driver, 3);
        LockClient b = client();
        Granted granted = grantedOnMembers0And1(b, LEASE_20S);
        assertTrue(b.lock(NAME).forceRelease(), "the force-release deleted B's lock");
        fixture.members().get(2).deleteKey(KEY);
        sleepUntil(granted.grantedAt() + TimeUnit.MILLISECONDS.toNanos(SPREAD_OVER_MS));
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's force-released lease " + SPREAD_OVER_MS + " ms after its grant (lease"
                        + " 20 s): " + values());
    }

    /**
     * Documented as not covered; measured: B's 20 s lease shortened to 1 s by its extend while
     * the spread still tries member 2; member 2 frees up and the spread's copy lands (carrying what was
     * left of the 20 s). The engine's clean-up at the shortened lease's end removes it: no copy
     * of B's lease 2 s after the shortened lease ended. (Not covered: B's process crashing before that
     * clean-up; the copy then lives what was left of the 20 s, see docs/design/quorum-locks.md F12.)
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldNotKeepASpreadCopyPastALeaseShortenedByExtend(String driver) throws Exception {
        fixture = RedisMembers.of(driver, 3);
        List<FaultProxy> links = new ArrayList<>();
        List<LockBackend> backends = new ArrayList<>();
        for (int m = 0; m < 3; m++) {
            FaultProxy proxy = FaultProxy.start(node(m).endpoint());
            proxies.add(proxy);
            links.add(proxy);
            backends.add(RedisMembers.member(driver, proxy.endpoint()));
        }
        LockClient b = client(backends);
        Granted granted = grantedOnMembers0And1(b, LEASE_20S);
        granted.lease().extend(Duration.ofSeconds(1));
        long shortenedEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        fixture.members().get(2).deleteKey(KEY);
        Members.await("the spread's copy on member 2", () -> ownerOf(valueOn(2)).equals(granted.owner()));
        long pttlAtLanding = pttl(2);
        sleepUntil(shortenedEnd + TimeUnit.SECONDS.toNanos(2));
        String on0 = valueOn(0);
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's lease 2 s after its shortened 1 s lease ended (pttl " + pttlAtLanding
                        + " ms when it landed; member 0: " + on0 + "): " + values());
    }
}
