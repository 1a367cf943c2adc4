package io.leasehold.lock.quorum;

import static io.leasehold.lock.quorum.Members.ownerOf;
import static io.leasehold.lock.quorum.Members.sleepUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review attack (helper 64) on the acquisition's lease spread ({@link LeaseSpread}) over three in-memory
 * members. Member 2 holds another owner's lock ({@code x.1:1}, no TTL) at B's grant, so B's lease is
 * granted on members 0 and 1 only and its spread keeps asking member 2 (0, 10, 30, 70, 150, 310, 630, 1270,
 * 2550 ms after the grant); the test frees member 2 when it wants the next try to land.
 */
class QuorumSpreadAfterReleasesTest {

    private static final String NAME = "spread:races";
    private static final String KEY = Members.lockKey(NAME);
    private static final String OTHER = "x.1:1";
    private static final LockOptions LONG_NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();
    /** Past the spread's last try (2.55 s after the grant), with margin for a loaded machine. */
    private static final long SPREAD_OVER_MS = 4_500;

    private final Members members = new Members(3);
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        members.close();
    }

    private LockClient client() {
        QuorumBackend quorum = members.quorum();
        LockClient client = LockClient.create(quorum);
        closing.add(quorum);
        closing.add(client);
        client.lock("warm-up").acquire(Duration.ofSeconds(5)).release();
        return client;
    }

    private String valueOn(int member) {
        return members.store(member).get(KEY).orElse("(none)");
    }

    private String values() {
        List<String> v = new ArrayList<>();
        for (int m = 0; m < 3; m++) {
            v.add(valueOn(m) + " (pttl " + members.store(m).pttl(KEY) + ")");
        }
        return v.toString();
    }

    /** B's lease granted on members 0 and 1 while member 2 holds {@link #OTHER}; B's owner. */
    private record Granted(Lease lease, String owner, long grantedAt) {}

    private Granted grantedOnMembers0And1(LockClient b) {
        members.store(2).writeKey(KEY, OTHER);
        Lease lease = b.lock(NAME, LONG_NO_RENEW).acquire(Duration.ofSeconds(5));
        long grantedAt = System.nanoTime();
        String owner = ownerOf(valueOn(0));
        assertEquals(OTHER, valueOn(2), "member 2 held by another owner at B's grant");
        return new Granted(lease, owner, grantedAt);
    }

    /** Member 2's backend for B, counting the spread's put-backs sent and answered. */
    static final class CountingRestores extends io.leasehold.lock.testkit.ForwardingLockBackend {
        final AtomicInteger sent = new AtomicInteger();
        final AtomicInteger answered = new AtomicInteger();

        CountingRestores(io.leasehold.lock.spi.LockBackend delegate) {
            super(delegate);
        }

        @Override
        public java.util.concurrent.CompletableFuture<Object> eval(
                io.leasehold.lock.spi.LuaScript script, List<String> keys, List<String> args) {
            if (!io.leasehold.lock.spi.ScriptNames.QUORUM_RESTORE.equals(script.name())) {
                return delegate().eval(script, keys, args);
            }
            sent.incrementAndGet();
            return delegate().eval(script, keys, args).whenComplete((r, f) -> answered.incrementAndGet());
        }
    }

    /**
     * ReleasedOwners keeps the latest 4096 releases of the quorum backend, and the spread decides
     * each try when it sends it, up to 2.55 s after the grant (its last wait is 1.28 s). B holds its lease
     * through the spread's 8th try (about 1.27 s), then releases it; a second client of the same quorum
     * backend, under another key prefix (so that the member's floor of B's prefix stays where it is),
     * then releases {@code others} leases of other locks (each acquired and released through the engine,
     * 8 threads) before the 9th try; member 2 frees up. The 9th try must not put B's released lease on
     * member 2. With 100 other releases the check holds; with 4,200 B's release is pushed out first.
     */
    @ParameterizedTest(name = "other releases: {0}")
    @ValueSource(ints = {100, 4_200})
    void shouldNotPutBackAReleasedLeaseWhenTheClientReleasedManyOtherLocksSince(int others) throws Exception {
        CountingRestores member2 = new CountingRestores(members.fixtures.get(2).newBackend());
        QuorumBackend quorum = QuorumBackend.of(
                members.fixtures.get(0).newBackend(), members.fixtures.get(1).newBackend(), member2);
        LockClient b = LockClient.create(quorum);
        LockClient bulk = LockClient.builder(quorum).keyPrefix("bulk:").build();
        closing.add(quorum);
        closing.add(b);
        closing.add(bulk);
        b.lock("warm-up").acquire(Duration.ofSeconds(5)).release();
        bulk.lock("warm-up").acquire(Duration.ofSeconds(5)).release();
        Granted granted = grantedOnMembers0And1(b);
        Members.await("the spread's 8th try answered", () -> member2.answered.get() >= 8);
        assertEquals(8, member2.sent.get(), "the 9th try not sent yet");
        assertTrue(granted.lease().release(), "B's release confirmed");
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            AtomicInteger next = new AtomicInteger();
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < others) {
                        bulk.lock("bulk:" + i, LONG_NO_RENEW)
                                .acquire(Duration.ofSeconds(5))
                                .release();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        members.store(2).deleteKey(KEY); // member 2 frees up: the spread's next try finds the name free
        assertTrue(
                member2.sent.get() == 8,
                "the other releases took " + tookMs + " ms: the spread's 9th try went out before they were done");
        long deadline = granted.grantedAt() + TimeUnit.MILLISECONDS.toNanos(SPREAD_OVER_MS);
        while (System.nanoTime() < deadline && member2.answered.get() < 9) {
            Thread.sleep(5); // the 9th try put back (or refused), or not sent at all (B's release known)
        }
        String on2 = valueOn(2);
        assertFalse(
                ownerOf(on2).equals(granted.owner()),
                () -> "member 2 holds B's lease, released before the spread's 9th try (" + member2.sent.get()
                        + " put-backs sent; " + others
                        + " other releases in " + tookMs + " ms since): " + values());
    }

    /**
     * forceRelease ("deletes the lock whoever holds it") from B's own client while B's spread still tries
     * member 2. The holder's lease is over; no copy of it may be put on a member afterwards, though
     * force-release carries no owner. (One from another client is not seen by B's: see
     * docs/design/quorum-locks.md, F12.)
     */
    @RepeatedTest(2)
    void shouldNotPutBackALeaseThatItsClientForceReleasedWhileItsSpreadTried() throws Exception {
        LockClient b = client();
        Granted granted = grantedOnMembers0And1(b);
        assertTrue(b.lock(NAME).forceRelease(), "the force-release deleted B's lock");
        assertEquals("(none)", valueOn(0));
        assertEquals("(none)", valueOn(1));
        members.store(2).deleteKey(KEY); // member 2 frees up while B's spread still tries
        sleepUntil(granted.grantedAt() + TimeUnit.MILLISECONDS.toNanos(SPREAD_OVER_MS));
        assertFalse(
                ownerOf(valueOn(2)).equals(granted.owner()),
                () -> "member 2 holds B's force-released lease " + SPREAD_OVER_MS + " ms after its grant: " + values());
    }

    /**
     * Were a copy put back after the force-release, D (taking the lock on members 0 and 1) would be
     * answered "taken" by member 2 once member 0 dies. Two of three members are up and nobody else holds
     * the lock, so D's extend must be confirmed.
     */
    @RepeatedTest(2)
    void shouldKeepTheNextHoldersLeaseThroughAMemberDeathAfterAForceReleaseDuringTheSpread() throws Exception {
        LockClient b = client();
        LockClient d = client();
        Granted granted = grantedOnMembers0And1(b);
        assertTrue(b.lock(NAME).forceRelease(), "the force-release deleted B's lock");
        members.store(2).deleteKey(KEY);
        long deadline = granted.grantedAt() + TimeUnit.MILLISECONDS.toNanos(SPREAD_OVER_MS);
        while (System.nanoTime() < deadline && !ownerOf(valueOn(2)).equals(granted.owner())) {
            Thread.sleep(5); // bounded: B's spread lands on member 2, or not at all
        }
        String beforeD = values();
        Lease dLease = d.lock(NAME, LONG_NO_RENEW).acquire(Duration.ofSeconds(5));
        sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SPREAD_OVER_MS)); // D's own spread is over
        String beforeDeath = values();
        members.fixtures.get(0).makeUnavailable();
        try {
            dLease.extend(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            throw new AssertionError(
                    "D's extend after member 0 died failed (2 of 3 members up, B force-released); before D: " + beforeD
                            + ", before the death: " + beforeDeath + ", now: " + values(),
                    e);
        }
        assertFalse(dLease.lost().isDone(), () -> "D lost: " + dLease.lost().join());
        assertTrue(dLease.release());
        Optional<Lease> again = d.lock(NAME).tryAcquire(Duration.ofSeconds(2));
        assertTrue(again.isPresent(), () -> "lock free after D's release, member 0 down: " + values());
        again.get().release();
    }
}
