package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.internal.AcquisitionEffect.DropLease;
import io.leasehold.lock.internal.AcquisitionEffect.Fail;
import io.leasehold.lock.internal.AcquisitionEffect.Finish;
import io.leasehold.lock.internal.AcquisitionEffect.GiveLease;
import io.leasehold.lock.internal.AcquisitionEffect.HandoffClaimed;
import io.leasehold.lock.internal.AcquisitionEffect.JoinQueue;
import io.leasehold.lock.internal.AcquisitionEffect.KeepPlace;
import io.leasehold.lock.internal.AcquisitionEffect.ReleaseOwner;
import io.leasehold.lock.internal.AcquisitionEffect.ReportCancelled;
import io.leasehold.lock.internal.AcquisitionEffect.ReportFailed;
import io.leasehold.lock.internal.AcquisitionEffect.Send;
import io.leasehold.lock.internal.AcquisitionEffect.StartLease;
import io.leasehold.lock.internal.AcquisitionEffect.TakeGrant;
import io.leasehold.lock.internal.AcquisitionEffect.Wake;
import io.leasehold.lock.internal.AcquisitionEvent.Cancelled;
import io.leasehold.lock.internal.AcquisitionEvent.ClaimHandoff;
import io.leasehold.lock.internal.AcquisitionEvent.Closed;
import io.leasehold.lock.internal.AcquisitionEvent.Contended;
import io.leasehold.lock.internal.AcquisitionEvent.DeadlinePassed;
import io.leasehold.lock.internal.AcquisitionEvent.Failed;
import io.leasehold.lock.internal.AcquisitionEvent.GoOn;
import io.leasehold.lock.internal.AcquisitionEvent.GrantMayHaveBeenMissed;
import io.leasehold.lock.internal.AcquisitionEvent.GrantNamesThisWaiter;
import io.leasehold.lock.internal.AcquisitionEvent.GrantToAnotherSeen;
import io.leasehold.lock.internal.AcquisitionEvent.Granted;
import io.leasehold.lock.internal.AcquisitionEvent.GrantedTooLate;
import io.leasehold.lock.internal.AcquisitionEvent.HandOut;
import io.leasehold.lock.internal.AcquisitionEvent.HandOutRefused;
import io.leasehold.lock.internal.AcquisitionEvent.LateReply;
import io.leasehold.lock.internal.AcquisitionEvent.PlaceKept;
import io.leasehold.lock.internal.AcquisitionEvent.PlaceLost;
import io.leasehold.lock.internal.AcquisitionEvent.ReleaseSeen;
import io.leasehold.lock.internal.AcquisitionEvent.Resubscribed;
import io.leasehold.lock.internal.AcquisitionEvent.RetryDue;
import io.leasehold.lock.internal.AcquisitionEvent.Start;
import io.leasehold.lock.internal.AcquisitionEvent.Woken;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One call's attempt to take a lock, waiting up to its deadline.
 *
 * <p><b>Attempts.</b> It makes one attempt at once, unless it has time to wait and earlier waiters of
 * this client queue for the name: then it queues behind them without one (no barging). When
 * contended it joins the name's local FIFO ({@link WaitQueues}), and as head retries on a release
 * message, on a resubscription, or when the holder's TTL runs out (the fallback, also what keeps a
 * waiter going while its subscription is slow or failing): no polling (G7). While a lease of this
 * client holds the lock, the head asks only on a release message or a resubscription (the lock may
 * have been force-released or lost under that lease): that lease's release hands it the lock
 * ({@link Handoff}: the handoff is then the head's attempt in flight), and its loss wakes it. A
 * late reply of the head's current round that granted the lock (a handoff that ran after its
 * command timed out grants without publishing) makes it ask again at once. A newcomer that queued
 * behind this client's waiters without an attempt makes one at its deadline, so that it ends on
 * evidence (contended or Redis down) rather than on a guess. A transient
 * backend failure is retried with back-off while the wait has time left; the wait ends with
 * {@link LockBackendException} only if the backend stayed unusable until the deadline, or failed for
 * good (G9). The deadline timer never decides while an attempt is in flight (its reply does), so it
 * is armed only once the wait has nothing in flight: queued after a contended reply or without an
 * attempt, or backing off after a transient failure (an acquisition that gets the lock at once never
 * touches the timer).
 *
 * <p><b>Owners.</b> All attempts of a {@linkplain Round round} use one random owner, so a retried
 * acquire is idempotent. A lease that is no longer valid when its reply arrives (the reply was slower
 * than the lease) is never handed out (G6): the round ends, its owner is released, and a new round
 * with a new owner goes on waiting, so that a late release of the old owner can never delete the new
 * round's lock.
 *
 * <p><b>Across clients.</b> A waiter whose attempt finds the lock held takes a place in the lock's
 * wait queue in Redis (acquire.lua; a fair waiter's place is kept alive by the watchdog, every
 * {@link GrantOrder#WAITER_RENEW_MS} ms in its batched renew calls (see {@link WaiterPlace}), which
 * has it ask again once the place is gone or the lock free; a plain one's lasts until it asks again
 * when the holder's TTL runs out); a release grants the lock straight to the queue's head and names it in its message. A plain lock's local handoffs pass the queue by for one
 * turn of the client (one pass over its waiters, at most {@link WaitQueues#HANDOFFS_BEFORE_YIELD}
 * handoffs in a row): the handoff that ends it yields instead (handoff.lua grants
 * the lock to the queue's head, if another owner is ahead of this waiter, and gives this waiter a
 * place in the queue), so another client's waiter gets its turn within that many handoffs, decided
 * in Redis, whenever its threads run.
 *
 * <p><b>Clean cancellation</b> (G8): ending without a lease (cancel, timeout, interrupt, backend
 * error, close) releases the round's owner if any attempt was sent. A reply that arrives after its
 * command timed out is acted on when it arrives: released, unless its round is still going (a later
 * attempt with the same owner decides) or produced the lease the caller holds. Release is
 * owner-checked, so all of this is harmless when nothing was taken.
 *
 * <p><b>Hand-out.</b> For asynchronous callers the lease is handed out on the callback executor,
 * so their continuations never run on an I/O or timer thread; the lease is checked for validity
 * again right there. If the caller's future was cancelled first, the lease is released: a lease the
 * caller never received is never kept or renewed. Blocking callers are handed the lease directly.
 *
 * <p><b>Events.</b> Each acquisition reports one outcome to the listeners (acquired, failed or
 * cancelled); one that queued reports {@code onWaitStarted} and {@code onWaitEnded}, both sent under
 * the monitor so that they arrive in that order; a lease woken by a release message reports its
 * handoff latency, measured from the latest release message seen since its last contended reply.
 *
 * <p><b>Shape.</b> The state and its transitions live in {@link AcquisitionMachine} (one
 * transition function under one monitor, states in {@link AcquisitionState}); this class feeds it
 * {@linkplain AcquisitionEvent events} (replies, wake-ups, alarms, cancel, close) with what the machine
 * may not ask for under its monitor, and runs the {@linkplain AcquisitionEffect effects} it returns
 * (sends, queue joins, clean-ups, the hand-out, the caller's outcome) after it has left the monitor.
 *
 * <p>This class is threadsafe: its own fields are final, and all mutable state is the machine's.
 */
final class Acquisition {

    private final DefaultDistributedLock lock;
    private final Engine engine;
    private final String name;
    private final Duration wait;
    private final boolean direct;
    private final long leaseMs;
    private final CompletableFuture<Lease> result = new CompletableFuture<>();
    /** Completes at the end of {@link Finish}: see {@link #finished()}. */
    private final CompletableFuture<Void> finished = new CompletableFuture<>();

    /** A blocking caller's thread (null for an asynchronous one): whether it re-entered, see {@link #timedOut}. */
    private final @Nullable Thread callerThread;
    /** The lease with which that thread's {@code callLocked} holds this lock, if it was in one when it called. */
    private final @Nullable DefaultLease callerThreadLease;

    private final AcquisitionMachine machine;

    /**
     * @param direct true for a blocking caller, whose thread waits on the future and runs nothing
     *               else on it: the lease is then handed out on the thread that got the reply
     */
    Acquisition(DefaultDistributedLock lock, Duration wait, boolean direct) {
        this.lock = lock;
        this.engine = lock.engine();
        this.name = lock.name();
        this.wait = wait;
        this.direct = direct;
        this.leaseMs = lock.options().leaseTime().toMillis();
        // Built on the caller's thread: a blocking caller's thread is the one that waits.
        this.callerThread = direct ? Thread.currentThread() : null;
        this.callerThreadLease = direct ? ThreadHeldLeases.get(lock) : null;
        this.machine = new AcquisitionMachine(
                engine,
                name,
                wait,
                lock.options().leaseTime(),
                this::timedOut,
                alarm -> wake(false, alarm),
                alarm -> run(new RetryDue(alarm)),
                () -> run(new DeadlinePassed()),
                takesGrantsFromMessages(lock.options()),
                // where grants are composed (a quorum), a fair waiter's place is kept by its attempts,
                // which the quorum asks for often enough (see GrantOrder#attempt), not by the watchdog
                lock.order().ordersLocally() || wait.isZero() || engine.backend.grantsAreComposed()
                        ? null
                        : new PlaceListener());
    }

    /** What the watchdog tells of this fair waiter's place in Redis's queue: events of the machine. */
    private final class PlaceListener implements WaiterPlace.Listener {

        @Override
        public void kept(WaiterPlace place, long sentNanos, long holderToken, long roundTripNanos) {
            run(new PlaceKept(place, sentNanos, holderToken, roundTripNanos));
        }

        @Override
        public void lost(WaiterPlace place, @Nullable Throwable failure) {
            run(new PlaceLost(place, failure));
        }
    }

    /**
     * Whether a grant message may hand this acquisition its lease (see {@link AcquisitionMachine}): a
     * renewed lease no shorter than the grant window (its first TTL), with no max-hold bound (which
     * counts from the acquisition's send, and the grant's is only known to follow the last contended
     * attempt's).
     */
    private static boolean takesGrantsFromMessages(LockOptions options) {
        return options.autoRenew()
                && options.leaseTime().toMillis() >= GrantOrder.WAITER_LEASE_MS
                && options.maxHoldTime().isEmpty();
    }

    CompletableFuture<Lease> start() {
        result.whenComplete((lease, error) -> {
            if (result.isCancelled()) {
                run(new Cancelled());
            }
        });
        // No barging: this client's waiters were here first. (A lease of this client holding the lock
        // is no reason to skip the attempt: Redis may have lost that lock, as after a flush, and then
        // the attempt gets it.)
        // (A fair lock's waiters take their places in Redis's queue, in the order they reach it.)
        run(new Start(lock.order().ordersLocally()
                && !wait.isZero()
                && lock.client().waitQueues().hasWaiters(name)));
        return result;
    }

    // ---- what the wait queue and the client call ------------------------------------------------

    /** Called by the wait queue when this waiter became its head. */
    void wake() {
        wake(false, null);
    }

    /** Called by the wait queue on a resubscription: a release may have been published while the connection was down. */
    void wakeAfterResubscribe() {
        run(new Resubscribed(isHead()));
    }

    /**
     * Called by the wait queue, for a waiter behind its client's head, when the queue may not have
     * heard a grant naming it (its subscription became active, or came back, after the waiter's
     * attempt took a place in Redis's queue): it asks, if it has such a place.
     */
    void grantMayHaveBeenMissed() {
        run(new GrantMayHaveBeenMissed());
    }

    /**
     * Asks again if it may have missed a message: as the head (or a fair waiter) on any release, as a
     * waiter behind the head only for a grant naming it, which is all that may concern it there.
     */
    private void askAgain(boolean evenUnderLocalLease) {
        if (isHead()) {
            wake(evenUnderLocalLease, null);
        } else {
            grantMayHaveBeenMissed();
        }
    }

    /**
     * Called by the wait queue when a release message arrives while this waiter is its head (every
     * waiter of a fair lock hears every message); a waiter passes over the grants that name others.
     */
    void releaseSeen(@Nullable String message) {
        if (message == null || !GrantOrder.isGrant(message)) {
            run(new ReleaseSeen(isHead()));
        } else if (GrantOrder.names(message, machine.owner())) {
            run(new GrantNamesThisWaiter(GrantOrder.grantedToken(message)));
        } else {
            run(new GrantToAnotherSeen(isHead()));
        }
    }

    /** Whether this waiter takes its turn in its client's queue of the name (see {@link GrantOrder#ordersLocally}). */
    boolean ordersLocally() {
        return lock.order().ordersLocally();
    }

    /**
     * Makes this waiter's current round the target of a releasing lease's handoff: its attempt in
     * flight from now on. Null if it cannot take one now (an attempt in flight, or not waiting).
     * Called by the wait queue under its monitor (so the machine's is taken after it).
     *
     * @param streak   local handoffs in a row that the lease will close if this one grants it (see
     *                 {@link DefaultLease#handoffStreak})
     * @param mayYield whether the handoff may yield to other clients' waiters instead of granting
     */
    @Nullable
    Handoff claimHandoff(int streak, boolean mayYield) {
        for (AcquisitionEffect effect : machine.on(new ClaimHandoff(streak, mayYield))) {
            if (effect instanceof HandoffClaimed) {
                HandoffClaimed claimed = (HandoffClaimed) effect;
                return new Handoff(
                        this, claimed.round(), claimed.streak(), claimed.mayYield(), claimed.releaseSettled());
            }
        }
        return null;
    }

    /** Whether this waiter's deadline has passed (for a handoff to it being resent: see {@link Handoff#deadlinePassed}). */
    boolean pastDeadline() {
        return machine.pastDeadline();
    }

    /** Ends the wait because the client closed, undoing any attempt that may have landed. */
    void abortClosed() {
        run(new Closed());
    }

    /** Completes once the acquisition has ended and registered its clean-up, if any (for {@code close()}). */
    CompletableFuture<Void> finished() {
        return finished;
    }

    // ---- inputs ---------------------------------------------------------------------------------

    /**
     * Wakes this waiter if it heads its queue. While a lease of this client holds the lock, the head
     * does not ask Redis unless {@code evenUnderLocalLease} (a release message, or one that may have
     * been missed: a lock freed by {@code forceRelease()}, or lost by Redis, is free while the local
     * lease does not know it yet; the message of the local lease's own release is published only after
     * it left the client's holders, so it never meets the shortcut).
     */
    private void wake(boolean evenUnderLocalLease, AcquisitionMachine.@Nullable Alarm firedBy) {
        if (!isHead()) {
            return;
        }
        // (A fair waiter asks all the same: its call keeps its place in Redis's queue.)
        long localHolderLeft = evenUnderLocalLease || !lock.order().ordersLocally()
                ? 0
                : lock.client().localHolderValidityLeft(name);
        run(new Woken(localHolderLeft, firedBy));
    }

    /**
     * Called by the wait queue when a release granted the lock in Redis to this waiter while it is
     * not the head of its client's queue (its attempt took a place in Redis's queue before an earlier
     * local waiter queued here): it takes the grant now, out of the local order, or the lock would
     * sit unused for the grant's window.
     */
    void grantedInRedis(String message) {
        run(new GrantNamesThisWaiter(GrantOrder.grantedToken(message)));
    }

    /** The owner of the current round (for the wait queue to find the waiter a grant names). */
    String owner() {
        return machine.owner();
    }

    /** Whether this waiter may ask Redis now: the head of its client's queue, or any waiter of a fair lock. */
    private boolean isHead() {
        return !lock.order().ordersLocally() || lock.client().waitQueues().isHead(name, this);
    }

    /**
     * An acquire's reply (a handoff's comes parsed, see {@link Handoff#onReply}). The attempt stays in
     * flight until the reply has been acted on (see {@link AcquisitionState.Attempting}).
     */
    private void onReply(AcquireRound from, @Nullable Object reply, @Nullable Throwable error, long sent) {
        AcquireReply parsed = null;
        Throwable failure = error;
        if (failure == null) {
            try {
                parsed = lock.order().parse(reply);
            } catch (RuntimeException malformed) {
                failure = malformed;
            }
        }
        onParsedReply(from, 0, parsed, failure, sent);
    }

    /**
     * Acts on an attempt's reply, parsed (a handoff's is parsed by its release, see
     * {@link ReleaseSender}), or its failure.
     *
     * @param streak the handoff streak a lease from this reply closes (0 for a lease it took itself)
     */
    void onParsedReply(
            AcquireRound from, int streak, @Nullable AcquireReply parsed, @Nullable Throwable error, long sent) {
        if (parsed == null) {
            run(new Failed(
                    from,
                    Futures.unwrap(error != null ? error : new IllegalStateException("no reply and no failure"))));
            return;
        }
        if (!parsed.granted()) {
            run(new Contended(from, parsed.holderTtlMs(), sent, parsed.token()));
        } else if (engine.now() - (Validity.validUntil(sent, leaseMs) - Validity.leadNanos(leaseMs)) >= 0) {
            // The reply came after the lease it grants had run out (or so late that its loss would be
            // declared at once): never hand that out (G6).
            run(new GrantedTooLate(from));
        } else {
            run(new Granted(from, lease(from, parsed.token(), sent, leaseMs, streak)));
        }
    }

    /** The lease of {@code from}'s grant: its TTL of {@code firstTtlMs} ran from no sooner than {@code sent}. */
    private DefaultLease lease(AcquireRound from, long token, long sent, long firstTtlMs, int streak) {
        return new DefaultLease(
                lock.client(),
                name,
                from.owner,
                lock.options(),
                token,
                sent,
                firstTtlMs,
                streak,
                callerThread,
                lock.order());
    }

    /** A reply that came after its command timed out (the command ran, and may have taken the lock). */
    void onLateReply(AcquireRound from, @Nullable Object reply, @Nullable Throwable error) {
        if (error == null) {
            run(new LateReply(from, AcquireReply.grants(reply)));
        }
    }

    /**
     * Contended for the whole wait. The exception says whether a lease of this client holds the lock,
     * and whether that is the caller re-entering (G10): a blocking caller whose thread holds it through
     * {@code callLocked} or a blocking {@code acquire}. (An asynchronous caller is bound to no thread;
     * Kotlin's {@code awaitAcquire} checks its coroutine's holds itself.)
     */
    private LockTimeoutException timedOut() {
        boolean byCaller =
                callerThread != null && lock.client().heldByCallerThread(name, callerThread, callerThreadLease);
        return new LockTimeoutException(name, wait, byCaller || lock.client().holdsLease(name), byCaller);
    }

    // ---- effects --------------------------------------------------------------------------------

    private void run(AcquisitionEvent event) {
        run(machine.on(event));
    }

    private void run(List<AcquisitionEffect> effects) {
        CompletableFuture<?> cleanedUp = null; // the clean-up a Finish registered, for the Fail after it
        for (AcquisitionEffect effect : effects) {
            if (effect instanceof Send) {
                send((Send) effect);
            } else if (effect instanceof JoinQueue) {
                joinQueue((JoinQueue) effect);
            } else if (effect instanceof KeepPlace) {
                lock.client().keepPlace(((KeepPlace) effect).place());
            } else if (effect instanceof Wake) {
                askAgain(((Wake) effect).evenUnderLocalLease());
            } else if (effect instanceof ReleaseOwner) {
                ReleaseOwner release = (ReleaseOwner) effect;
                lock.client().releases().releaseEventuallyAfter(release.after(), name, release.round().owner, leaseMs);
            } else if (effect instanceof TakeGrant) {
                TakeGrant take = (TakeGrant) effect;
                run(new Granted(
                        take.round(),
                        lease(take.round(), take.token(), take.sentNanos(), GrantOrder.WAITER_LEASE_MS, 0)));
            } else if (effect instanceof StartLease) {
                DefaultLease lease = ((StartLease) effect).lease();
                lock.client().leaseStarted(lease);
                if (direct) {
                    handOut(lease);
                } else {
                    engine.runCallback(() -> handOut(lease));
                }
            } else if (effect instanceof GiveLease) {
                DefaultLease lease = ((GiveLease) effect).lease();
                if (!result.complete(lease)) {
                    lease.releaseUnused(); // cancelled in the last instant: the caller never gets it
                }
            } else if (effect instanceof DropLease) {
                dropLease((DropLease) effect);
            } else if (effect instanceof Finish) {
                cleanedUp = finish((Finish) effect);
            } else if (effect instanceof Fail) {
                fail((Fail) effect, cleanedUp);
            } else if (effect instanceof ReportFailed) {
                engine.listeners.acquireFailed(name, ((ReportFailed) effect).failure(), machine.waited());
            } else if (effect instanceof ReportCancelled) {
                engine.listeners.acquireCancelled(name, machine.waited());
            } else if (!(effect instanceof HandoffClaimed)) { // (read by claimHandoff)
                throw new IllegalStateException("unknown acquisition effect " + effect);
            }
        }
    }

    /** Sends the attempt of the effect's round (acquire.lua): the round's attempt in flight. */
    private void send(Send effect) {
        AcquireRound round = effect.round();
        CompletableFuture<Void> settled = effect.settled();
        // The lease counts from when the backend writes the command (after any wait for a connection),
        // which is before Redis can run it: never later than its TTL starts.
        AtomicLong sent = new AtomicLong(engine.now());
        Futures.whenDone(
                lock.order()
                        .attempt(
                                engine,
                                name,
                                round,
                                wait.isZero(),
                                effect.patient(),
                                (late, lateError) -> onLateReply(round, late, lateError),
                                () -> sent.set(engine.now())),
                "the reply of an acquire",
                name,
                (reply, error) -> {
                    try {
                        onReply(round, reply, error, sent.get());
                    } finally {
                        settled.complete(null);
                    }
                });
    }

    private void joinQueue(JoinQueue join) {
        RecentMessages.Missed missed = lock.client().waitQueues().join(name, this, join.lastSentNanos());
        if (machine.isDone()) {
            // Ended (deadline, cancel, close) between deciding to queue and queueing: its leave may have
            // come first, and a stale head would hold up every local waiter behind it.
            lock.client().waitQueues().leave(name, this);
            return;
        }
        if (missed.unknown()) {
            // the queue did not hear all that came since the attempt was sent: ask
            askAgain(true);
            return;
        }
        for (String message : missed.messages()) { // as if it had heard them
            releaseSeen(message);
        }
        if (join.wakeAfter()) {
            wake(join.evenUnderLocalLease(), null);
        }
    }

    /**
     * Gives {@code lease} to the caller, on the callback executor for an asynchronous caller (so that
     * its continuation never runs on an I/O or timer thread), if it still wants it; the machine then
     * checks that the lease is still valid, and announces and gives it, or discards it. The acquisition
     * leaves the wait queue before the caller's future completes, so that a continuation that blocks
     * (or releases at once) never holds up the next local waiter.
     */
    private void handOut(DefaultLease lease) {
        if (result.isDone()) {
            lease.releaseUnused(); // the caller gave up while the lease was on its way
            run(new HandOutRefused());
            return;
        }
        lease.lossIfInvalid(); // declares the loss here if the lease ran out between the reply and now
        run(new HandOut(lease));
    }

    private void dropLease(DropLease drop) {
        drop.lease().releaseUnused();
        if (drop.thenGoOn()) {
            run(result.isDone() ? new Cancelled() : new GoOn());
        }
    }

    /**
     * The acquisition's end: its clean-up is registered before the client stops tracking it, and
     * close() waits for {@link #finished}: it sees either the acquisition or its clean-up, never
     * neither. Then it leaves the queue, so that the next local waiter becomes head.
     */
    private @Nullable CompletableFuture<?> finish(Finish finish) {
        CompletableFuture<?> cleanedUp = null;
        if (finish.cleanUp()) {
            cleanedUp = lock.client()
                    .releases()
                    .releaseEventuallyAfter(finish.settledFirst(), name, finish.last().owner, leaseMs);
        }
        lock.client().acquisitionEnded(this);
        if (finish.queued()) {
            lock.client().waitQueues().leave(name, this);
        }
        finished.complete(null);
        return cleanedUp;
    }

    /**
     * Completes the caller's future with the failure, through the callback executor (a continuation
     * must not run on, and stretch, an I/O, timer or close() thread). A wait that timed out does so
     * once its clean-up has been answered: the clean-up takes its place out of the lock's wait queue
     * in Redis, and a release that follows the timeout (the caller's own, say) must not grant the
     * lock to the waiter that left. That costs the timeout one round trip, within the promise that a
     * call returns within its wait plus one command timeout: should the clean-up not be answered by
     * then (a link gone silent, or one so slow that the clean-up, sent once the last attempt's reply
     * came, cannot be answered in time), the timeout comes without it, and until the clean-up gets
     * through (or the place lapses) a release may grant the lock to the waiter that left, for one
     * grant window.
     */
    private void fail(Fail fail, @Nullable CompletableFuture<?> cleanedUp) {
        Runnable complete = () -> deliver(() -> result.completeExceptionally(fail.failure()));
        long left = machine.deadlineNanos() + engine.commandTimeoutNanos - engine.now();
        if (!fail.afterCleanUp() || cleanedUp == null || left <= 0) {
            complete.run();
            return;
        }
        cleanedUp // (a copy: completing it leaves the tracked clean-up alone)
                .completeOnTimeout(null, Math.min(left, engine.commandTimeoutNanos), TimeUnit.NANOSECONDS)
                .whenComplete((done, error) -> complete.run());
    }

    private void deliver(Runnable completion) {
        if (direct) {
            completion.run();
        } else {
            engine.runCallback(completion);
        }
    }
}
