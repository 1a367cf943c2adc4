package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review attack (helper 64) on the acquisition's lease spread ({@link LeaseSpread}) over three real
 * {@code redis-server}s. Member 2 holds another owner's lock ({@code x.1:1}, no TTL) at B's grant, so B's
 * lease is granted on members 0 and 1 only and its spread keeps asking member 2 (about 2.5 s); the test
 * frees member 2 when it wants the next put-back to land.
 */
class QuorumSpreadAttack64RedisTest {

    private static final String NAME = "spread:attack64";
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

    private static String ownerOf(String value) {
        int sep = value.indexOf(':');
        return sep < 0 ? value : value.substring(0, sep);
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(20)));
        }
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
     * Attack 1 (Jedis's pool): B's put-back on one pooled connection is slow (1.5 s on its way), member 2
     * frees up, B releases on another connection at once; the put-back lands after the release. It must be
     * released again as it answers: the copy gone within a second of its answer.
     */
    @RepeatedTest(2)
    void shouldUndoAPutBackThatAReleaseOnAnotherPooledConnectionOvertook() throws Exception {
        fixture = RedisMembers.of("jedis", 3);
        Split split = bWithAProxiedMember2("jedis", true);
        Granted granted = grantedOnMembers0And1(split.b(), LEASE_20S);
        int repliesBefore = split.member2().replies.size();
        long sentAt = aPutBackOnTheSlowLink(split, Duration.ofMillis(1_500));
        fixture.members().get(2).deleteKey(KEY);
        assertTrue(granted.lease().release(), "B's release confirmed");
        long releasedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        assumeTrue(releasedMs < 1_200, "the release took " + releasedMs + " ms: it did not overtake the put-back");
        Members.await(
                "the slow put-back answered", () -> split.member2().replies.size() > repliesBefore);
        long answeredAt = System.nanoTime();
        String reply = split.member2().replies.get(repliesBefore);
        assumeTrue(reply.equals("[[1]]"), "the put-back did not land after the release: " + reply);
        long goneAt = -1;
        while (ownerOf(valueOn(2)).equals(granted.owner())) {
            long pttl = pttl(2);
            assertTrue(
                    System.nanoTime() - answeredAt < TimeUnit.SECONDS.toNanos(1),
                    () -> "B's released lease stayed on member 2 a second after its late put-back answered (pttl "
                            + pttl + " ms): " + values());
            Thread.sleep(2);
        }
        goneAt = System.nanoTime();
        System.out.println("[attack64] Jedis pooled overtake: copy gone "
                + TimeUnit.NANOSECONDS.toMillis(goneAt - answeredAt) + " ms after the put-back's answer; "
                + values());
    }

    /**
     * Attack 3 (close): the same slow put-back on its own pooled connection, but B's client closes instead
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
        Thread closing = new Thread(split.b()::close, "attack64-close");
        closing.start();
        Members.await(
                "B's lease released on member 0 by the close", () -> valueOn(0).equals("(none)"));
        long releasedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        closing.join(TimeUnit.SECONDS.toMillis(20));
        long closedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        assumeTrue(
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
     * Attack 3 (close between a late put-back and its undoing release): B releases while its put-back is
     * on its way on another pooled connection (1 s there, and 0.8 s back: within Jedis's 2 s timeout); the
     * put-back lands after the release (B's copy appears on member 2), and B's client closes before the
     * put-back's answer comes back, so the release again that the answer would trigger is never sent. No
     * copy of B's lease may stay on member 2.
     */
    @RepeatedTest(2)
    void shouldNotLeaveACopyWhenTheClientClosesBetweenALatePutBackAndItsAnswer() throws Exception {
        fixture = RedisMembers.of("jedis", 3);
        Split split = bWithAProxiedMember2("jedis", true);
        Granted granted = grantedOnMembers0And1(split.b(), LEASE_20S);
        long sentAt = aPutBackOnTheSlowLink(split, Duration.ofMillis(1_000));
        split.link().latency(Direction.TARGET_TO_CLIENT, Duration.ofMillis(800)); // before its reply comes
        fixture.members().get(2).deleteKey(KEY);
        assertTrue(granted.lease().release(), "B's release confirmed");
        long releasedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        assumeTrue(releasedMs < 900, "the release took " + releasedMs + " ms: it did not overtake the put-back");
        Members.await(
                "the late put-back landed on member 2",
                () -> ownerOf(valueOn(2)).equals(granted.owner()));
        long landedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        split.b().close(); // before the put-back's answer (about 1.8 s after it was sent)
        long closedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        String replies = split.member2().replies.toString();
        sleepUntil(sentAt + TimeUnit.MILLISECONDS.toNanos(1_800 + 3_000));
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's released lease 3 s after the put-back's answer was due (released "
                        + releasedMs + " ms, landed " + landedMs + " ms, client closed " + closedMs
                        + " ms after the put-back was sent; replies at the close " + replies + "): " + values());
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
     * Attack 1 (Jedis's pool, a put-back whose answer is lost): the put-back's request is 1.5 s on its way
     * and its reply 1.5 s more (past Jedis's 2 s socket timeout), B releases on another connection
     * meanwhile. The put-back lands after the release; its call failed (read timed out), so nothing
     * releases it again. No copy of B's lease may stay on member 2.
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
        assumeTrue(releasedMs < 1_200, "the release took " + releasedMs + " ms: it did not overtake the put-back");
        sleepUntil(sentAt + TimeUnit.MILLISECONDS.toNanos(1_500 + 3_000));
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's released lease 3 s after its put-back landed (lease 20 s; put-back"
                        + " replies " + split.member2().replies + "): " + values());
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
     * Attack 5 (forceRelease during the spread): the operator's force-release deletes B's lock while B's
     * spread still tries member 2; member 2 then frees up. No copy of the force-released lease may be put
     * there.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldNotPutBackALeaseThatWasForceReleasedWhileItsSpreadTried(String driver) throws Exception {
        fixture = RedisMembers.of(driver, 3);
        LockClient b = client();
        LockClient admin = client();
        Granted granted = grantedOnMembers0And1(b, LEASE_20S);
        assertTrue(admin.lock(NAME).forceRelease(), "the operator's force-release deleted B's lock");
        fixture.members().get(2).deleteKey(KEY);
        sleepUntil(granted.grantedAt() + TimeUnit.MILLISECONDS.toNanos(SPREAD_OVER_MS));
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's force-released lease " + SPREAD_OVER_MS + " ms after its grant (lease"
                        + " 20 s): " + values());
    }

    /**
     * Attack 4 (documented as not covered; measured): B's 20 s lease shortened to 1 s by its extend while
     * the spread still tries member 2; member 2 frees up and the spread's copy lands (carrying what was
     * left of the 20 s). With {@code crash}, B's process then goes silent (its links to every member
     * dropped: a crash or a freeze), so the engine's clean-up at the shortened lease's end never comes.
     * Asserted: no copy of B's lease 2 s after the shortened lease ended.
     */
    @ParameterizedTest(name = "{0}, B crashes: {1}")
    @CsvSource({"lettuce, false", "jedis, false", "lettuce, true", "jedis, true"})
    void shouldNotKeepASpreadCopyPastALeaseShortenedByExtend(String driver, boolean crash) throws Exception {
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
        if (crash) {
            links.forEach(l -> l.partition(io.leasehold.lock.testkit.faults.Silence.DROP));
        }
        sleepUntil(shortenedEnd + TimeUnit.SECONDS.toNanos(2));
        String on0 = valueOn(0);
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's lease 2 s after its shortened 1 s lease ended (pttl " + pttlAtLanding
                        + " ms when it landed; member 0: " + on0 + "): " + values());
    }
}
