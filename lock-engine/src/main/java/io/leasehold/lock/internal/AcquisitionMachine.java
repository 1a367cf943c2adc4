package io.leasehold.lock.internal;

import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockException;
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
import io.leasehold.lock.internal.AcquisitionState.Attempting;
import io.leasehold.lock.internal.AcquisitionState.BackingOff;
import io.leasehold.lock.internal.AcquisitionState.Done;
import io.leasehold.lock.internal.AcquisitionState.HandingOut;
import io.leasehold.lock.internal.AcquisitionState.Queued;
import io.leasehold.lock.internal.AcquisitionState.Starting;
import io.leasehold.lock.internal.AcquisitionState.Waiting;
import io.leasehold.lock.spi.support.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The state of one {@link Acquisition} and its one transition function, {@link #on}: it takes an
 * event and returns the effects that {@code Acquisition} runs once the monitor is left. All of the
 * acquisition's mutable state lives here, guarded by this object's monitor: the state
 * ({@link AcquisitionState}), the current {@linkplain AcquireRound round}, and what spans states
 * (whether it queued, whether it ever asked Redis, the last failure, the latest release message seen).
 *
 * <p>Under the monitor it touches only its own alarms ({@link EngineTimer}: scheduling runs nothing),
 * the listeners' queue (wait started and ended are enqueued here so that they arrive in order), the
 * lease it hands out (its announce and the claim of the acquisition are one step: an acquisition is
 * never both announced as acquired and ended by close) and the client's read-only view of its
 * leases (for an honest timeout message). It never calls the backend, the wait queue (whose monitor
 * is taken before this one by a handoff's claim) or the caller.
 *
 * <p>The rules it keeps, state by state, are those of {@link Acquisition}'s class doc.
 */
final class AcquisitionMachine {

    /** The shortest fallback alarm: a holder's TTL of 0 must not make a waiter spin. */
    static final long MIN_FALLBACK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /**
     * The fallback alarm when the holder's key has no TTL (a remaining time of -1: someone ran PERSIST
     * on it, or wrote it by hand), which never runs out by itself: often enough to find the lock free
     * soon after that key is deleted (a DEL publishes nothing), seldom enough not to load Redis, and
     * within a waiter lease, so that a place taken in Redis's queue (which then lasts one waiter
     * lease, see acquire.lua) is kept by the next ask.
     */
    static final long UNTIMED_HOLDER_FALLBACK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The first back-off after a transient failure; it doubles up to {@link #MAX_RETRY_NANOS}. */
    static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long NOT_SEEN = Long.MIN_VALUE;
    /** The grant window, the TTL of a lock granted to a waiter until it takes it (see acquire.lua). */
    private static final long GRANT_WINDOW_MS = GrantOrder.WAITER_LEASE_MS;
    /**
     * The least validity a lease taken from a grant message must have left (its validity counts from
     * the last contended attempt's send): else the waiter asks, and gets the whole lease time.
     */
    static final long MIN_GRANT_LEFT_NANOS = TimeUnit.MILLISECONDS.toNanos(GRANT_WINDOW_MS / 2);
    /**
     * How many of the last contended attempt's round trips the validity of a lease taken from a
     * grant message must hold, at least: its first renewal, sent a third into it, must be answered
     * well before its loss check, or a client on a slow link would take leases it cannot keep
     * (asking gets it the whole lease time instead).
     */
    static final long ROUND_TRIPS_LEFT = 4;

    private final Engine engine;
    private final String name;
    private final Duration wait;
    private final Duration leaseTime;
    private final long startNanos;
    private final long deadlineNanos;
    private final Supplier<LockTimeoutException> timedOut;
    private final Consumer<Alarm> onFallback;
    private final Consumer<Alarm> onRetryDue;
    private final Runnable onDeadline;
    /** Whether a grant message may stand for an attempt's reply (see {@link #grantNamesThisWaiter}). */
    private final boolean takesGrantsFromMessages;
    /** A fair waiter's: what its places in Redis's queue, kept by the watchdog, report to; null for others. */
    private final WaiterPlace.@Nullable Listener placeListener;

    private AcquisitionState state = new Starting();
    private AcquireRound round;
    /** Whether it joined the local queue (and reported its wait started); it stays there until the end. */
    private boolean queued;
    /** Whether any attempt (or handoff) of any round was sent; see {@link #deadlinePassed}. */
    private boolean askedRedis;
    /** When a release message last woke this waiter ({@link #NOT_SEEN} if none since its last contended reply). */
    private long releaseSeenNanos = NOT_SEEN;
    /** The current round's latest contended reply (when sent, and the holder it named), or null. */
    private @Nullable ContendedReply lastContended;
    /** Why the last attempt did not end contended (a failure, or a lease that came too late), or null. */
    private @Nullable Throwable lastFailure;

    private int transientFailures;
    /** How many attempts of this wait went unanswered within their timeout (of those transient failures). */
    private int timedOutAttempts;
    /** The wait's deadline, armed once the wait has nothing in flight (an acquisition that gets the lock at once never arms it). */
    private EngineTimer.@Nullable Timeout deadlineTimer;

    /**
     * @param timedOut   the exception of a wait that stayed contended to its deadline
     * @param onFallback called when a {@link Queued} alarm fires
     * @param onRetryDue called when a {@link BackingOff} alarm fires
     * @param onDeadline called when the wait's deadline passes
     * @param takesGrantsFromMessages whether a grant message may stand for the reply of an attempt:
     *                   only for a lease that is renewed (its first TTL is the grant window, which the
     *                   watchdog lifts to the lease time) and not shorter than that window
     * @param placeListener for a fair waiter, which has the watchdog keep its place in Redis's queue
     *                   alive while it is queued (see {@link WaiterPlace}): what the watchdog tells;
     *                   null for a waiter whose place lasts until it asks again
     */
    AcquisitionMachine(
            Engine engine,
            String name,
            Duration wait,
            Duration leaseTime,
            Supplier<LockTimeoutException> timedOut,
            Consumer<Alarm> onFallback,
            Consumer<Alarm> onRetryDue,
            Runnable onDeadline,
            boolean takesGrantsFromMessages,
            WaiterPlace.@Nullable Listener placeListener) {
        this.engine = engine;
        this.name = name;
        this.wait = wait;
        this.leaseTime = leaseTime;
        this.startNanos = engine.now();
        this.deadlineNanos = startNanos + wait.toNanos();
        this.timedOut = timedOut;
        this.onFallback = onFallback;
        this.onRetryDue = onRetryDue;
        this.onDeadline = onDeadline;
        this.takesGrantsFromMessages = takesGrantsFromMessages;
        this.placeListener = placeListener;
        this.round = new AcquireRound(leaseTime.toMillis());
    }

    /** The transition function: moves the state on {@code event}, and returns what to do outside the monitor. */
    synchronized List<AcquisitionEffect> on(AcquisitionEvent event) {
        List<AcquisitionEffect> effects = new ArrayList<>(3);
        if (event instanceof Start) {
            start((Start) event, effects);
        } else if (event instanceof Woken) {
            Woken woken = (Woken) event;
            if (woken.firedBy() == null || isCurrent(woken.firedBy())) {
                wakeUp(woken.localHolderLeftNanos(), effects);
            }
        } else if (event instanceof ReleaseSeen) {
            releaseSeen((ReleaseSeen) event, effects);
        } else if (event instanceof GrantNamesThisWaiter) {
            grantNamesThisWaiter(((GrantNamesThisWaiter) event).token(), effects);
        } else if (event instanceof GrantToAnotherSeen) {
            if (((GrantToAnotherSeen) event).head()) {
                grantToAnotherSeen();
            }
        } else if (event instanceof Resubscribed) {
            if (((Resubscribed) event).head()) {
                wakeUp(0, effects);
            }
        } else if (event instanceof GrantMayHaveBeenMissed) {
            grantMayHaveBeenMissed(effects);
        } else if (event instanceof ClaimHandoff) {
            claimHandoff((ClaimHandoff) event, effects);
        } else if (event instanceof Granted) {
            granted((Granted) event, effects);
        } else if (event instanceof GrantedTooLate) {
            grantedTooLate(((GrantedTooLate) event).from(), effects);
        } else if (event instanceof Contended) {
            contended((Contended) event, effects);
        } else if (event instanceof PlaceKept) {
            placeKept((PlaceKept) event);
        } else if (event instanceof PlaceLost) {
            placeLost((PlaceLost) event, effects);
        } else if (event instanceof Failed) {
            failed((Failed) event, effects);
        } else if (event instanceof LateReply) {
            lateReply((LateReply) event, effects);
        } else if (event instanceof RetryDue) {
            // Also behind its client's head: the attempt that failed answered a grant to this waiter
            // (or one it may have missed), and may have run, so Redis may hold the lock for this owner
            // for a whole lease; only asking again (the same owner: idempotent) finds out.
            if (isCurrent(((RetryDue) event).firedBy())) {
                attempt(effects);
            }
        } else if (event instanceof DeadlinePassed) {
            deadlinePassed(effects);
        } else if (event instanceof HandOut) {
            handOut(((HandOut) event).lease(), effects);
        } else if (event instanceof HandOutRefused) {
            end(Ending.CANCELLED_AT_HAND_OUT, null, effects);
        } else if (event instanceof GoOn) {
            if (state instanceof Waiting) {
                goOn(effects);
            }
        } else if (event instanceof Cancelled) {
            if (state instanceof Waiting || state instanceof Attempting || state instanceof Starting) {
                end(Ending.CANCELLED, null, effects); // while handing out, the hand-out sees the cancel
            }
        } else if (event instanceof Closed) {
            end(Ending.CLOSED, null, effects);
        } else {
            throw new IllegalArgumentException("unknown acquisition event " + event);
        }
        return effects;
    }

    /** The current round's owner (a fair waiter is woken by a grant that names it). */
    synchronized String owner() {
        return round.owner;
    }

    /** Whether the acquisition is over (for a queue join that may have raced its end). */
    synchronized boolean isDone() {
        return state instanceof Done;
    }

    /** When the wait ends, on the engine's ticker. */
    long deadlineNanos() {
        return deadlineNanos;
    }

    /** Whether the wait's deadline has passed. */
    boolean pastDeadline() {
        return engine.now() - deadlineNanos >= 0;
    }

    /** How long the acquisition has waited so far. */
    Duration waited() {
        return Duration.ofNanos(engine.now() - startNanos);
    }

    // ---- transitions ----------------------------------------------------------------------------

    private void start(Start event, List<AcquisitionEffect> effects) {
        if (!(state instanceof Starting)) {
            return;
        }
        if (event.behindLocalWaiters()) {
            armDeadline();
            queue();
            enter(new Queued(null));
            // Woken once queued: the others may all have left before the join, and nobody else would wake a new head.
            effects.add(new JoinQueue(Long.MAX_VALUE, true, false));
        } else {
            attempt(effects);
        }
    }

    /** A wake-up of the queue's head; see {@link Woken}. */
    private void wakeUp(long localHolderLeftNanos, List<AcquisitionEffect> effects) {
        if (state instanceof Attempting) {
            if (localHolderLeftNanos <= 0) {
                state = ((Attempting) state)
                        .withWakePending(); // a release raced the attempt in flight: ask again after its reply
            }
            return;
        }
        if (!(state instanceof Waiting)) {
            return;
        }
        if (localHolderLeftNanos > 0) {
            if (!(state instanceof BackingOff)) { // (a back-off's alarm asks anyway, within the wait)
                long now = engine.now();
                long fallback = Math.max(Math.min(localHolderLeftNanos, deadlineNanos - now), MIN_FALLBACK_NANOS);
                enter(new Queued(alarm(onFallback, now + fallback)));
            }
            return;
        }
        attempt(effects);
    }

    /** A release message that is no grant (or a missed one: a resubscription) arrived; see {@link Acquisition#releaseSeen}. */
    private void releaseSeen(ReleaseSeen event, List<AcquisitionEffect> effects) {
        releaseSeenNanos = engine.now();
        if (event.head()) {
            wakeUp(0, effects);
        }
    }

    /**
     * A grant to another waiter: this waiter asks again once the grant's window has passed, if
     * nothing wakes it first. A waiter otherwise asks only when the holder's TTL runs out (no
     * polling), so a grant to a waiter whose process died would hold it up for a lease; this way a
     * dead waiter costs it one grant window. A fair waiter whose place the watchdog keeps needs no
     * such alarm: the place's renewal finds a lapsed grant (the lock free) within a period, and has
     * it ask then, while a grantee that took its grant costs the other waiters nothing.
     */
    private void grantToAnotherSeen() {
        if (state instanceof Attempting) {
            // its message may beat the attempt's reply, whose holder's TTL must not then set the alarm
            state = new Attempting(((Attempting) state).wakePending(), engine.now());
            return;
        }
        if (!(state instanceof Queued)) {
            return;
        }
        Queued queuedNow = (Queued) state;
        if (queuedNow.place() != null) {
            return; // its place's renewal finds a lapsed grant
        }
        long due = grantWindowPassed(engine.now());
        Alarm current = queuedNow.alarm();
        if (current != null && current.atNanos - due <= 0) {
            return;
        }
        enter(new Queued(alarm(onFallback, Math.min(due, deadlineNanos))));
    }

    /**
     * A grant to this waiter (queued behind its client's head) may have been published unheard: it
     * asks if its attempt took a place in Redis's queue (a waiter that queued behind its client's
     * waiters without an attempt has none, and no grant can name it); an attempt in flight asks again
     * after its reply, which may have run before the grant.
     */
    private void grantMayHaveBeenMissed(List<AcquisitionEffect> effects) {
        if (lastContended == null || !(state instanceof Queued || state instanceof Attempting)) {
            return;
        }
        attempt(effects);
    }

    /**
     * The watchdog kept this waiter's place, and saw the lock held: the renewal serves as the round's
     * latest contended reply (for taking a grant from its message), if it was sent after that.
     */
    private void placeKept(PlaceKept event) {
        if (!holdsPlace(event.place())) {
            return;
        }
        lastFailure = null;
        if (lastContended == null || event.sentNanos() - lastContended.sentNanos() > 0) {
            lastContended = new ContendedReply(event.sentNanos(), event.holderToken(), event.roundTripNanos());
        }
    }

    /**
     * The watchdog could not keep this waiter's place (gone: lapsed, or granted to it with the message
     * missed; or the lock is free; or the renewal failed): the waiter asks, which takes the lock, or
     * the grant, or a new place, and its reply decides as any attempt's.
     */
    private void placeLost(PlaceLost event, List<AcquisitionEffect> effects) {
        if (!holdsPlace(event.place())) {
            return;
        }
        if (event.failure() != null) {
            lastFailure = event.failure();
        }
        attempt(effects);
    }

    /** Whether this waiter is queued with {@code place}, kept by the watchdog (not one it left behind). */
    private boolean holdsPlace(WaiterPlace place) {
        return state instanceof Queued && ((Queued) state).place() == place;
    }

    /** When a grant seen at {@code seenNanos} has had its window (and a waiter should ask again). */
    private static long grantWindowPassed(long seenNanos) {
        return seenNanos + TimeUnit.MILLISECONDS.toNanos(GrantOrder.WAITER_LEASE_MS) + MIN_FALLBACK_NANOS;
    }

    /**
     * A release granted the lock to this waiter in Redis and named it, with the grant's fencing
     * token, in its message. A waiter with no attempt in flight takes the lease from the message,
     * without asking, when the message proves when the grant ran: its token is above the holder's
     * token that the round's latest contended reply named, so the grant ran after that attempt ran,
     * hence after it was sent, and the grant's TTL (the grant window) runs out no sooner than the
     * window after that send. That saves the waiter a round trip (and Redis a call) on every grant
     * across clients; the lease starts with the window's validity, and its watchdog lifts it to the
     * lease time (a third of it into the validity left, or at its release if sooner). Otherwise (no
     * token, no such reply, too little of the window left, at least half of it and
     * {@link #ROUND_TRIPS_LEFT} round trips of that reply, or an attempt in flight, whose reply will
     * grant) it asks, as for a release message: the same owner gets the same lock for a whole lease.
     */
    private void grantNamesThisWaiter(long token, List<AcquisitionEffect> effects) {
        if (!(state instanceof Waiting) && !(state instanceof Attempting)) {
            return;
        }
        releaseSeenNanos = engine.now(); // the handoff latency runs from the grant's message
        ContendedReply last = lastContended;
        if (state instanceof Waiting
                && takesGrantsFromMessages
                && last != null
                && token != GrantOrder.NO_TOKEN
                && token > last.holderToken()) {
            long left = Validity.validUntil(last.sentNanos(), GRANT_WINDOW_MS)
                    - Validity.leadNanos(GRANT_WINDOW_MS)
                    - engine.now();
            if (left >= Math.max(MIN_GRANT_LEFT_NANOS, ROUND_TRIPS_LEFT * last.roundTripNanos())) {
                enter(new Attempting(false)); // the message stands for the reply of an attempt
                effects.add(new TakeGrant(round, token, last.sentNanos()));
                return;
            }
        }
        attempt(effects); // (in flight: asks again after the reply)
    }

    /** Makes the current round the target of a releasing lease's handoff: its attempt in flight from now on. */
    private void claimHandoff(ClaimHandoff event, List<AcquisitionEffect> effects) {
        if (!(state instanceof Waiting)) {
            return; // an attempt in flight, or not waiting: no handoff now
        }
        enter(new Attempting(false));
        round.sent = true;
        askedRedis = true;
        releaseSeenNanos = engine.now(); // the handoff latency runs from the release on
        // From the claim on, an ending's clean-up follows the release that hands the round the lock
        // (completed once that release settles, see Handoff#pending): claimed and not yet sent,
        // the handoff could otherwise be overtaken by the clean-up it was meant to precede.
        CompletableFuture<Void> releaseSettled = new CompletableFuture<>();
        round.handoffSettled = releaseSettled;
        effects.add(new HandoffClaimed(round, event.streak(), event.mayYield(), releaseSettled));
    }

    private void attempt(List<AcquisitionEffect> effects) {
        if (state instanceof Attempting) {
            state = ((Attempting) state).withWakePending();
            return;
        }
        if (!(state instanceof Waiting) && !(state instanceof Starting)) {
            return;
        }
        send(effects);
    }

    /** Sends the current round's attempt: from now on it is the attempt in flight. */
    private void send(List<AcquisitionEffect> effects) {
        if (round.sent && engine.backend.grantsAreComposed()) {
            nextAttemptOwner(effects);
        }
        enter(new Attempting(false));
        CompletableFuture<Void> settled = new CompletableFuture<>();
        round.sent = true;
        round.attemptSettled = settled;
        askedRedis = true;
        // Patient (the whole command timeout) once an attempt went unanswered within a fair waiter's
        // short first wait, and when the wait ends before that short wait would: its reply decides.
        boolean patient = timedOutAttempts > 0 || deadlineNanos - engine.now() <= engine.placeTimeoutNanos;
        effects.add(new Send(round, settled, patient));
    }

    private void granted(Granted event, List<AcquisitionEffect> effects) {
        if (!(state instanceof Attempting) || event.from() != round) {
            // Ended meanwhile (cancelled, closed, timed out): its clean-up releases the owner once this
            // attempt has settled; released here too (owner-checked, so harmless twice).
            effects.add(new ReleaseOwner(event.from(), null));
            return;
        }
        round.lease = event.lease();
        enter(new HandingOut(event.lease()));
        effects.add(new StartLease(event.lease()));
    }

    /** The reply came after the lease it grants had run out (or so late that its loss would be declared at once): never hand that out (G6). */
    private void grantedTooLate(AcquireRound from, List<AcquisitionEffect> effects) {
        effects.add(new ReleaseOwner(from, null));
        if (state instanceof Attempting && from == round) {
            nextRound(slowReply());
            enter(new Queued(null));
            goOn(effects);
        }
    }

    private void contended(Contended event, List<AcquisitionEffect> effects) {
        if (!(state instanceof Attempting) || event.from() != round) {
            return;
        }
        boolean wakePending = ((Attempting) state).wakePending();
        long grantSeen = ((Attempting) state).grantSeenNanos();
        lastFailure = null;
        round.answeredContended = true;
        long now = engine.now();
        lastContended = new ContendedReply(event.sentNanos(), event.holderToken(), now - event.sentNanos());
        if (!wakePending) {
            releaseSeenNanos = NOT_SEEN; // someone else took the lock after that release
        }
        if (now - deadlineNanos >= 0) {
            end(Ending.FAILED, timedOut.get(), effects);
            return;
        }
        armDeadline();
        boolean join = !queued;
        if (join) {
            queue();
        }
        boolean retryNow = false;
        if (wakePending) {
            enter(new Queued(null));
            retryNow = true;
        } else {
            long fallback = event.holderTtlMs() < 0
                    ? UNTIMED_HOLDER_FALLBACK_NANOS
                    : Math.max(TimeUnit.MILLISECONDS.toNanos(event.holderTtlMs()), MIN_FALLBACK_NANOS);
            long due = now + fallback;
            if (grantSeen != Attempting.NO_GRANT_SEEN && grantWindowPassed(grantSeen) - due < 0) {
                due = grantWindowPassed(grantSeen); // a grant to another waiter was seen while it asked
            }
            // A fair waiter's place is kept by the watchdog from now on, a period after this attempt.
            WaiterPlace place = placeListener == null
                    ? null
                    : new WaiterPlace(engine, name, round.owner, event.sentNanos(), placeListener);
            enter(new Queued(alarm(onFallback, Math.min(due, deadlineNanos)), place));
            if (place != null) {
                effects.add(new KeepPlace(place));
            }
        }
        if (join) {
            // The first waiter subscribes the release channel; once it is active the queue wakes its
            // head, so a release published before is not missed. A lingering subscription may have
            // seen a release since this attempt was sent, while nobody waited: then it asks at once.
            effects.add(new JoinQueue(event.sentNanos(), retryNow, true));
        } else if (retryNow) {
            effects.add(new Wake(true)); // a release message raced the attempt
        }
    }

    /** A transient failure with time left is retried after a back-off, within the wait; any other ends it (G9). */
    private void failed(Failed event, List<AcquisitionEffect> effects) {
        if (!(state instanceof Attempting) || event.from() != round) {
            return;
        }
        Throwable cause = event.cause();
        long now = engine.now();
        // A fair attempt cut short (PlaceTimeoutException) is no evidence that Redis is out of reach:
        // asked again at once with the whole command timeout, its reply decides, past the deadline too.
        boolean cutShort = cause instanceof PlaceTimeoutException;
        if (!engine.isTransient(cause) || (now - deadlineNanos >= 0 && !cutShort)) {
            end(Ending.FAILED, new LockBackendException(name, "could not acquire", cause), effects);
            return;
        }
        lastFailure = cause;
        transientFailures++;
        if (cause instanceof TimeoutException) {
            timedOutAttempts++;
        }
        armDeadline();
        if (cutShort) {
            send(effects);
            return;
        }
        long backoff = Math.min(FIRST_RETRY_NANOS << Math.min(transientFailures - 1, 10), MAX_RETRY_NANOS);
        enter(new BackingOff(alarm(onRetryDue, now + Math.min(backoff, deadlineNanos - now))));
    }

    /**
     * A reply that came after its command timed out. The command ran, so it may have taken the lock:
     * release it, unless its round is still going (a later attempt with the same owner decides, and
     * the end of the acquisition releases the owner anyway). If its round produced a lease, the
     * release waits until that lease has ended and its own release has had its outcome: the late
     * command may have re-taken the lock after the holder released it, but a clean-up sent while the
     * holder's release is on its way would delete the lock under it and make it report a false loss.
     */
    private void lateReply(LateReply event, List<AcquisitionEffect> effects) {
        boolean roundGoesOn = event.from() == round
                && (state instanceof Attempting || state instanceof Waiting || state instanceof Starting);
        if (roundGoesOn) {
            if (event.grants()) {
                // A late handoff grants without publishing (unlike a release, which a late acquire can
                // only follow): ask again now with the same owner, which gets the same lock, or this
                // waiter sleeps until its fallback while Redis holds the lock for it.
                attempt(effects);
            }
            return;
        }
        DefaultLease produced = event.from().lease;
        effects.add(new ReleaseOwner(event.from(), produced == null ? null : produced.settled()));
    }

    /**
     * The deadline never decides while an attempt is in flight (its reply does) or while a lease is
     * handed out. A waiter that queued behind this client's waiters and never asked has no evidence
     * whether the lock is held or Redis is down (G9): it asks once, and the reply decides (its
     * handling sees the deadline passed).
     */
    private void deadlinePassed(List<AcquisitionEffect> effects) {
        if (!(state instanceof Waiting)) {
            return;
        }
        if (!askedRedis) {
            attempt(effects);
        } else if (lastFailure != null) {
            // The last attempt failed (or was too slow), not contended: a backend failure (G9).
            end(
                    Ending.FAILED,
                    new LockBackendException(
                            name,
                            "could not acquire within the wait of " + Durations.human(wait)
                                    + "; the last attempt failed",
                            lastFailure),
                    effects);
        } else {
            end(Ending.FAILED, timedOut.get(), effects);
        }
    }

    /** After a discarded round: go on waiting with the new one, or end if the wait is over. */
    private void goOn(List<AcquisitionEffect> effects) {
        if (engine.now() - deadlineNanos >= 0) {
            deadlinePassed(effects);
        } else {
            attempt(effects);
        }
    }

    /**
     * Gives {@code lease} to the caller if it is still valid. The hand-out announces the lease and
     * claims the acquisition in one step, so that an acquisition is never both announced as acquired
     * and ended by close (two outcomes, and a clean-up deleting the lock under an announced lease). A
     * lease that ended or ran out between the reply and now is not announced: the round that made it
     * ends, and in the same step the wait goes back to a new round, so that no wake-up can send an
     * attempt with the old owner.
     */
    private void handOut(DefaultLease lease, List<AcquisitionEffect> effects) {
        if (!(state instanceof HandingOut)) {
            effects.add(new DropLease(lease, false)); // ended meanwhile (close): never announced, it ends silently
        } else if (lease.announceAcquired(waited(), sinceReleaseSeen())) {
            // Announced before the caller can have it, so that its acquired event precedes any event of its release.
            end(Ending.GIVEN, null, effects);
            effects.add(new GiveLease(lease));
        } else {
            nextRound(slowReply());
            enter(new Queued(null));
            effects.add(new DropLease(lease, true));
        }
    }

    // ---- endings --------------------------------------------------------------------------------

    /** How an acquisition ends; see {@link #end}. */
    private enum Ending {
        /** Handed out: nothing to clean up. */
        GIVEN,
        /** The caller's future was done before the hand-out, which released the lease. */
        CANCELLED_AT_HAND_OUT,
        CANCELLED,
        CLOSED,
        FAILED
    }

    /**
     * Ends the acquisition, once: stops its alarms, reports the end of its wait (under the monitor,
     * after its start), and asks for the clean-up of the current round (the owner is released if any
     * attempt was sent, after the handoff that may still be resent to it and its attempt still on its
     * way: see {@link AcquireRound#settledFirst}), then the outcome.
     */
    private void end(Ending ending, @Nullable LockException failure, List<AcquisitionEffect> effects) {
        if (state instanceof Done) {
            return;
        }
        enter(new Done());
        if (deadlineTimer != null) {
            deadlineTimer.cancel();
            deadlineTimer = null;
        }
        if (queued) {
            engine.listeners.waitEnded(name, waited());
        }
        boolean cleanUp = ending != Ending.GIVEN && ending != Ending.CANCELLED_AT_HAND_OUT && round.sent;
        effects.add(new Finish(cleanUp, round, round.settledFirst(), queued));
        switch (ending) {
            case FAILED:
                // A waiter that timed out leaves the Redis queue before its caller hears of it: a
                // release that follows the timeout must not grant the lock to its place.
                effects.add(new Fail(failure, cleanUp && failure instanceof LockTimeoutException));
                effects.add(new ReportFailed(failure));
                break;
            case CLOSED:
                effects.add(new ReportCancelled());
                effects.add(new Fail(
                        new IllegalStateException(
                                "client must be open, but was closed while waiting (lock '" + name + "')"),
                        false));
                break;
            case CANCELLED:
            case CANCELLED_AT_HAND_OUT:
                effects.add(new ReportCancelled());
                break;
            default:
                break;
        }
    }

    // ---- bookkeeping ----------------------------------------------------------------------------

    /**
     * Moves to {@code next}, cancelling the alarm of the state it leaves, and its place in Redis's
     * queue unless {@code next} keeps it.
     */
    private void enter(AcquisitionState next) {
        if (state instanceof Waiting) {
            Alarm alarm = ((Waiting) state).alarm();
            if (alarm != null) {
                alarm.cancel();
            }
        }
        if (state instanceof Queued) {
            WaiterPlace place = ((Queued) state).place();
            if (place != null && !(next instanceof Queued && ((Queued) next).place() == place)) {
                place.cancel();
            }
        }
        state = next;
    }

    private boolean isCurrent(Alarm alarm) {
        return state instanceof Waiting && ((Waiting) state).alarm() == alarm;
    }

    /** Joins the wait (its end reports {@code waitEnded}); reported under the monitor, so before the end's. */
    private void queue() {
        if (!queued) {
            queued = true;
            engine.listeners.waitStarted(name);
        }
    }

    /** Arms the deadline alarm, once, if the wait has time. */
    private void armDeadline() {
        if (deadlineTimer == null && !wait.isZero()) {
            deadlineTimer = engine.timer.scheduleAt(onDeadline, deadlineNanos);
        }
    }

    private Alarm alarm(Consumer<Alarm> callback, long atNanos) {
        Alarm alarm = new Alarm(atNanos);
        alarm.timeout = engine.timer.scheduleAt(() -> callback.accept(alarm), atNanos);
        return alarm;
    }

    /**
     * Where grants are composed of several servers' (a quorum), every attempt is a round of its own,
     * with a fresh owner: the backend cleans up a split attempt by releasing its owner (and may resend
     * that release in the background), which must never delete the lock a later attempt took; with
     * one owner per round it would, as a release is checked by owner. The attempt before is released
     * once settled, unless it was answered contended: the backend then holds nothing for its owner
     * (the composite released any partial grant itself). An attempt whose reply never came may have
     * taken the lock: its release frees it for the next attempt instead of leaving it for a lease.
     */
    private void nextAttemptOwner(List<AcquisitionEffect> effects) {
        AcquireRound previous = round;
        if (!previous.answeredContended) {
            effects.add(new ReleaseOwner(previous, previous.settledFirst()));
        }
        round = new AcquireRound(leaseTime.toMillis(), previous.waiter);
    }

    /** Starts a new round (a fresh owner) after a lease that must not be handed out. */
    private void nextRound(Throwable why) {
        round = new AcquireRound(leaseTime.toMillis(), round.waiter);
        lastContended = null;
        lastFailure = why;
    }

    /** Why a round was discarded: its reply came later than the lease it granted (a backend too slow, not a holder). */
    private TimeoutException slowReply() {
        return new TimeoutException("the acquire's reply came after the "
                + Durations.human(leaseTime)
                + " lease it granted had run out (Redis or the network is slower than the lease time)");
    }

    /** Time since a release message woke this waiter, or null if none did (uncontended, or woken otherwise). */
    private @Nullable Duration sinceReleaseSeen() {
        return releaseSeenNanos == NOT_SEEN ? null : Duration.ofNanos(engine.now() - releaseSeenNanos);
    }

    /**
     * A contended reply of the current round: when its attempt was sent, the holder's fencing token
     * it named, and how long it took to come back.
     */
    private record ContendedReply(long sentNanos, long holderToken, long roundTripNanos) {}

    /**
     * A timer armed by one state. It counts only while that state is current: a state that is left
     * cancels it, and one that fires as its state is left (the timer thread was already running it)
     * is ignored, so that no stale alarm sends an attempt.
     */
    static final class Alarm {

        /** When it fires, on the engine's ticker. */
        private final long atNanos;
        /** Set right after scheduling, under the machine's monitor. */
        private EngineTimer.@Nullable Timeout timeout;

        private Alarm(long atNanos) {
            this.atNanos = atNanos;
        }

        private void cancel() {
            if (timeout != null) {
                timeout.cancel();
            }
        }
    }
}
