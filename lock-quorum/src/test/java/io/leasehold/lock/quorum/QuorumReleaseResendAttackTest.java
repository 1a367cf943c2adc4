package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.spi.Subscription;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on f295b96 (a release a majority confirmed is resent in the background to each member whose
 * call failed). Member 2 of 3 is wrapped in a {@link Gated} backend whose release.lua calls fail
 * transiently (ConnectException), fail with a script error, or hang, as the test decides; every other call
 * goes through.
 */
class QuorumReleaseResendAttackTest {

    private static final String NAME = "attack:resend";

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    private QuorumBackend quorumWithGated(Gated gated) {
        List<LockBackend> backends = new ArrayList<>(Members.backends(members));
        gated.delegate = backends.get(2);
        backends.set(2, gated);
        return QuorumBackend.of(backends);
    }

    private static String ownerOf(Optional<String> value) {
        return value.map(v -> v.substring(0, v.indexOf(':'))).orElse("(none)");
    }

    /**
     * The same client's next lease holds the lock on the member that missed the release when the resend
     * comes: the resend (owner-checked) leaves it alone, and the next lease stays held and releases cleanly.
     */
    @Test
    void shouldLeaveTheSameClientsNextLeaseAloneOnTheMemberThatMissedTheRelease() throws Exception {
        members.inUse();
        Gated gated = new Gated();
        try (QuorumBackend quorum = quorumWithGated(gated);
                LockClient client = LockClient.create(quorum)) {
            Lease first = client.lock(NAME).acquire(Duration.ofSeconds(5));
            String firstOwner = ownerOf(members.store(0).get(Members.lockKey(NAME)));
            gated.onlyOwner = firstOwner; // only the first lease's release (and its resends) are refused
            gated.mode.set(Mode.REFUSE);
            assertTrue(first.release());
            Members.await("the release is resent to member 2", () -> quorum.pendingReleaseResends() >= 1);
            // the first lease's copy on member 2 runs out; the next lease takes member 2 too (once member 2
            // is no longer skipped after the refused release)
            members.store(2).expireNow(Members.lockKey(NAME));
            Lease next = null;
            String nextOwner = null;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() - until < 0) {
                next = client.lock(NAME).acquire(Duration.ofSeconds(5));
                nextOwner = ownerOf(members.store(0).get(Members.lockKey(NAME)));
                if (nextOwner.equals(ownerOf(members.store(2).get(Members.lockKey(NAME))))) {
                    break;
                }
                next.release();
                next = null;
                Thread.sleep(150);
            }
            assertTrue(next != null, "the next lease never took member 2");
            assertTrue(quorum.pendingReleaseResends() >= 1, "the first lease's release is still waiting for member 2");
            long refusedBefore = gated.releaseCalls.get();

            gated.mode.set(Mode.PASS);

            Members.await("the resend was answered", () -> quorum.pendingReleaseResends() == 0);
            assertTrue(gated.releaseCalls.get() > refusedBefore, "the resend reached member 2");
            assertEquals(
                    nextOwner,
                    ownerOf(members.store(2).get(Members.lockKey(NAME))),
                    "the resend of the first lease's release must not touch the next lease on member 2");
            assertEquals(LeaseState.HELD, next.state());
            assertTrue(next.release(), "the next lease releases cleanly");
            for (int i = 0; i < 3; i++) {
                int member = i;
                Members.await(
                        "member " + i + " free", () -> !members.store(member).exists(Members.lockKey(NAME)));
            }
        }
    }

    /**
     * A waiter of another client takes the lock when the first lease is released while member 2 misses the
     * release; the resend on member 2 comes while the waiter holds: the waiter's lease stays held, and after
     * its release a third client gets the lock at once (nothing left behind on member 2).
     */
    @Test
    void shouldNotDisturbTheWaiterThatTookTheLockWhenTheResendComes() throws Exception {
        members.inUse();
        Gated gated = new Gated();
        try (QuorumBackend quorum = quorumWithGated(gated);
                LockClient client = LockClient.create(quorum);
                QuorumBackend otherQuorum = members.quorum();
                LockClient other = LockClient.create(otherQuorum);
                QuorumBackend thirdQuorum = members.quorum();
                LockClient third = LockClient.create(thirdQuorum)) {
            Lease first = client.lock(NAME).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = other.lock(NAME).acquireAsync(Duration.ofSeconds(20));
            Thread.sleep(300); // the waiter has asked (not relied upon: it takes the lock when it is free either way)
            gated.mode.set(Mode.REFUSE);
            assertTrue(first.release());
            Lease waiter = waiting.get(20, TimeUnit.SECONDS);
            gated.mode.set(Mode.PASS);
            Members.await("the resend was answered", () -> quorum.pendingReleaseResends() == 0);
            assertEquals(LeaseState.HELD, waiter.state(), "the waiter's lease after the resend");
            assertTrue(waiter.release(), "the waiter's release");
            Lease thirds = third.lock(NAME).acquire(Duration.ofSeconds(2));
            thirds.release();
        }
    }

    /**
     * fairLock over the quorum: the fair holder's release is missed by member 2 while two fair waiters of
     * other clients queue; the resend comes while the first waiter holds. Each waiter in turn gets the lock,
     * in order, its lease stays held until it releases, and nothing is left behind.
     */
    @Test
    void shouldKeepTheFairOrderAndTheNextHoldersLeaseWhenTheResendComes() throws Exception {
        members.inUse();
        Gated gated = new Gated();
        try (QuorumBackend quorum = quorumWithGated(gated);
                LockClient client = LockClient.create(quorum);
                QuorumBackend q1 = members.quorum();
                LockClient c1 = LockClient.create(q1);
                QuorumBackend q2 = members.quorum();
                LockClient c2 = LockClient.create(q2)) {
            Lease first = client.fairLock(NAME).acquire(Duration.ofSeconds(5));
            gated.onlyOwner = ownerOf(members.store(0).get(Members.lockKey(NAME)));
            CompletableFuture<Lease> one = c1.fairLock(NAME).acquireAsync(Duration.ofSeconds(30));
            Thread.sleep(300);
            CompletableFuture<Lease> two = c2.fairLock(NAME).acquireAsync(Duration.ofSeconds(30));
            Thread.sleep(300);
            gated.mode.set(Mode.REFUSE);
            assertTrue(first.release());
            Lease a = one.get(30, TimeUnit.SECONDS);
            assertTrue(!two.isDone(), "the second waiter got the lock while the first holds it");
            gated.mode.set(Mode.PASS);
            Members.await("the resend was answered", () -> quorum.pendingReleaseResends() == 0);
            assertEquals(LeaseState.HELD, a.state(), "the first waiter's lease after the resend");
            assertTrue(!two.isDone(), "the second waiter got the lock while the first holds it (after the resend)");
            assertTrue(a.release());
            Lease b = two.get(30, TimeUnit.SECONDS);
            assertTrue(b.release());
            for (int i = 0; i < 3; i++) {
                int member = i;
                Members.await(
                        "member " + i + " free", () -> !members.store(member).exists(Members.lockKey(NAME)));
            }
        }
    }

    /**
     * Member 2 frozen (SIGSTOP-like) during the release: its call answers only once thawed (late, not a
     * failure): nothing is resent, and member 2 ends free.
     */
    @Test
    void shouldFreeAFrozenMemberOnceItThawsWithoutAResend() throws Exception {
        members.inUse();
        try (QuorumBackend quorum = members.quorum();
                LockClient client = LockClient.create(quorum)) {
            Lease lease = client.lock(NAME).acquire(Duration.ofSeconds(5));
            members.store(2).freeze();
            assertTrue(lease.release());
            assertEquals(0, quorum.pendingReleaseResends(), "resends while the member's call is still out");
            members.store(2).thaw();
            Members.await("member 2 free", () -> !members.store(2).exists(Members.lockKey(NAME)));
            assertEquals(0, quorum.pendingReleaseResends());
        }
    }

    /**
     * A release under a min-hold time, missed by member 2: once the hold is up the lock should be free on
     * member 2 too (otherwise its copy keeps the whole lease, the very thing f295b96 sets out to end).
     */
    @Test
    void shouldFreeTheMemberThatMissedAMinHoldReleaseOnceTheHoldIsUp() throws Exception {
        members.inUse();
        Gated gated = new Gated();
        gated.gatedScripts = List.of(ScriptNames.RELEASE, ScriptNames.EXTEND);
        try (QuorumBackend quorum = quorumWithGated(gated);
                LockClient client = LockClient.create(quorum)) {
            LockOptions options = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(60))
                    .minHoldTime(Duration.ofSeconds(2))
                    .build();
            Lease lease = client.lock(NAME, options).acquire(Duration.ofSeconds(5));
            gated.mode.set(Mode.REFUSE);
            lease.release();
            gated.mode.set(Mode.PASS); // member 2 answers again right after the release
            Members.await(
                    "member 0's copy ends with the hold",
                    () -> !members.store(0).exists(Members.lockKey(NAME)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            while (members.store(2).exists(Members.lockKey(NAME)) && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
            assertTrue(
                    !members.store(2).exists(Members.lockKey(NAME)),
                    "member 2 missed the min-hold release and still holds the lease's copy 8 s after the 2 s hold"
                            + " ended on the others: PTTL " + members.store(2).pttl(Members.lockKey(NAME)) + " ms,"
                            + " pending resends " + quorum.pendingReleaseResends());
        }
    }

    /**
     * Many locks released while member 2 refuses: one resend out at a time, backing off, never a storm;
     * once it answers, every copy there goes.
     */
    @Test
    void shouldNotStormAMemberThatIsDownForManyLocksAndClearThemAllOnceItAnswers() throws Exception {
        members.inUse();
        Gated gated = new Gated();
        int locks = 300;
        try (QuorumBackend quorum = quorumWithGated(gated);
                LockClient client = LockClient.create(quorum)) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < locks; i++) {
                leases.add(client.lock(NAME + ":" + i).acquire(Duration.ofSeconds(5)));
            }
            gated.mode.set(Mode.REFUSE);
            for (Lease lease : leases) {
                assertTrue(lease.release());
            }
            Members.await("every release queued for member 2", () -> quorum.pendingReleaseResends() == locks);
            long before = gated.releaseCalls.get();
            Thread.sleep(3_000);
            long during = gated.releaseCalls.get() - before;
            assertTrue(
                    during <= 12,
                    "release calls to a refusing member in 3 s (one out at a time, backing off): " + during);

            gated.mode.set(Mode.PASS);

            Members.await("every resend answered", () -> quorum.pendingReleaseResends() == 0);
            for (int i = 0; i < locks; i++) {
                assertTrue(!members.store(2).exists(Members.lockKey(NAME + ":" + i)), "lock " + i + " on member 2");
            }
        }
    }

    /** A member that answers the release with a script error is not sent it again and again. */
    @Test
    void shouldDropAResendThatTheMemberAnswersWithAScriptError() throws Exception {
        members.inUse();
        Gated gated = new Gated();
        try (QuorumBackend quorum = quorumWithGated(gated);
                LockClient client = LockClient.create(quorum)) {
            Lease lease = client.lock(NAME).acquire(Duration.ofSeconds(5));
            gated.mode.set(Mode.SCRIPT_ERROR);
            lease.release();
            Members.await("the resends ended", () -> quorum.pendingReleaseResends() == 0);
            long calls = gated.releaseCalls.get();
            Thread.sleep(1_000);
            assertEquals(calls, gated.releaseCalls.get(), "release calls to member 2 after the resends ended");
            assertTrue(calls <= 2, "release calls to a member answering a script error: " + calls);
        }
    }

    /** A member restarted without persistence while it missed the release: the resend writes nothing there. */
    @Test
    void shouldWriteNothingOnAMemberRestartedWithoutPersistence() throws Exception {
        members.inUse();
        Gated gated = new Gated();
        try (QuorumBackend quorum = quorumWithGated(gated);
                LockClient client = LockClient.create(quorum)) {
            Lease lease = client.lock(NAME).acquire(Duration.ofSeconds(5));
            gated.mode.set(Mode.REFUSE);
            assertTrue(lease.release());
            Members.await("queued", () -> quorum.pendingReleaseResends() == 1);
            members.store(2).restartWithoutPersistence();
            long calls = gated.releaseCalls.get();
            gated.mode.set(Mode.PASS);
            Members.await("answered", () -> quorum.pendingReleaseResends() == 0);
            assertTrue(gated.releaseCalls.get() > calls, "the resend reached member 2");
            List<String> left = members.store(2).keys().stream()
                    .filter(k -> k.contains("{" + NAME + "}"))
                    .toList();
            assertEquals(List.of(), left, "keys of the lock on the restarted member after the resend");
        }
    }

    /**
     * The quorum closes while a resend is out (the member hangs): when that call fails afterwards, nothing is
     * sent again, and nothing stays queued.
     */
    @Test
    void shouldSendNothingMoreAfterCloseWhenAResendOutAtTheCloseFailsLater() throws Exception {
        members.inUse();
        Gated gated = new Gated();
        QuorumBackend quorum = quorumWithGated(gated);
        LockClient client = LockClient.create(quorum);
        try {
            Lease lease = client.lock(NAME).acquire(Duration.ofSeconds(5));
            gated.mode.set(Mode.REFUSE);
            assertTrue(lease.release());
            gated.mode.set(Mode.HANG);
            Members.await("a resend is out (hanging)", () -> !gated.hanging.isEmpty());
        } finally {
            client.close();
            quorum.close();
        }
        long calls = gated.releaseCalls.get();
        gated.mode.set(Mode.REFUSE);
        CompletableFuture<Object> out;
        while ((out = gated.hanging.poll()) != null) {
            out.completeExceptionally(new ConnectException("refused (after the quorum closed)"));
        }
        Thread.sleep(5_000); // longer than the largest back-off (2 s)
        assertEquals(calls, gated.releaseCalls.get(), "release calls to member 2 after the quorum closed");
        assertEquals(0, quorum.pendingReleaseResends(), "resends left queued after close");
    }

    enum Mode {
        PASS,
        REFUSE,
        SCRIPT_ERROR,
        HANG
    }

    /** Member 2: its release calls (and those of {@link #gatedScripts}) obey {@link #mode}. */
    static final class Gated implements LockBackend {
        volatile LockBackend delegate;
        volatile List<String> gatedScripts = List.of(ScriptNames.RELEASE);
        volatile String onlyOwner;
        final AtomicReference<Mode> mode = new AtomicReference<>(Mode.PASS);
        final AtomicInteger releaseCalls = new AtomicInteger();
        final ConcurrentLinkedQueue<CompletableFuture<Object>> hanging = new ConcurrentLinkedQueue<>();

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            String only = onlyOwner;
            if (gatedScripts.contains(script.name())
                    && (only == null || (!args.isEmpty() && only.equals(args.get(0))))) {
                releaseCalls.incrementAndGet();
                switch (mode.get()) {
                    case REFUSE:
                        return CompletableFuture.failedFuture(new ConnectException("refused (test)"));
                    case SCRIPT_ERROR:
                        return CompletableFuture.failedFuture(
                                new IllegalStateException("ERR script error on member 2 (test)"));
                    case HANG:
                        CompletableFuture<Object> out = new CompletableFuture<>();
                        hanging.add(out);
                        return out;
                    default:
                        break;
                }
            }
            return delegate.eval(script, keys, args);
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
            return delegate.subscribe(channel, listener);
        }

        @Override
        public CompletableFuture<Boolean> shardedPubSub() {
            return delegate.shardedPubSub();
        }

        @Override
        public boolean isTransient(Throwable failure) {
            return delegate.isTransient(failure);
        }

        @Override
        public io.leasehold.lock.spi.Deployment deployment() {
            return delegate.deployment();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
