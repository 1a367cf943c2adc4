package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockException;
import io.leasehold.lock.LockTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * ({@link HandoffTarget}: the handoff is then the head's attempt in flight), and its loss wakes it. A
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
 * <p><b>Yield.</b> When a handoff to this waiter yields instead (acquire.lua: another client waits
 * too, and this client has passed the lock around {@link WaitQueues#HANDOFFS_BEFORE_YIELD} times in a
 * row), the waiter steps back: it asks Redis again on the first release message after the yield's own
 * (another client took the lock and let it go, or yielded in turn), on a resubscription, or at the
 * latest after {@link #YIELD_STEP_BACK_NANOS} if no other client takes the lock. The other clients'
 * waiters so get their turn however late their threads act on the yield's message, and the lock idles
 * only when none of them comes.
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
 * <p>This class is threadsafe; its fields are guarded by {@code this}, and no call leaves the
 * monitor (to the backend, the queue or the caller) while it is held (events are only enqueued).
 */
final class Acquisition {

    private static final long MIN_FALLBACK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long NOT_SEEN = Long.MIN_VALUE;
    /**
     * The longest a waiter whose handoff yielded (see acquire.lua) steps back: the bound on how long
     * the lock may idle after a yield that no other client's waiter takes (the other subscriber was
     * only a lingering subscription, or its waiter had just given up).
     *
     * <p>The step-back does not end on this timer when another client's waiter does take the lock:
     * it ends on evidence, the next release message after the yield's own (that client's release,
     * or its own yield back), on which this waiter asks again at once. So the other clients' waiters
     * get their turn however late their threads run after the yield's message (a busy machine, a
     * slow subscriber connection), up to this bound, and the lock never idles while they are slow
     * but coming: a fixed window of a few milliseconds for their wake-up, message and acquire made
     * the yield a race that a loaded machine lost again and again.
     */
    static final long YIELD_STEP_BACK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How a yield's release message starts (acquire.lua publishes {@code "yielded <token>"}; any other release {@code "released"}). */
    static final String YIELD_MESSAGE_PREFIX = "yielded ";

    private enum Phase {
        WAITING,
        HANDING_OUT,
        DONE
    }

    private final DefaultDistributedLock lock;
    private final Engine engine;
    private final Duration wait;
    private final boolean direct;
    private final long startNanos;
    private final long deadlineNanos;
    private final CompletableFuture<Lease> result = new CompletableFuture<>();
    /** Completes at the end of {@link #finish}: see {@link #finished()}. */
    private final CompletableFuture<Void> finished = new CompletableFuture<>();

    private final List<String> acquireKeys;
    /** A blocking caller's thread (null for an asynchronous one): whether it re-entered, see {@link #timedOut}. */
    private final @Nullable Thread callerThread;
    /** The lease with which that thread's {@code callLocked} holds this lock, if it was in one when it called. */
    private final @Nullable DefaultLease callerThreadLease;

    private Phase phase = Phase.WAITING;
    private Round round;
    private boolean inFlight;
    private boolean wakePending;
    private boolean queued;
    /** Whether any attempt (or handoff) of any round was sent; see {@link #onDeadline}. */
    private boolean askedRedis;
    /** When a release message last woke this waiter ({@link #NOT_SEEN} if none since its last contended reply). */
    private long releaseSeenNanos = NOT_SEEN;
    /** Until when this waiter steps back after its handoff yielded ({@link #NOT_SEEN} if it does not). */
    private long backOffUntilNanos = NOT_SEEN;
    /** The latest yield's message ({@code "yielded <token>"}) this waiter saw as head; see {@link #releaseSeen}. */
    private @Nullable String lastYieldMessage;
    /**
     * While stepping back: its own yield's message until it has arrived, then null. Messages up to
     * and including it were published before the yield ran (or by it), so they are no evidence.
     */
    private @Nullable String ownYieldMessage;

    private int transientFailures;
    private @Nullable Throwable lastFailure;
    private EngineTimer.@Nullable Timeout fallbackTimer;
    private EngineTimer.@Nullable Timeout retryTimer;
    private EngineTimer.@Nullable Timeout deadlineTimer;

    /**
     * @param direct true for a blocking caller, whose thread waits on the future and runs nothing
     *               else on it: the lease is then handed out on the thread that got the reply
     */
    Acquisition(DefaultDistributedLock lock, Duration wait, boolean direct) {
        this.lock = lock;
        this.engine = lock.engine();
        this.wait = wait;
        this.direct = direct;
        this.startNanos = engine.now();
        this.deadlineNanos = startNanos + wait.toNanos();
        this.acquireKeys = List.of(engine.lockKey(lock.name()), engine.fenceKey(lock.name()));
        // Built on the caller's thread: a blocking caller's thread is the one that waits.
        this.callerThread = direct ? Thread.currentThread() : null;
        this.callerThreadLease = direct ? ThreadHeldLeases.get(lock) : null;
        this.round = new Round();
    }

    CompletableFuture<Lease> start() {
        result.whenComplete((lease, error) -> {
            if (result.isCancelled()) {
                abandon();
            }
        });
        if (!wait.isZero() && lock.client().waitQueues().hasWaiters(lock.name())) {
            // No barging: they were here first. (A lease of this client holding the lock is no reason
            // to skip the attempt: Redis may have lost that lock, as after a flush, and then the
            // attempt gets it.)
            queueBehindLocalWaiters();
        } else {
            attempt();
        }
        return result;
    }

    /** Arms the deadline timer, once, if the wait has time and is still going; call holding the monitor. */
    private void armDeadlineLocked() {
        if (deadlineTimer == null && !wait.isZero() && phase != Phase.DONE) {
            deadlineTimer = engine.timer.scheduleAt(this::onDeadline, deadlineNanos);
        }
    }

    /**
     * Called by the wait queue (became head) and the fallback timer. While a lease of this client
     * holds the lock, the head does not ask Redis (the answer is known): that lease's release hands
     * the lock over, or publishes if it cannot; its loss wakes the head; and a fallback at the end of
     * its validity covers anything missed.
     */
    void wake() {
        wake(false);
    }

    /**
     * Called by the wait queue on a resubscription: a release may have been published while the
     * connection was down, so the head asks even while a lease of this client holds the lock.
     */
    void wakeAfterResubscribe() {
        synchronized (this) {
            // Messages may have been missed while the connection was down: the step-back's evidence too.
            backOffUntilNanos = NOT_SEEN;
            ownYieldMessage = null;
        }
        wake(true);
    }

    /**
     * @param evenUnderLocalLease true when the lock may have been deleted under a lease of this
     *     client (a release message, or one that may have been missed): then the head asks Redis
     *     anyway. A lock freed by {@code forceRelease()} (or lost by Redis) is free while the local
     *     lease does not know it yet; the message of the local lease's own release is published only
     *     after it left the client's holders, so it never meets the shortcut.
     */
    private void wake(boolean evenUnderLocalLease) {
        if (!lock.client().waitQueues().isHead(lock.name(), this) || steppingBack()) {
            return;
        }
        long localHolderLeft = evenUnderLocalLease ? 0 : lock.client().localHolderValidityLeft(lock.name());
        if (localHolderLeft > 0) {
            synchronized (this) {
                if (phase == Phase.WAITING && !inFlight) {
                    cancel(fallbackTimer);
                    fallbackTimer = engine.timer.schedule(
                            this::wake,
                            Math.max(Math.min(localHolderLeft, deadlineNanos - engine.now()), MIN_FALLBACK_NANOS));
                }
            }
            return;
        }
        attempt();
    }

    /**
     * Makes this waiter's current round the target of a releasing lease's handoff: its attempt in
     * flight from now on. Null if it cannot take one now (an attempt in flight, or not waiting).
     *
     * @param streak   local handoffs in a row that the lease will close if this one grants it (see
     *                 {@link DefaultLease#handoffStreak})
     * @param mayYield whether the handoff may yield to other clients' waiters instead of granting
     */
    synchronized @Nullable HandoffTarget claimHandoff(int streak, boolean mayYield) {
        if (phase != Phase.WAITING || inFlight) {
            return null;
        }
        inFlight = true;
        wakePending = false;
        cancelTimers(false);
        Round target = round;
        target.sent = true;
        askedRedis = true;
        target.handoffStreak = streak;
        releaseSeenNanos = engine.now(); // the handoff latency runs from the release on
        return new Handoff(target, mayYield);
    }

    /**
     * Whether this waiter steps back after a yield (a release message after the yield's own, or its
     * timer at the bound, ends it); ends the step-back once the bound has passed.
     */
    private synchronized boolean steppingBack() {
        if (backOffUntilNanos == NOT_SEEN) {
            return false;
        }
        if (engine.now() - backOffUntilNanos < 0) {
            return true;
        }
        backOffUntilNanos = NOT_SEEN;
        return false;
    }

    /** Queues without an attempt behind this client's earlier waiters of the name. */
    private void queueBehindLocalWaiters() {
        synchronized (this) {
            armDeadlineLocked();
            queued = true;
            engine.listeners.waitStarted(lock.name()); // under the monitor: before finish()'s waitEnded
        }
        lock.client().waitQueues().join(lock.name(), this, Long.MAX_VALUE);
        boolean endedMeanwhile;
        synchronized (this) {
            endedMeanwhile = phase == Phase.DONE;
        }
        if (endedMeanwhile) {
            lock.client().waitQueues().leave(lock.name(), this); // see contended()
            return;
        }
        wake(); // the others may all have left before the join: nobody else would wake a new head
    }

    /**
     * Called by the wait queue when a release message arrives while this waiter is its head. While
     * it steps back after a yield, messages up to the yield's own (the one that wakes the other
     * clients' waiters; it names the yielded lock's token, see acquire.lua) are passed over: they were
     * published before the yield ran, or by it, however late they arrive. Any later one means the
     * lock went on to another client and came free again (or that client yielded in turn), so the
     * step-back ends and this waiter asks at once.
     */
    void releaseSeen(@Nullable String message) {
        synchronized (this) {
            releaseSeenNanos = engine.now();
            if (message != null && message.startsWith(YIELD_MESSAGE_PREFIX)) {
                lastYieldMessage = message; // it may come before the yield's reply
            }
            if (backOffUntilNanos != NOT_SEEN) {
                if (ownYieldMessage != null) {
                    if (ownYieldMessage.equals(message)) {
                        ownYieldMessage = null;
                    }
                    return;
                }
                backOffUntilNanos = NOT_SEEN;
            }
        }
        wake(true);
    }

    /** Ends the wait because the client closed, undoing any attempt that may have landed. */
    void abortClosed() {
        if (end()) {
            finish(true);
            engine.listeners.acquireCancelled(lock.name(), waited());
            // Through the callback executor: a continuation must not run on (and stretch) close().
            deliver(() -> result.completeExceptionally(new IllegalStateException(
                    "client must be open, but was closed while waiting (lock '" + lock.name() + "')")));
        }
    }

    // ---- attempts -------------------------------------------------------------------------------

    private void attempt() {
        Round current;
        CompletableFuture<Void> attemptSettled;
        synchronized (this) {
            if (phase != Phase.WAITING) {
                return;
            }
            if (inFlight) {
                wakePending = true; // a release raced the attempt in flight: try again after its reply
                return;
            }
            inFlight = true;
            wakePending = false;
            cancelTimers(false);
            current = round;
            current.sent = true;
            attemptSettled = new CompletableFuture<>();
            current.attemptSettled = attemptSettled;
            askedRedis = true;
        }
        // The lease counts from when the backend writes the command (after any wait for a connection),
        // which is before Redis can run it: never later than its TTL starts.
        AtomicLong sent = new AtomicLong(engine.now());
        engine.call(
                        EngineScripts.ACQUIRE,
                        acquireKeys,
                        current.args,
                        (late, lateError) -> onLateReply(current, late, lateError),
                        () -> sent.set(engine.now()))
                .whenComplete((reply, error) -> {
                    try {
                        onReply(current, reply, error, sent.get());
                    } finally {
                        attemptSettled.complete(null);
                    }
                });
    }

    /**
     * Handles an attempt's reply. The attempt stays "in flight" until the reply has been acted on:
     * a wake-up meanwhile only sets {@code wakePending}. Otherwise a release message arriving between
     * the reply and its handling would send a second acquire with the same owner, which (being
     * idempotent) also succeeds, and undoing that duplicate would delete the caller's own lock.
     */
    private void onReply(Round from, @Nullable Object reply, @Nullable Throwable error, long sent) {
        long status;
        long token;
        long holderTtlMs;
        boolean yielded;
        try {
            if (error != null) {
                throw error;
            }
            List<?> fields = Replies.asList(reply, "acquire");
            status = Replies.asLong(fields.get(0), "acquire");
            token = Replies.asLong(fields.get(1), "acquire");
            holderTtlMs = Replies.asLong(fields.get(2), "acquire");
            // a handoff's 4th entry: 1 with status 0 means it yielded to other clients' waiters
            yielded = status == 0 && fields.size() > 3 && Replies.asLong(fields.get(3), "acquire") == 1;
        } catch (Throwable failure) {
            Throwable cause = DefaultLease.unwrap(failure);
            if (engine.isTransient(cause) && engine.now() - deadlineNanos < 0) {
                retryLater(cause);
            } else {
                fail(new LockBackendException(lock.name(), "could not acquire", cause));
            }
            return;
        }
        if (status == 1) {
            acquired(from, token, sent);
        } else {
            contended(holderTtlMs, sent, yielded ? YIELD_MESSAGE_PREFIX + token : null);
        }
    }

    private void acquired(Round from, long token, long sent) {
        long leaseMs = lock.options().leaseTime().toMillis();
        if (engine.now() - (Validity.validUntil(sent, leaseMs) - Validity.leadNanos(leaseMs)) >= 0) {
            // The reply came after the lease it grants had run out (or so late that its loss would be
            // declared at once): never hand that out (G6).
            Round discarded;
            synchronized (this) {
                if (from != round || phase != Phase.WAITING) {
                    discarded = null;
                } else {
                    discarded = nextRound(slowReply());
                    inFlight = false;
                }
            }
            engine.releaseEventually(
                    lock.name(), from.owner, lock.options().leaseTime().toMillis());
            if (discarded != null) {
                goOnAfterDiscard();
            }
            return;
        }
        int streak;
        synchronized (this) {
            streak = from.handoffStreak;
        }
        DefaultLease lease = new DefaultLease(
                engine, lock.client(), lock.name(), from.owner, lock.options(), token, sent, streak, callerThread);
        synchronized (this) {
            if (phase != Phase.WAITING || from != round) {
                lease = null; // cancelled, closed or timed out meanwhile: the ending released the owner
            } else {
                phase = Phase.HANDING_OUT;
                inFlight = false;
                from.lease = lease;
            }
        }
        if (lease == null) {
            engine.releaseEventually(
                    lock.name(), from.owner, lock.options().leaseTime().toMillis());
            return;
        }
        lock.client().leaseStarted(lease);
        DefaultLease granted = lease;
        if (direct) {
            handOut(granted);
        } else {
            engine.runCallback(() -> handOut(granted));
        }
    }

    /**
     * Gives {@code lease} to the caller if it still wants it and the lease is still valid. Whoever
     * moves the phase on from HANDING_OUT decides: the hand-out (to DONE with the lease, or back to
     * WAITING with a new round), or an ending that came first (close), whose clean-up released the
     * owner. The hand-out announces the lease and claims the acquisition in one step under the
     * monitor, so that an acquisition is never both announced as acquired and ended by close (two
     * outcomes, and a clean-up deleting the lock under an announced lease). The acquisition leaves
     * the wait queue before the caller's future completes, so that a continuation that blocks (or
     * releases at once) never holds up the next local waiter.
     */
    private void handOut(DefaultLease lease) {
        if (result.isDone()) {
            lease.releaseInternal(); // the caller gave up while the lease was on its way
            if (endHandOut()) {
                engine.listeners.acquireCancelled(lock.name(), waited());
            }
            return;
        }
        lease.lossIfInvalid(); // declares the loss here if the lease ran out between the reply and now
        HandOut decided;
        synchronized (this) {
            if (phase != Phase.HANDING_OUT) {
                decided = HandOut.ENDED;
            } else if (lease.announceAcquired(waited(), sinceReleaseSeen())) {
                // Announced before the caller can have it, so that its acquired event precedes any
                // event of its release; a lease that ended or ran out in between is not announced.
                phase = Phase.DONE;
                decided = HandOut.GIVEN;
            } else {
                // Lost (or run out) between the reply and now: not a lease to hand out. The round that
                // made it ends, and in the same step the wait goes back to a new round, so that no
                // wake-up can send an attempt with the old owner.
                phase = Phase.WAITING;
                nextRound(slowReply());
                decided = HandOut.DISCARDED;
            }
        }
        switch (decided) {
            case ENDED:
                lease.releaseInternal(); // ended meanwhile (close): never announced, so it ends silently
                return;
            case DISCARDED:
                lease.releaseInternal();
                if (result.isDone()) {
                    abandon(); // the caller cancelled meanwhile
                } else {
                    goOnAfterDiscard();
                }
                return;
            default:
                finish(false);
                if (!result.complete(lease)) {
                    lease.releaseInternal(); // cancelled in the last instant: the caller never gets it
                }
        }
    }

    /** What a hand-out decided; see {@link #handOut}. */
    private enum HandOut {
        GIVEN,
        DISCARDED,
        ENDED
    }

    /** Ends a hand-out (leaving the queue, stopping timers); false if something else ended the acquisition first. */
    private boolean endHandOut() {
        if (end()) {
            finish(false);
            return true;
        }
        return false;
    }

    /** Starts a new round (a fresh owner) after a lease that must not be handed out; call holding the monitor. */
    private Round nextRound(Throwable why) {
        Round discarded = round;
        round = new Round();
        lastFailure = why;
        return discarded;
    }

    /** After a discarded round: go on waiting with the new one, or end if the wait is over. */
    private void goOnAfterDiscard() {
        if (engine.now() - deadlineNanos >= 0) {
            onDeadline();
        } else {
            attempt();
        }
    }

    /** Why a round was discarded: its reply came later than the lease it granted (a backend too slow, not a holder). */
    private TimeoutException slowReply() {
        return new TimeoutException("the acquire's reply came after the "
                + Durations.human(lock.options().leaseTime())
                + " lease it granted had run out (Redis or the network is slower than the lease time)");
    }

    /** @param yieldMessage the message of the yield this reply reports ({@code "yielded <token>"}), or null if it is no yield */
    private void contended(long holderTtlMs, long sent, @Nullable String yieldMessage) {
        boolean yielded = yieldMessage != null;
        boolean join = false;
        boolean retryNow = false;
        boolean over;
        synchronized (this) {
            if (phase != Phase.WAITING) {
                return;
            }
            inFlight = false; // from here on a wake-up may start the next attempt
            lastFailure = null;
            if (!wakePending) {
                releaseSeenNanos = NOT_SEEN; // someone else took the lock after that release
            }
            long now = engine.now();
            over = now - deadlineNanos >= 0;
            if (!over) {
                armDeadlineLocked();
                if (!queued) {
                    queued = true;
                    join = true;
                    engine.listeners.waitStarted(lock.name()); // under the monitor: before finish()'s waitEnded
                }
                if (yielded) {
                    // Our own handoff let the lock go to other clients' waiters: step back until the
                    // lock has moved on (a release message after the yield's own; if that one raced
                    // this reply, its wake-up is dropped here with wakePending) or the bound has passed.
                    backOffUntilNanos = now + YIELD_STEP_BACK_NANOS;
                    ownYieldMessage = yieldMessage.equals(lastYieldMessage) ? null : yieldMessage;
                    wakePending = false;
                    fallbackTimer =
                            engine.timer.scheduleAt(this::wake, Math.min(now + YIELD_STEP_BACK_NANOS, deadlineNanos));
                }
                retryNow = wakePending;
                if (!retryNow && !yielded) {
                    long fallback = Math.max(TimeUnit.MILLISECONDS.toNanos(holderTtlMs), MIN_FALLBACK_NANOS);
                    fallbackTimer = engine.timer.scheduleAt(this::wake, Math.min(now + fallback, deadlineNanos));
                }
            }
        }
        if (over) {
            timedOut();
            return;
        }
        if (join) {
            // Subscribes the name's release channel if this is its first waiter; once the subscription is
            // active the queue wakes its head, so that a release published before it is not missed. A
            // lingering subscription (see WaitQueues) may have seen a release since this attempt was
            // sent, while nobody waited: then try again at once.
            retryNow |= lock.client().waitQueues().join(lock.name(), this, sent);
            boolean endedMeanwhile;
            synchronized (this) {
                endedMeanwhile = phase == Phase.DONE;
            }
            if (endedMeanwhile) {
                // Ended (deadline, cancel, close) between deciding to queue and queueing: its leave()
                // may have come first, and a stale head would hold up every local waiter behind it.
                lock.client().waitQueues().leave(lock.name(), this);
                return;
            }
        }
        if (retryNow) {
            wake(true); // a release message raced the attempt (or reached a lingering subscription)
        }
    }

    /** A transient failure with time left: try again after a back-off, within the wait. */
    private void retryLater(Throwable cause) {
        synchronized (this) {
            if (phase != Phase.WAITING) {
                return;
            }
            inFlight = false;
            lastFailure = cause;
            transientFailures++;
            armDeadlineLocked();
            long backoff = Math.min(FIRST_RETRY_NANOS << Math.min(transientFailures - 1, 10), MAX_RETRY_NANOS);
            retryTimer = engine.timer.schedule(this::retryNow, Math.min(backoff, deadlineNanos - engine.now()));
        }
    }

    private void retryNow() {
        boolean mayContend;
        synchronized (this) {
            mayContend = !queued;
        }
        if (mayContend || lock.client().waitQueues().isHead(lock.name(), this)) {
            attempt();
        }
    }

    private void onDeadline() {
        Throwable failure;
        boolean neverAsked;
        synchronized (this) {
            if (inFlight || phase != Phase.WAITING) {
                return; // the reply (or the hand-out) decides
            }
            failure = lastFailure;
            // Queued behind this client's waiters without ever asking: there is no evidence whether
            // the lock is held or Redis is down (G9), so ask once and let the reply decide (its
            // handling sees the deadline passed: contended ends in a timeout, a transient failure
            // in LockBackendException, and a grant is a lease).
            // (Only if no attempt at all was sent: a round discarded for a slow reply has failed.)
            neverAsked = !askedRedis;
        }
        if (neverAsked) {
            attempt();
            return;
        }
        if (failure != null) {
            // The last attempt failed (or was too slow), not contended: a backend failure (G9).
            fail(new LockBackendException(
                    lock.name(),
                    "could not acquire within the wait of " + Durations.human(wait) + "; the last attempt failed",
                    failure));
        } else {
            timedOut();
        }
    }

    /**
     * A reply that came after its command timed out. The command ran, so it may have taken the lock:
     * release it, unless its round is still going (a later attempt with the same owner decides, and
     * the end of the acquisition releases the owner anyway). If its round produced a lease, the
     * release waits until that lease has ended and its own release has had its outcome: the late
     * command may have re-taken the lock after the holder released it, but a clean-up sent while the
     * holder's release is on its way would delete the lock under it and make it report a false loss.
     */
    private void onLateReply(Round from, @Nullable Object reply, @Nullable Throwable error) {
        if (error != null) {
            return;
        }
        DefaultLease produced;
        boolean roundGoesOn;
        synchronized (this) {
            roundGoesOn = from == round && phase == Phase.WAITING;
            produced = from.lease;
        }
        if (roundGoesOn) {
            if (grants(reply)) {
                // A late handoff grants without publishing (unlike a release, which a late acquire
                // can only follow): ask again now with the same owner, which gets the same lock, or
                // this waiter sleeps until its fallback while Redis holds the lock for it. An attempt
                // in flight meanwhile makes it ask again after its reply.
                attempt();
            }
            return;
        }
        engine.releaseEventuallyAfter(
                produced == null ? null : produced.settled(),
                lock.name(),
                from.owner,
                lock.options().leaseTime().toMillis());
    }

    /** Whether an acquire reply says the lock was granted (status 1); false for anything malformed. */
    private static boolean grants(@Nullable Object reply) {
        try {
            return Replies.asLong(Replies.asList(reply, "acquire").get(0), "acquire") == 1;
        } catch (RuntimeException malformed) {
            return false;
        }
    }

    // ---- endings -------------------------------------------------------------------------------

    /**
     * Contended for the whole wait. The exception says whether a lease of this client holds the lock,
     * and whether that is the caller re-entering (G10): a blocking caller whose thread holds it through
     * {@code callLocked} or a blocking {@code acquire}. (An asynchronous caller is bound to no thread;
     * Kotlin's {@code awaitAcquire} checks its coroutine's holds itself.)
     */
    private void timedOut() {
        String name = lock.name();
        boolean byCaller =
                callerThread != null && lock.client().heldByCallerThread(name, callerThread, callerThreadLease);
        fail(new LockTimeoutException(name, wait, byCaller || lock.client().holdsLease(name), byCaller));
    }

    private void fail(LockException failure) {
        if (!end()) {
            return;
        }
        finish(true);
        deliver(() -> result.completeExceptionally(failure));
        engine.listeners.acquireFailed(lock.name(), failure, waited());
    }

    /** The caller cancelled its future. */
    private void abandon() {
        synchronized (this) {
            if (phase != Phase.WAITING) {
                return; // handing out (the hand-out sees the cancel and releases) or already over
            }
        }
        if (end()) {
            finish(true);
            engine.listeners.acquireCancelled(lock.name(), waited());
        }
    }

    /** Marks the acquisition over; true for the one caller that ended it. */
    private synchronized boolean end() {
        if (phase == Phase.DONE) {
            return false;
        }
        phase = Phase.DONE;
        return true;
    }

    /**
     * Leaves the queue and stops the timers; with {@code cleanUp}, undoes any attempt of the current
     * round. The clean-up waits for a handoff to this round that may still be resent (cleaning up
     * first could let the lock move on under that resend: a false loss for the releasing lease, see
     * {@link HandoffRelease}), and for the round's attempt still on its way (cleaning up first would
     * find nothing, and the attempt would then hold the lock for a lease time); also when the client
     * is closing, which waits for the clean-up (and sends it anyway near the end of its timeout).
     */
    private void finish(boolean cleanUp) {
        boolean wasQueued;
        Round last;
        CompletableFuture<?> settledFirst;
        synchronized (this) {
            cancelTimers(true);
            wasQueued = queued;
            last = round;
            settledFirst = last.settledFirst();
            if (wasQueued) {
                engine.listeners.waitEnded(lock.name(), waited());
            }
        }
        // The clean-up is registered before the client stops tracking this acquisition, and close()
        // waits for finished: it sees either the acquisition or its clean-up, never neither.
        if (cleanUp && last.sent) {
            engine.releaseEventuallyAfter(
                    settledFirst,
                    lock.name(),
                    last.owner,
                    lock.options().leaseTime().toMillis());
        }
        lock.client().acquisitionEnded(this);
        if (wasQueued) {
            lock.client().waitQueues().leave(lock.name(), this);
        }
        finished.complete(null);
    }

    /** Completes once the acquisition has ended and registered its clean-up, if any (for {@code close()}). */
    CompletableFuture<Void> finished() {
        return finished;
    }

    private void deliver(Runnable completion) {
        if (direct) {
            completion.run();
        } else {
            engine.runCallback(completion);
        }
    }

    private void cancelTimers(boolean withDeadline) {
        cancel(fallbackTimer);
        cancel(retryTimer);
        fallbackTimer = null;
        retryTimer = null;
        if (withDeadline) {
            cancel(deadlineTimer);
            deadlineTimer = null;
        }
    }

    private Duration waited() {
        return Duration.ofNanos(engine.now() - startNanos);
    }

    /** Time since a release message woke this waiter, or null if none did (uncontended, or woken otherwise). */
    private synchronized @Nullable Duration sinceReleaseSeen() {
        return releaseSeenNanos == NOT_SEEN ? null : Duration.ofNanos(engine.now() - releaseSeenNanos);
    }

    private static void cancel(EngineTimer.@Nullable Timeout timer) {
        if (timer != null) {
            timer.cancel();
        }
    }

    /** A releasing lease's handoff to this waiter's round; see {@link HandoffTarget}. */
    private final class Handoff implements HandoffTarget {

        private final Round target;
        private final boolean mayYield;

        Handoff(Round target, boolean mayYield) {
            this.target = target;
            this.mayYield = mayYield;
        }

        @Override
        public String owner() {
            return target.owner;
        }

        @Override
        public List<String> args(String releasingOwner, String publishCommand) {
            List<String> args = new java.util.ArrayList<>(target.args.size() + 3);
            args.addAll(target.args);
            args.add(releasingOwner);
            args.add(publishCommand);
            args.add(mayYield ? "1" : "0");
            return args;
        }

        @Override
        public void onReply(@Nullable Object reply, @Nullable Throwable error, long sentNanos) {
            Acquisition.this.onReply(target, reply, error, sentNanos);
        }

        @Override
        public void onLateReply(@Nullable Object reply, @Nullable Throwable error) {
            Acquisition.this.onLateReply(target, reply, error);
        }

        @Override
        public boolean deadlinePassed() {
            return engine.now() - deadlineNanos >= 0;
        }

        @Override
        public void pending(CompletableFuture<?> settled) {
            synchronized (Acquisition.this) {
                target.handoffSettled = settled;
            }
        }
    }

    /** The attempts made with one owner value; see the class doc. */
    private final class Round {
        final String owner = OwnerIds.next();
        final List<String> args = List.of(
                owner,
                Long.toString(lock.options().leaseTime().toMillis()),
                Long.toString(Engine.FENCE_COUNTER_TTL_MS));
        /** Whether any attempt of this round was sent (guarded by the acquisition's monitor). */
        boolean sent;
        /**
         * Local handoffs in a row that a lease of this round closes, if a releasing lease handed it
         * the lock; 0 for a lease it took itself (guarded by the acquisition's monitor).
         */
        int handoffStreak;
        /**
         * Completes once the release that handed this round the lock has settled (null if none did):
         * the round's clean-up waits for it (guarded by the acquisition's monitor).
         */
        @Nullable
        CompletableFuture<?> handoffSettled;
        /**
         * Completes once the round's latest attempt has been answered and its reply acted on (null
         * before any attempt): the round's clean-up waits for it, since a clean-up that overtook an
         * attempt still on its way would find nothing, and the attempt would then take the lock for a
         * lease time (guarded by the acquisition's monitor).
         */
        @Nullable
        CompletableFuture<?> attemptSettled;
        /** The lease this round produced, once it did (guarded by the acquisition's monitor). */
        @Nullable
        DefaultLease lease;

        /**
         * What the round's clean-up must follow: the handoff that may still be resent to it, and its
         * attempt still on its way; null if neither is pending (call holding the acquisition's monitor).
         */
        @Nullable
        CompletableFuture<?> settledFirst() {
            boolean attemptPending = attemptSettled != null && !attemptSettled.isDone();
            if (handoffSettled == null) {
                return attemptPending ? attemptSettled : null;
            }
            return attemptPending ? CompletableFuture.allOf(handoffSettled, attemptSettled) : handoffSettled;
        }
    }
}
