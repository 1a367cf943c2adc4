package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.internal.AcquisitionEffect.Fail;
import io.leasehold.lock.internal.AcquisitionEffect.Finish;
import io.leasehold.lock.internal.AcquisitionEffect.HandoffClaimed;
import io.leasehold.lock.internal.AcquisitionEffect.JoinQueue;
import io.leasehold.lock.internal.AcquisitionEffect.KeepPlace;
import io.leasehold.lock.internal.AcquisitionEffect.ReleaseOwner;
import io.leasehold.lock.internal.AcquisitionEffect.ReportCancelled;
import io.leasehold.lock.internal.AcquisitionEffect.ReportFailed;
import io.leasehold.lock.internal.AcquisitionEffect.Send;
import io.leasehold.lock.internal.AcquisitionEffect.TakeGrant;
import io.leasehold.lock.internal.AcquisitionEffect.Wake;
import io.leasehold.lock.internal.AcquisitionEvent.Cancelled;
import io.leasehold.lock.internal.AcquisitionEvent.ClaimHandoff;
import io.leasehold.lock.internal.AcquisitionEvent.Closed;
import io.leasehold.lock.internal.AcquisitionEvent.Contended;
import io.leasehold.lock.internal.AcquisitionEvent.DeadlinePassed;
import io.leasehold.lock.internal.AcquisitionEvent.Failed;
import io.leasehold.lock.internal.AcquisitionEvent.GrantNamesThisWaiter;
import io.leasehold.lock.internal.AcquisitionEvent.GrantToAnotherSeen;
import io.leasehold.lock.internal.AcquisitionEvent.GrantedTooLate;
import io.leasehold.lock.internal.AcquisitionEvent.LateReply;
import io.leasehold.lock.internal.AcquisitionEvent.PlaceKept;
import io.leasehold.lock.internal.AcquisitionEvent.PlaceLost;
import io.leasehold.lock.internal.AcquisitionEvent.Resubscribed;
import io.leasehold.lock.internal.AcquisitionEvent.RetryDue;
import io.leasehold.lock.internal.AcquisitionEvent.Start;
import io.leasehold.lock.internal.AcquisitionEvent.Woken;
import io.leasehold.lock.spi.ClientSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The acquisition's transition function on its own: events in, effects out, on a hand-moved clock
 * (alarms fire only when the test moves it, and only report that they fired). What the effects do
 * to Redis and the queue is the conformance suite's and the attack tests' business.
 */
class AcquisitionMachineTest {

    private static final String NAME = "orders:42";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ManualClock clock = new ManualClock();
    private final InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
    private final Engine engine = new Engine(new ClientSettings(
            redis.newNode(),
            LockOptions.defaults(),
            "test",
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            List.of(),
            null,
            clock));
    private final BlockingQueue<AcquisitionMachine.Alarm> fallbacks = new LinkedBlockingQueue<>();
    private final BlockingQueue<AcquisitionMachine.Alarm> retries = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> deadlines = new LinkedBlockingQueue<>();
    private final AcquisitionMachine machine = newMachine(true);

    /** A machine for a 30 s lease; {@code takesGrantsFromMessages} as for a renewed lease (true) or not. */
    private AcquisitionMachine newMachine(boolean takesGrantsFromMessages) {
        return newMachine(takesGrantsFromMessages, null);
    }

    /** A fair waiter's machine: the watchdog keeps its places, and tells {@code places}. */
    private AcquisitionMachine newMachine(boolean takesGrantsFromMessages, WaiterPlace.@Nullable Listener places) {
        return new AcquisitionMachine(
                engine,
                NAME,
                WAIT,
                Duration.ofSeconds(30),
                () -> new LockTimeoutException(NAME, WAIT),
                fallbacks::add,
                retries::add,
                () -> deadlines.add("deadline"),
                takesGrantsFromMessages,
                places);
    }

    @AfterEach
    void stop() {
        engine.shutdown(TimeUnit.SECONDS.toNanos(1), () -> {});
        redis.close();
    }

