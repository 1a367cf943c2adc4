package io.leasehold.lock.quorum;

import static io.leasehold.lock.quorum.Members.ownerOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fair lease granted while a fair waiter contends lives on exactly a majority of five members at its
 * grant (in memory, and on real {@code redis-server}s with each driver): members 3 and 4 held the previous
 * holder's copy, whose release reached them late, and from then on the waiter's transient phase-1 grants.
 * The issue promises that two members of five may die while locks are held and contended, with no loss.
 * Without auto-renew no renewal puts the lease on the others, so the holder's acquisition must.
 */
class QuorumFairLeaseSpreadTest {

    private static final String NAME = "orders:spread";
    private static final String LOCK_KEY = Members.lockKey(NAME);
    private static final String QUEUE_KEY = LockKeys.quorumQueueKey(Members.PREFIX, NAME);
    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(10))
            .autoRenew(false)
            .build();

    private final List<LockClient> clients = new ArrayList<>();
    private FiveMembers members;

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
        if (members != null) {
            members.close();
        }
    }

    /**
     * A member whose calls of the scripts {@link #holds} names are held (not sent) while {@link #hold}ing,
     * until {@link #letGo}.
     */
    static final class HoldingReleases extends ForwardingLockBackend {
        private final List<Runnable> held = new CopyOnWriteArrayList<>();
        private final java.util.function.Predicate<String> holds;
        private volatile boolean holding;

        /** Holds release.lua's calls. */
        HoldingReleases(LockBackend delegate) {
            this(delegate, ScriptNames.RELEASE::equals);
        }

        HoldingReleases(LockBackend delegate, java.util.function.Predicate<String> holds) {
            super(delegate);
            this.holds = holds;
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (holding && holds.test(script.name())) {
                CompletableFuture<Object> later = new CompletableFuture<>();
                held.add(() -> delegate().eval(script, keys, args).whenComplete((r, f) -> {
                    if (f != null) {
                        later.completeExceptionally(f);
                    } else {
                        later.complete(r);
                    }
                }));
                return later;
            }
            return delegate().eval(script, keys, args);
        }

        void hold() {
            holding = true;
        }

        int heldCount() {
            return held.size();
        }

        /** Sends every held release, and holds no more. */
        void letGo() {
            holding = false;
            held.forEach(Runnable::run);
            held.clear();
        }
    }

    /**
     * A client over {@code backends}, its members enlisted and connected by a first acquisition of another
     * lock (a new client's first calls to real servers open its connections, which on a loaded machine
     * can take longer than the command timeout: tried three times).
     */
    private LockClient client(List<LockBackend> backends) {
        LockClient client = LockClient.builder(QuorumBackend.of(backends)).build();
        clients.add(client);
        io.leasehold.lock.LockBackendException last = null;
        for (int i = 0; i < 3; i++) {
            try {
                client.fairLock("warm-up").acquire(Duration.ofSeconds(30)).release();
                return client;
            } catch (io.leasehold.lock.LockBackendException e) {
                last = e;
            }
        }
        throw last;
    }

    private LockClient client() {
        return client(backends(0, 5));
    }

    private List<LockBackend> backends(int from, int to) {
        List<LockBackend> backends = new ArrayList<>();
        for (int m = from; m < to; m++) {
            backends.add(members.newBackend(m));
        }
        return backends;
    }

    private String valueOn(int member) {
        return members.value(member);
    }

    private List<String> values() {
        List<String> values = new ArrayList<>();
        for (int m = 0; m < 5; m++) {
            values.add(valueOn(m));
        }
        return values;
    }

    private int queued(int member) {
        return members.scores(member, QUEUE_KEY).size();
    }

    private void awaitQueuedEverywhere(int count) {
        Members.await(count + " fair waiters queued on every member", () -> {
            for (int m = 0; m < 5; m++) {
                if (queued(m) != count) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Waits until the waiters' tickets agree on every member (each one's chosen ticket written back). */
    private void awaitTicketsAgree() {
        Members.await("the waiters' tickets agree on every member", () -> {
            java.util.Map<String, java.util.Set<Double>> scores = new java.util.HashMap<>();
            for (int m = 0; m < 5; m++) {
                members.scores(m, QUEUE_KEY)
                        .forEach((waiter, ticket) -> scores.computeIfAbsent(waiter, k -> new java.util.HashSet<>())
                                .add(ticket));
            }
            return scores.values().stream().allMatch(t -> t.size() == 1);
        });
    }

    @RepeatedTest(3)
    void shouldKeepAFairLeaseThroughTheDeathOfTwoOfFiveMembersWhileWaitersContend() throws Exception {
        members = FiveMembers.inMemory(LOCK_KEY);
        keepsTheFairLeaseThroughTwoDeaths();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void shouldKeepAFairLeaseThroughTheDeathOfTwoOfFiveRedisServersWhileWaitersContend(String driver) throws Exception {
        members = FiveMembers.redis(driver, LOCK_KEY);
        keepsTheFairLeaseThroughTwoDeaths();
    }

    /**
     * The grant on exactly a majority: A holds on every member, B then C wait (demonstrably queued), A
     * releases with its release held on members 3 and 4, and B is granted by members 0, 1 and 2 (A's copy
     * still on member 3). A's held releases are not sent yet.
     */
    private record Granted(
            Lease second,
            String bOwner,
            CompletableFuture<Boolean> aReleased,
            CompletableFuture<Lease> cWaits,
            HoldingReleases slow3,
            HoldingReleases slow4) {}

    private Granted grantedOnExactlyAMajority() throws Exception {
        return grantedOnExactlyAMajority(backends(0, 5), backends(0, 5));
    }

    /** {@link #grantedOnExactlyAMajority()} with B's quorum over {@code bMembers}, C's over {@code cMembers}. */
    private Granted grantedOnExactlyAMajority(List<LockBackend> bMembers, List<LockBackend> cMembers) throws Exception {
        return grantedOnExactlyAMajority(bMembers, cMembers, NO_RENEW);
    }

    /** {@link #grantedOnExactlyAMajority(List, List)} with B's lock taken with {@code bOptions}. */
    private Granted grantedOnExactlyAMajority(
            List<LockBackend> bMembers, List<LockBackend> cMembers, LockOptions bOptions) throws Exception {
        // A (the first holder) reaches members 3 and 4 through members that can hold its release
        HoldingReleases slow3 = new HoldingReleases(members.newBackend(3));
        HoldingReleases slow4 = new HoldingReleases(members.newBackend(4));
        List<LockBackend> aMembers = backends(0, 3);
        aMembers.add(slow3);
        aMembers.add(slow4);
        LockClient a = client(aMembers);
        LockClient b = client(bMembers);
        LockClient c = client(cMembers);
        Lease first = a.fairLock(NAME, NO_RENEW).acquire(Duration.ofSeconds(5));
        String firstOwner = ownerOf(valueOn(0));
        Members.await(
                "A's lease on every member",
                () -> values().stream().allMatch(v -> ownerOf(v).equals(firstOwner)));

        // B, then C wait, each demonstrably queued on every member (B ahead of C everywhere)
        CompletableFuture<Lease> bWaits = b.fairLock(NAME, bOptions).acquireAsync(Duration.ofSeconds(30));
        awaitQueuedEverywhere(1);
        CompletableFuture<Lease> cWaits = c.fairLock(NAME, NO_RENEW).acquireAsync(Duration.ofSeconds(60));
        awaitQueuedEverywhere(2);
        awaitTicketsAgree();

        // A releases; its release reaches members 3 and 4 late: B is granted by members 0, 1 and 2
        slow3.hold();
        slow4.hold();
        CompletableFuture<Boolean> aReleased = first.releaseAsync();
        Lease second = bWaits.get(20, TimeUnit.SECONDS);
        String bOwner = ownerOf(valueOn(0));
        assertEquals(firstOwner, ownerOf(valueOn(3)), "A's copy still on member 3 when B was granted");
        Members.await("A's release held on members 3 and 4", () -> slow3.heldCount() > 0 && slow4.heldCount() > 0);
        return new Granted(second, bOwner, aReleased, cWaits, slow3, slow4);
    }

    private void keepsTheFairLeaseThroughTwoDeaths() throws Exception {
        Granted granted = grantedOnExactlyAMajority();
        Lease second = granted.second();
        String bOwner = granted.bOwner();
        CompletableFuture<Boolean> aReleased = granted.aReleased();
        CompletableFuture<Lease> cWaits = granted.cWaits();
        HoldingReleases slow3 = granted.slow3();
        HoldingReleases slow4 = granted.slow4();
        slow3.letGo();
        slow4.letGo();
        assertTrue(aReleased.get(20, TimeUnit.SECONDS), "A's release confirmed by a majority");

        // C contends: it asks (its places kept on every member) while B holds
        awaitQueuedEverywhere(1);
        assertFalse(cWaits.isDone(), "C waits while B holds");

        // the holder's lease spreads to the members that were held at its grant (bounded wait: no assert
        // here, the deaths below tell)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline
                && !(ownerOf(valueOn(3)).equals(bOwner) && ownerOf(valueOn(4)).equals(bOwner))) {
            Thread.sleep(10);
        }
        List<String> beforeDeaths = values();

        // two members that held B's lease at its grant die; three of five are up
        members.kill(0);
        members.kill(1);
        try {
            second.extend(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            throw new AssertionError(
                    "B's extend after two of five members died failed (values before the deaths: " + beforeDeaths
                            + ", after: " + values() + ", C's owner queued: " + queued(3) + ")",
                    e);
        }
        assertFalse(second.lost().isDone(), () -> "B lost: " + second.lost().join());
        assertEquals(LeaseState.UNCERTAIN, second.state(), "two members down: valid, one failure from lost");
        assertTrue(second.release(), () -> "B's release, values before the deaths: " + beforeDeaths);

        Lease third = cWaits.get(20, TimeUnit.SECONDS);
        assertTrue(
                third.fencingToken() > second.fencingToken(),
                "C's token " + third.fencingToken() + " above B's " + second.fencingToken());
        assertTrue(third.release());
    }

    /**
     * The spread never leaves a lease behind its release: B, granted on exactly members 0, 1 and 2, sends
     * its spread to members 3 and 4 (still holding A's copy; held here on the way), then releases. Once
     * A's release freed members 3 and 4 (C's calls to them held meanwhile, so that C takes nothing there),
     * the held put-backs land on the free members: each must be released again at once (B's release came
     * while they were on their way), or it would keep C's lease off those members for B's whole lease.
     * C is granted, and its own lease spreads to every member.
     */
    @RepeatedTest(3)
    void shouldNotLeaveALeaseReleasedWhileItsSpreadWasOnItsWayOnTheMembersItReached() throws Exception {
        members = FiveMembers.inMemory(LOCK_KEY);
        List<Runnable> heldPutBacks = new CopyOnWriteArrayList<>();
        QuorumRestoreRaceTest.HoldingRestores b3 =
                new QuorumRestoreRaceTest.HoldingRestores(members.newBackend(3), heldPutBacks);
        QuorumRestoreRaceTest.HoldingRestores b4 =
                new QuorumRestoreRaceTest.HoldingRestores(members.newBackend(4), heldPutBacks);
        List<LockBackend> bMembers = backends(0, 3);
        bMembers.add(b3);
        bMembers.add(b4);
        HoldingReleases c3 = new HoldingReleases(members.newBackend(3), name -> true);
        HoldingReleases c4 = new HoldingReleases(members.newBackend(4), name -> true);
        List<LockBackend> cMembers = backends(0, 3);
        cMembers.add(c3);
        cMembers.add(c4);
        Granted granted = grantedOnExactlyAMajority(bMembers, cMembers);
        Members.await("B's spread sent to members 3 and 4", () -> heldPutBacks.size() >= 2);
        c3.hold();
        c4.hold();
        assertTrue(granted.second().release(), "B's release confirmed by members 0, 1 and 2");
        granted.slow3().letGo();
        granted.slow4().letGo();
        assertTrue(granted.aReleased().get(20, TimeUnit.SECONDS));
        Members.await(
                "members 3 and 4 free (A's copies released)",
                () -> valueOn(3).equals("(none)") && valueOn(4).equals("(none)"));
        heldPutBacks.forEach(Runnable::run); // B's put-backs land on the free members, after B's release
        Members.await("B's put-backs answered", () -> b3.answered.get() > 0 && b4.answered.get() > 0);
        // released again as each put-back answered: gone at once, not when B's lease would have run out
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (ownerOf(valueOn(3)).equals(granted.bOwner())
                || ownerOf(valueOn(4)).equals(granted.bOwner())) {
            assertTrue(
                    System.nanoTime() < deadline,
                    () -> "a copy of B's released lease stayed on members 3 and 4 (pttl " + members.pttl(3) + " ms): "
                            + values());
            Thread.sleep(5);
        }
        c3.letGo();
        c4.letGo();
        Lease third = granted.cWaits().get(20, TimeUnit.SECONDS);
        String cOwner = ownerOf(valueOn(0));
        // C's spread reaches every member within its tries (about 2.5 s)
        Members.await(
                "C's lease on every member",
                () -> values().stream().allMatch(v -> ownerOf(v).equals(cOwner)));
        assertTrue(third.fencingToken() > granted.second().fencingToken());
        assertTrue(third.release());
    }

    /** B's lease: long, not renewed, and held at least {@link #MIN_HOLD} after its grant (see LockOptions#minHoldTime). */
    private static final Duration MIN_HOLD = Duration.ofSeconds(2);

    private static final LockOptions HOLDING = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .minHoldTime(MIN_HOLD)
            .build();

    /** C's members: 3 and 4 through members that can hold every call of C's. */
    private List<LockBackend> cMembersHeldOn3And4(List<HoldingReleases> held) {
        List<LockBackend> cMembers = backends(0, 3);
        for (int m = 3; m < 5; m++) {
            HoldingReleases c = new HoldingReleases(members.newBackend(m), name -> true);
            held.add(c);
            cMembers.add(c);
        }
        return cMembers;
    }

    /**
     * C's calls to members 3 and 4 held, B releases under its min-hold time, and A's held releases go
     * (members 3 and 4 free up); returns when B's release was sent ({@link System#nanoTime()}).
     */
    private static long releaseUnderTheHoldThenFree3And4(Granted granted, List<HoldingReleases> c3And4)
            throws Exception {
        c3And4.forEach(HoldingReleases::hold);
        long releasedAt = System.nanoTime();
        assertTrue(granted.second().release(), "B's release (held until its min-hold time is up) confirmed");
        granted.slow3().letGo();
        granted.slow4().letGo();
        assertTrue(granted.aReleased().get(20, TimeUnit.SECONDS), "A's release confirmed");
        return releasedAt;
    }

    /**
     * A release under a min-hold time ends the lease when the hold does, on every member: B, granted on
     * exactly members 0, 1 and 2 with a 30 s lease, releases at once (the lock stays taken until its 2 s
     * hold is up), while its spread still waits for members 3 and 4 (A's copies, released late). Once A's
     * release frees them (C's calls to them held, so that only B's spread could take them), the spread
     * must not put B's lease there: a copy would outlive the hold by the rest of the 30 s lease, holding
     * grants off two of five members (with one more down, off the whole lock).
     */
    @RepeatedTest(3)
    void shouldNotSpreadALeaseReleasedUnderAMinHoldTimePastTheHold() throws Exception {
        members = FiveMembers.inMemory(LOCK_KEY);
        List<HoldingReleases> c3And4 = new ArrayList<>();
        Granted granted = grantedOnExactlyAMajority(backends(0, 5), cMembersHeldOn3And4(c3And4), HOLDING);
        long releasedAt = releaseUnderTheHoldThenFree3And4(granted, c3And4);
        // past the hold and past the spread's last try (about 2.5 s after the grant), with margin
        long settleNanos = MIN_HOLD.plusSeconds(2).toNanos();
        while (System.nanoTime() - releasedAt < settleNanos) {
            Thread.sleep(20);
        }
        for (int m = 0; m < 5; m++) {
            int member = m;
            assertFalse(
                    ownerOf(valueOn(member)).equals(granted.bOwner()),
                    () -> "member " + member + " still holds B's lease " + MIN_HOLD.plusSeconds(2)
                            + " after its release under a " + MIN_HOLD + " min-hold time (pttl " + members.pttl(member)
                            + " ms): " + values());
        }
        c3And4.forEach(HoldingReleases::letGo);
        Lease third = granted.cWaits().get(20, TimeUnit.SECONDS);
        assertTrue(third.fencingToken() > granted.second().fencingToken());
        assertTrue(third.release());
    }

    /**
     * The same when B's spread was already on its way to members 3 and 4 at the release under a min-hold
     * time (held, and landing once A's release freed them): the copies it put there must end when the hold
     * does, not with B's 30 s lease.
     */
    @RepeatedTest(3)
    void shouldEndASpreadCopyThatLandedAfterAReleaseUnderAMinHoldTimeWithTheHold() throws Exception {
        members = FiveMembers.inMemory(LOCK_KEY);
        List<Runnable> heldPutBacks = new CopyOnWriteArrayList<>();
        List<LockBackend> bMembers = backends(0, 3);
        QuorumRestoreRaceTest.HoldingRestores b3 =
                new QuorumRestoreRaceTest.HoldingRestores(members.newBackend(3), heldPutBacks);
        QuorumRestoreRaceTest.HoldingRestores b4 =
                new QuorumRestoreRaceTest.HoldingRestores(members.newBackend(4), heldPutBacks);
        bMembers.add(b3);
        bMembers.add(b4);
        List<HoldingReleases> c3And4 = new ArrayList<>();
        Granted granted = grantedOnExactlyAMajority(bMembers, cMembersHeldOn3And4(c3And4), HOLDING);
        Members.await("B's spread sent to members 3 and 4", () -> heldPutBacks.size() >= 2);
        long releasedAt = releaseUnderTheHoldThenFree3And4(granted, c3And4);
        Members.await(
                "members 3 and 4 free (A's copies released)",
                () -> valueOn(3).equals("(none)") && valueOn(4).equals("(none)"));
        heldPutBacks.forEach(Runnable::run); // B's put-backs land on the free members, after B's release
        Members.await("B's put-backs answered", () -> b3.answered.get() > 0 && b4.answered.get() > 0);
        // gone once the hold is up (with margin), not when B's 30 s lease would have run out
        long goneBy = releasedAt + MIN_HOLD.plusSeconds(2).toNanos();
        while (ownerOf(valueOn(3)).equals(granted.bOwner())
                || ownerOf(valueOn(4)).equals(granted.bOwner())) {
            assertTrue(
                    System.nanoTime() - goneBy < 0,
                    () -> "a copy of B's lease stayed on members 3 and 4 past its " + MIN_HOLD + " min-hold time"
                            + " (pttl " + members.pttl(3) + " and " + members.pttl(4) + " ms): " + values());
            Thread.sleep(5);
        }
        c3And4.forEach(HoldingReleases::letGo);
        Lease third = granted.cWaits().get(20, TimeUnit.SECONDS);
        assertTrue(third.fencingToken() > granted.second().fencingToken());
        assertTrue(third.release());
    }
}