    @Test
    void shouldSendOneAttemptAtStartAndAskAgainAfterAContendedReplyIfWokenMeanwhile() {
        Send first = only(Send.class, machine.on(new Start(false)));
        assertEquals(
                List.of(), machine.on(new Woken(0, null)), "a wake-up while the attempt is in flight sends nothing");
        List<AcquisitionEffect> afterReply = machine.on(contended(first.round()));
        JoinQueue join = only(JoinQueue.class, afterReply);
        assertTrue(join.wakeAfter(), "the wake-up that came in flight is acted on after the reply");
        assertTrue(join.evenUnderLocalLease(), "it was a release: ask even under a local lease");
    }

    @Test
    void shouldAskOnAFallbackAlarmAndIgnoreOneThatFiresAfterItsStateWasLeft() throws Exception {
        Send first = only(Send.class, machine.on(new Start(false)));
        JoinQueue join = only(JoinQueue.class, machine.on(contended(first.round())));
        assertTrue(!join.wakeAfter(), "nothing raced the attempt");
        clock.advance(Duration.ofSeconds(2)); // past the holder's TTL of 1 s
        AcquisitionMachine.Alarm fallback = fallbacks.poll(10, TimeUnit.SECONDS);
        assertTrue(fallback != null, "the fallback alarm fires at the holder's TTL");

        // A handoff claims the waiter before the alarm's wake-up is acted on: the alarm is stale.
        only(HandoffClaimed.class, machine.on(new ClaimHandoff(1, false)));
        assertEquals(List.of(), machine.on(new Woken(0, fallback)), "a stale alarm wakes nothing");
        assertEquals(
                List.of(),
                machine.on(contended(first.round())),
                "the stale alarm left no wake-up pending: the waiter waits for its next alarm");
        AcquisitionMachine.Alarm next = fallbacks.poll(0, TimeUnit.SECONDS);
        assertEquals(null, next, "the new alarm fires only at the new holder's TTL");
        clock.advance(Duration.ofSeconds(2));
        next = fallbacks.poll(10, TimeUnit.SECONDS);
        assertTrue(next != null && next != fallback, "a new alarm for the new state");
        Send again = only(Send.class, machine.on(new Woken(0, next)));
        assertSame(first.round(), again.round(), "the same round: an idempotent retry with the same owner");
    }

    @Test
    void shouldWaitForAnotherLocalLeaseInsteadOfAskingRedis() {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(contended(first.round())));
        assertEquals(
                List.of(),
                machine.on(new Woken(TimeUnit.SECONDS.toNanos(3), null)),
                "while a lease of this client holds the lock, its release hands it over");
        only(Send.class, machine.on(new Resubscribed(true)));
    }

    @Test
    void shouldAskAgainOnceAGrantToAnotherWaiterHasHadItsWindow() throws Exception {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(new Contended(first.round(), 30_000, 0, 100)));
        assertEquals(List.of(), machine.on(new GrantToAnotherSeen(true)), "nothing to ask yet");
        assertEquals(List.of(), machine.on(new GrantToAnotherSeen(true)), "a second grant keeps the sooner alarm");
        clock.advance(Duration.ofMillis(GrantOrder.WAITER_LEASE_MS + 10));
        AcquisitionMachine.Alarm alarm = fallbacks.poll(10, TimeUnit.SECONDS);
        assertTrue(alarm != null, "the alarm fires after the grant's window, not the holder's 30 s TTL");
        only(Send.class, machine.on(new Woken(0, alarm)));
        assertEquals(null, fallbacks.poll(100, TimeUnit.MILLISECONDS), "the holder's TTL alarm was replaced");
    }

    @Test
    void shouldAskAgainAfterTheGrantsWindowWhenItsMessageBeatTheContendedReply() throws Exception {
        // (a waiter whose process died heads the queue: the grant to it lapses after its window, and
        // the contended reply's 30 s holder's TTL must not make this waiter sleep past that)
        Send first = only(Send.class, machine.on(new Start(false)));
        assertEquals(List.of(), machine.on(new GrantToAnotherSeen(true)), "in flight: noted");
        only(JoinQueue.class, machine.on(new Contended(first.round(), 30_000, 0, 100)));
        clock.advance(Duration.ofMillis(GrantOrder.WAITER_LEASE_MS + 10));
        AcquisitionMachine.Alarm alarm = fallbacks.poll(10, TimeUnit.SECONDS);
        assertTrue(alarm != null, "the alarm fires after the grant's window, not the holder's 30 s TTL");
        only(Send.class, machine.on(new Woken(0, alarm)));
    }

    @Test
    void shouldKeepASoonerAlarmWhenAGrantToAnotherWaiterIsSeen() throws Exception {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(new Contended(first.round(), 100, 0, 100)));
        assertEquals(List.of(), machine.on(new GrantToAnotherSeen(true)));
        clock.advance(Duration.ofMillis(100));
        AcquisitionMachine.Alarm alarm = fallbacks.poll(10, TimeUnit.SECONDS);
        assertTrue(alarm != null, "the holder's TTL alarm (100 ms) still fires");
        only(Send.class, machine.on(new Woken(0, alarm)));
    }

    @Test
    void shouldTakeAGrantFromItsMessageWhenItsTokenIsAboveTheHolderItsLastContendedReplyNamed() {
        Send first = only(Send.class, machine.on(new Start(false)));
        long sent = engine.now();
        only(JoinQueue.class, machine.on(new Contended(first.round(), 1_000, sent, 100)));
        clock.advance(Duration.ofMillis(200));
        TakeGrant take = only(TakeGrant.class, machine.on(new GrantNamesThisWaiter(101)));
        assertSame(first.round(), take.round());
        assertEquals(101, take.token());
        assertEquals(sent, take.sentNanos(), "the grant's TTL counts from the contended attempt's send");
        assertEquals(List.of(), machine.on(new Woken(0, null)), "the message stands for an attempt in flight");
        assertEquals(List.of(), machine.on(new GrantNamesThisWaiter(101)), "a second message changes nothing");
    }

    @Test
    void shouldAskForAGrantWhoseMessageDoesNotProveItRanAfterTheLastContendedAttempt() {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(new Contended(first.round(), 1_000, engine.now(), 100)));
        Send again = only(Send.class, machine.on(new GrantNamesThisWaiter(100)));
        assertSame(first.round(), again.round(), "the same owner: Redis's grant is its lock");
    }

    @Test
    void shouldAskForAGrantWhoseMessageCarriesNoToken() {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(new Contended(first.round(), 1_000, engine.now(), 100)));
        only(Send.class, machine.on(new GrantNamesThisWaiter(GrantOrder.NO_TOKEN)));
    }

    @Test
    void shouldAskForAGrantWhenLessThanHalfItsWindowIsLeftSinceTheLastContendedAttempt() {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(new Contended(first.round(), 30_000, engine.now(), 100)));
        clock.advance(Duration.ofMillis(GrantOrder.WAITER_LEASE_MS / 2));
        only(Send.class, machine.on(new GrantNamesThisWaiter(101)));
    }

    @Test
    void shouldAskForAGrantWhenItsValidityWouldNotHoldFourRoundTripsOfTheLastContendedReply() {
        // (a slow link: the lease's first renewal could not be answered before its loss check)
        Send first = only(Send.class, machine.on(new Start(false)));
        long sent = engine.now();
        clock.advance(Duration.ofMillis(300)); // the contended reply took 300 ms: 4 of them are 1.2 s
        only(JoinQueue.class, machine.on(new Contended(first.round(), 1_000, sent, 100)));
        only(Send.class, machine.on(new GrantNamesThisWaiter(101)));
    }

    @Test
    void shouldTakeAGrantFromItsMessageWhenItsValidityHoldsFourRoundTrips() {
        Send first = only(Send.class, machine.on(new Start(false)));
        long sent = engine.now();
        clock.advance(Duration.ofMillis(150)); // 4 round trips: 600 ms, of some 1.25 s left
        only(JoinQueue.class, machine.on(new Contended(first.round(), 1_000, sent, 100)));
        only(TakeGrant.class, machine.on(new GrantNamesThisWaiter(101)));
    }

    @Test
    void shouldAskAfterTheReplyWhenAGrantMessageComesWhileAnAttemptIsInFlight() {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(new Contended(first.round(), 1_000, engine.now(), 100)));
        Send second = only(Send.class, machine.on(new Woken(0, null)));
        assertEquals(List.of(), machine.on(new GrantNamesThisWaiter(101)), "its reply will tell");
        only(Wake.class, machine.on(new Contended(second.round(), 1_000, engine.now(), 100)));
    }

    @Test
    void shouldAskForAGrantWhenItsLeaseIsNotRenewed() {
        AcquisitionMachine fixedLease = newMachine(false);
        Send first = only(Send.class, fixedLease.on(new Start(false)));
        only(JoinQueue.class, fixedLease.on(new Contended(first.round(), 1_000, engine.now(), 100)));
        only(Send.class, fixedLease.on(new GrantNamesThisWaiter(101)));
        fixedLease.on(new Closed());
    }

    @Test
    void shouldTakeAHandoffOnlyWhenNoAttemptIsInFlight() {
        Send first = only(Send.class, machine.on(new Start(false)));
        assertEquals(List.of(), machine.on(new ClaimHandoff(1, false)), "an attempt is in flight");
        only(JoinQueue.class, machine.on(contended(first.round())));
        HandoffClaimed claimed = only(HandoffClaimed.class, machine.on(new ClaimHandoff(3, true)));
        assertSame(first.round(), claimed.round());
        assertEquals(3, claimed.streak());
        assertTrue(claimed.mayYield());
        assertEquals(List.of(), machine.on(new Woken(0, null)), "the handoff is now the attempt in flight");
    }

    @Test
    void shouldRetryATransientFailureAfterABackOffWithTheSameOwner() throws Exception {
        Send first = only(Send.class, machine.on(new Start(false)));
        assertEquals(List.of(), machine.on(new Failed(first.round(), new IOException("connection reset"))));
        clock.advance(Duration.ofNanos(AcquisitionMachine.FIRST_RETRY_NANOS));
        AcquisitionMachine.Alarm backOff = retries.poll(10, TimeUnit.SECONDS);
        assertTrue(backOff != null, "the back-off alarm fires after the first back-off");
        Send again = only(Send.class, machine.on(new RetryDue(backOff)));
        assertSame(first.round(), again.round());
    }

    @Test
    void shouldFailAtOnceOnAFailureThatIsNotTransient() {
        Send first = only(Send.class, machine.on(new Start(false)));
        List<AcquisitionEffect> effects = machine.on(
                new Failed(first.round(), new IllegalStateException("ERR the fencing counter holds a foreign value")));
        assertEquals(List.of(Finish.class, Fail.class, ReportFailed.class), types(effects));
        assertInstanceOf(LockBackendException.class, ((Fail) effects.get(1)).failure());
        assertTrue(((Finish) effects.get(0)).cleanUp(), "the attempt was sent: its owner is cleaned up");
    }

    @Test
    void shouldEndWithATimeoutWhenTheReplyIsContendedPastTheDeadline() {
        Send first = only(Send.class, machine.on(new Start(false)));
        clock.advance(WAIT.plusSeconds(1));
        List<AcquisitionEffect> effects = machine.on(contended(first.round()));
        assertEquals(List.of(Finish.class, Fail.class, ReportFailed.class), types(effects));
        assertInstanceOf(LockTimeoutException.class, ((Fail) effects.get(1)).failure());
    }

    @Test
    void shouldAskOnceAtTheDeadlineWhenQueuedBehindLocalWaitersWithoutEverAsking() {
        JoinQueue join = only(JoinQueue.class, machine.on(new Start(true)));
        assertEquals(Long.MAX_VALUE, join.lastSentNanos());
        Send last = only(Send.class, machine.on(new DeadlinePassed()));
        clock.advance(WAIT);
        List<AcquisitionEffect> effects = machine.on(contended(last.round()));
        assertEquals(List.of(Finish.class, Fail.class, ReportFailed.class), types(effects));
        assertInstanceOf(LockTimeoutException.class, ((Fail) effects.get(1)).failure());
    }

    @Test
    void shouldIgnoreTheDeadlineWhileAnAttemptIsInFlight() {
        machine.on(new Start(false));
        assertEquals(List.of(), machine.on(new DeadlinePassed()), "the attempt's reply decides");
    }

    @Test
    void shouldEndOnceAndCleanUpTheRoundAfterItsAttemptSettles() {
        Send first = only(Send.class, machine.on(new Start(false)));
        List<AcquisitionEffect> effects = machine.on(new Cancelled());
        assertEquals(List.of(Finish.class, ReportCancelled.class), types(effects));
        Finish finish = (Finish) effects.get(0);
        assertTrue(finish.cleanUp());
        assertSame(first.round(), finish.last());
        assertSame(first.settled(), finish.settledFirst(), "the clean-up follows the attempt still on its way");
        assertEquals(List.of(), machine.on(new Closed()), "an acquisition ends once");
        assertTrue(machine.isDone());
    }

    @Test
    void shouldCleanUpAfterTheHandoffThatClaimedItWhenEndedRightAfterTheClaim() {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(contended(first.round())));
        first.settled().complete(null); // the first attempt's reply was acted on
        only(HandoffClaimed.class, machine.on(new ClaimHandoff(1, false)));
        // Cancelled before the releasing lease has even sent the handoff: the clean-up must follow it,
        // or it could overtake a handoff that then grants the lock to an owner nobody cleans up after
        List<AcquisitionEffect> effects = machine.on(new Cancelled());
        Finish finish = (Finish) effects.get(0);
        assertTrue(finish.cleanUp());
        assertTrue(
                finish.settledFirst() != null && !finish.settledFirst().isDone(),
                "the clean-up waits for the claimed handoff's release to settle: " + finish.settledFirst());
    }

    @Test
    void shouldReleaseWhatALateReplyTookOnceItsRoundIsOver() {
        Send first = only(Send.class, machine.on(new Start(false)));
        machine.on(new Cancelled());
        ReleaseOwner release = only(ReleaseOwner.class, machine.on(new LateReply(first.round(), true)));
        assertSame(first.round(), release.round());
    }

    @Test
    void shouldAskAgainWhenALateReplyOfTheCurrentRoundGranted() {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(contended(first.round())));
        Send again = only(Send.class, machine.on(new LateReply(first.round(), true)));
        assertSame(first.round(), again.round(), "the same owner gets the same lock");
        assertEquals(
                List.of(), machine.on(new LateReply(first.round(), false)), "a late contended reply changes nothing");
    }

    @Test
    void shouldGoOnWithANewOwnerWhenAGrantCameTooLate() {
        Send first = only(Send.class, machine.on(new Start(false)));
        List<AcquisitionEffect> effects = machine.on(new GrantedTooLate(first.round()));
        assertEquals(List.of(ReleaseOwner.class, Send.class), types(effects));
        assertSame(first.round(), ((ReleaseOwner) effects.get(0)).round());
        AcquireRound next = ((Send) effects.get(1)).round();
        assertNotEquals(
                first.round().owner,
                next.owner,
                "a late release of the old owner can never delete the new round's lock");
    }

    @Test
    void shouldFailAsABackendFailureWhenTheDeadlinePassesAfterAGrantCameTooLate() {
        Send first = only(Send.class, machine.on(new Start(false)));
        clock.advance(WAIT.plusSeconds(1));
        List<AcquisitionEffect> effects = machine.on(new GrantedTooLate(first.round()));
        assertEquals(List.of(ReleaseOwner.class, Finish.class, Fail.class, ReportFailed.class), types(effects));
        assertInstanceOf(LockBackendException.class, ((Fail) effects.get(2)).failure());
    }

    @Test
    void shouldWakeAgainAfterJoiningWhenAWakeUpRacedAnAttemptOfAQueuedWaiter() {
        Send first = only(Send.class, machine.on(new Start(false)));
        only(JoinQueue.class, machine.on(contended(first.round())));
        Send second = only(Send.class, machine.on(new Woken(0, null)));
        machine.on(new Woken(0, null));
        Wake wake = only(Wake.class, machine.on(contended(second.round())));
        assertTrue(wake.evenUnderLocalLease());
    }

    /** A place listener whose calls the tests make themselves, as events of the machine. */
    private static final WaiterPlace.Listener PLACES = new WaiterPlace.Listener() {
        @Override
        public void kept(WaiterPlace place, long sentNanos, long holderToken, long roundTripNanos) {}

        @Override
        public void lost(WaiterPlace place, @Nullable Throwable failure) {}
    };

    /** A fair waiter contended once: the place its effects hand to the watchdog. */
    private static WaiterPlace queuedFair(AcquisitionMachine fair, long sentNanos) {
        Send first = only(Send.class, fair.on(new Start(false)));
        List<AcquisitionEffect> effects = fair.on(new Contended(first.round(), 30_000, sentNanos, 100));
        assertEquals(List.of(KeepPlace.class, JoinQueue.class), types(effects), "effects " + effects);
        WaiterPlace place = ((KeepPlace) effects.get(0)).place();
        assertEquals(first.round().owner, place.owner, "its round's owner's place");
        return place;
    }

    @Test
    void shouldHaveTheWatchdogKeepAFairWaitersPlaceWhileItIsQueuedAndAskWhenThePlaceIsLost() {
        AcquisitionMachine fair = newMachine(true, PLACES);
        WaiterPlace place = queuedFair(fair, engine.now());
        assertFalse(place.cancelled());

        assertEquals(List.of(), fair.on(new PlaceKept(place, engine.now(), 100, 0)), "kept: it waits on");
        Send ask = only(Send.class, fair.on(new PlaceLost(place, null)));
        assertTrue(place.cancelled(), "asking leaves the place to the attempt, which keeps or takes it");
        assertEquals(List.of(), fair.on(new PlaceLost(place, null)), "a stale place's news changes nothing");
        assertEquals(
                List.of(KeepPlace.class),
                types(fair.on(new Contended(ask.round(), 30_000, engine.now(), 100))),
                "a new place for the new contended reply");
        fair.on(new Closed());
    }

    @Test
    void shouldLeaveAGrantToAnotherWaiterToThePlaceRenewalsWhileItsPlaceIsKept() throws Exception {
        AcquisitionMachine fair = newMachine(true, PLACES);
        WaiterPlace place = queuedFair(fair, engine.now());
        assertEquals(List.of(), fair.on(new GrantToAnotherSeen(true)));
        assertFalse(place.cancelled(), "still queued with the same place");
        clock.advance(Duration.ofMillis(GrantOrder.WAITER_LEASE_MS * 2));
        assertEquals(null, fallbacks.poll(100, TimeUnit.MILLISECONDS), "no alarm at the grant window's end");

        only(Send.class, fair.on(new PlaceLost(place, new IOException("renewal failed (test)"))));
        fair.on(new Closed());
    }

    @Test
    void shouldCancelThePlaceWhenTheWaitEnds() {
        AcquisitionMachine fair = newMachine(true, PLACES);
        WaiterPlace place = queuedFair(fair, engine.now());
        fair.on(new Cancelled());
        assertTrue(place.cancelled());
    }

    @Test
    void shouldTakeAGrantFromItsMessageWhenAKeptPlaceProvesItRanAfterTheRenewal() {
        AcquisitionMachine fair = newMachine(true, PLACES);
        WaiterPlace place = queuedFair(fair, engine.now());
        clock.advance(Duration.ofSeconds(5)); // the attempt's reply alone is far too old
        long renewed = engine.now();
        fair.on(new PlaceKept(place, renewed, 200, 0)); // another holder now
        clock.advance(Duration.ofMillis(100));

        assertEquals(
                List.of(Send.class),
                types(newMachineCopyOnGrant(fair, 200)),
                "a grant not above the holder the renewal saw proves nothing: it asks");
    }

    @Test
    void shouldTakeAGrantAboveTheHolderTheLatestKeptPlaceNamed() {
        AcquisitionMachine fair = newMachine(true, PLACES);
        WaiterPlace place = queuedFair(fair, engine.now());
        clock.advance(Duration.ofSeconds(5));
        long renewed = engine.now();
        fair.on(new PlaceKept(place, renewed, 200, 0));
        clock.advance(Duration.ofMillis(100));

        TakeGrant take = only(TakeGrant.class, fair.on(new GrantNamesThisWaiter(201)));
        assertEquals(renewed, take.sentNanos(), "its TTL counts from the renewal's send");
    }

    /** The effects of a grant message naming {@code fair}'s waiter with {@code token}. */
    private static List<AcquisitionEffect> newMachineCopyOnGrant(AcquisitionMachine fair, long token) {
        return fair.on(new GrantNamesThisWaiter(token));
    }

    private static Contended contended(AcquireRound round) {
        return new Contended(round, 1_000, 0, 100);
    }

    private static <T extends AcquisitionEffect> T only(Class<T> type, List<AcquisitionEffect> effects) {
        assertEquals(List.of(type), types(effects), "effects " + effects);
        return type.cast(effects.get(0));
    }

    private static List<Class<?>> types(List<AcquisitionEffect> effects) {
        return effects.stream().<Class<?>>map(Object::getClass).toList();
    }
}
