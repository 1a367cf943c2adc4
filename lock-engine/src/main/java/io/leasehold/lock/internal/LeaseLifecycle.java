package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.ReleaseUnconfirmedException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Where one lease stands, and the one place that changes it: one {@link Status}, one lock, one
 * method per event. Every observer reads this status (the public {@link LeaseState}, whether a
 * release found a loss, what {@code callLocked} and {@code withLock} report), so they agree by
 * construction; and the lease's listener events are sent from the transitions, under the same
 * lock, so that they arrive in the order the transitions happened.
 *
 * <pre>
 *   Held(certain) ⇄ Held(uncertain)          renewal failed / confirmed
 *   Held ─ release asked ─→ Releasing ─ Redis answered ─→ Released(confirmed | unconfirmed)
 *                                                     └─→ Lost(STOLEN: taken while valid)
 *   Held ─ loss declared ─→ Lost                  (BACKEND_UNAVAILABLE passes through uncertain)
 * </pre>
 *
 * <p>A lease's events are sent only once it was {@linkplain #announce announced} (handed to a caller):
 * from {@code onAcquired} to exactly one ending ({@code onReleased}, {@code onReleaseUnconfirmed} or
 * {@code onLeaseLost}). Sending only enqueues on the event thread, so holding the lock meanwhile costs
 * nothing and never runs user code.
 *
 * <p>Once the lease has ended, the lifecycle also orders what follows (G6): a loss is told to its
 * holder ({@link #tellLoss}: hooks at once, then watchers and {@link #lostFuture()} on the callback
 * executor) before the lock is freed for others, and {@link #ended()} and {@link #settled()} complete
 * in that order, the second only once the holder was told, or the release had its outcome.
 *
 * <p>This class is threadsafe: transitions hold {@link #lock} (private, so that nothing outside can
 * block them); {@link #status()} is a volatile read.
 */
final class LeaseLifecycle {

    /** A lease's status; see the class doc for the transitions. */
    sealed interface Status permits Held, Releasing, Released, Lost {}

    /** Held; {@code UNCERTAIN} while {@code uncertainCause} is set (a renewal or extend failed, none confirmed since). */
    record Held(@Nullable Throwable uncertainCause) implements Status {
        static final Held CERTAIN = new Held(null);

        boolean uncertain() {
            return uncertainCause != null;
        }
    }

    /** Its owner asked for the release; Redis has not settled it yet. */
    record Releasing() implements Status {}

    /** Released by its owner while valid; {@code unconfirmed} says why Redis could not confirm it, if it could not. */
    record Released(@Nullable ReleaseUnconfirmedException unconfirmed) implements Status {}

    /** Lost: the loss says why. */
    record Lost(LeaseLoss loss) implements Status {}

    private static final Releasing RELEASING = new Releasing();

    private final String name;
    private final long token;
    private final Listeners listeners;
    /** Where an announced holder is told of its loss: the client's callback executor. */
    private final Executor callbacks;

    private final Object lock = new Object();
    private final LossSignal signal = new LossSignal();
    /** See {@link #ended()}. */
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    /** See {@link #settled()}. */
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    /** The loss's "tell the holder, then free the lock" while it waits for the callback executor; see {@link #tellNowIfUntold}. */
    private volatile @Nullable Runnable untold;

    private volatile Status status = Held.CERTAIN; // written under lock
    private boolean announced; // guarded by lock

    LeaseLifecycle(String name, long token, Listeners listeners, Executor callbacks) {
        this.name = name;
        this.token = token;
        this.listeners = listeners;
        this.callbacks = callbacks;
    }

    Status status() {
        return status;
    }

    boolean isHeld() {
        return status instanceof Held;
    }

    /** The public state this status shows. */
    LeaseState state() {
        Status now = status;
        if (now instanceof Held held) {
            return held.uncertain() ? LeaseState.UNCERTAIN : LeaseState.HELD;
        }
        if (now instanceof Releasing) {
            return LeaseState.RELEASING;
        }
        return now instanceof Released ? LeaseState.RELEASED : LeaseState.LOST;
    }

    /** The loss, once lost; null otherwise. */
    @Nullable
    LeaseLoss loss() {
        return status instanceof Lost lost ? lost.loss() : null;
    }

    /**
     * The lease is handed to its caller: from now on its events are reported, starting with
     * {@code onHandoff} (when a release message woke its waiter {@code sinceReleaseSeen} ago; null
     * otherwise) and {@code onAcquired}. Returns false, announcing nothing, unless it is held and
     * {@code beforeLossCheck} still says so (read here, under the lock: a hand-out paused between an
     * earlier check and this one must not hand out a lease past its loss check).
     */
    boolean announce(
            BooleanSupplier beforeLossCheck,
            Duration waited,
            @Nullable Duration sinceReleaseSeen,
            Supplier<Duration> remaining) {
        synchronized (lock) {
            if (!(status instanceof Held held) || !beforeLossCheck.getAsBoolean()) {
                return false;
            }
            announced = true;
            // One event for both, so that a full event queue drops both or neither.
            listeners.acquired(name, token, waited, sinceReleaseSeen);
            if (held.uncertain()) {
                // It went uncertain before it was handed out (a slow hand-out): its listeners start from there.
                listeners.leaseUncertain(name, token, remaining.get(), held.uncertainCause());
            }
            return true;
        }
    }

    /** Whether the lease was handed to a caller; final once it has ended (only a held lease is announced). */
    boolean announced() {
        synchronized (lock) {
            return announced;
        }
    }

    /** Sends an event of a lease in progress (renewed, renewal failed) if it was announced and is held. */
    void tellWhileHeld(Consumer<Listeners> event) {
        synchronized (lock) {
            if (announced && status instanceof Held) {
                event.accept(listeners);
            }
        }
    }

    /**
     * A renewal or extend failed: a held lease goes {@code UNCERTAIN}, and its listeners hear of it
     * once for this streak of failures; {@code validFor} is read only then.
     */
    void renewalFailed(Throwable cause, Supplier<Duration> validFor) {
        synchronized (lock) {
            if (status instanceof Held held && !held.uncertain()) {
                status = new Held(cause);
                if (announced) {
                    listeners.leaseUncertain(name, token, validFor.get(), cause);
                }
            }
        }
    }

    /** Redis confirmed the lease: an uncertain lease is held again. */
    void confirmed() {
        synchronized (lock) {
            if (status instanceof Held held && held.uncertain()) {
                status = Held.CERTAIN;
                if (announced) {
                    listeners.leaseReconfirmed(name, token);
                }
            }
        }
    }

    /** Its owner asks for the release: true if this call moved a held lease to {@code RELEASING}. */
    boolean releaseAsked() {
        synchronized (lock) {
            if (!(status instanceof Held)) {
                return false;
            }
            status = RELEASING;
            return true;
        }
    }

    /**
     * The release was settled: {@code RELEASING} ends {@code RELEASED}, confirmed or not, and the
     * listeners hear {@code onReleased} or {@code onReleaseUnconfirmed}.
     */
    void released(@Nullable ReleaseUnconfirmedException unconfirmed, Duration held) {
        synchronized (lock) {
            if (!(status instanceof Releasing)) {
                return;
            }
            status = new Released(unconfirmed);
            if (announced) {
                if (unconfirmed == null) {
                    listeners.released(name, token, held);
                } else {
                    listeners.releaseUnconfirmed(name, token, held, unconfirmed);
                }
            }
        }
    }

    /**
     * Ends the lease as lost: from {@code HELD} (a renewal, an extend, a deadline, close), or from
     * {@code RELEASING} when the release's answer proves the lock was taken while the lease was valid
     * ({@code fromRelease}). A loss because Redis stopped answering is {@code UNCERTAIN} first, if it
     * was not already: the early warning always comes before the verdict. Returns false if the lease
     * had already ended otherwise (or was not releasing, for {@code fromRelease}).
     */
    boolean lost(LeaseLoss loss, boolean fromRelease) {
        synchronized (lock) {
            Status now = status;
            if (fromRelease ? !(now instanceof Releasing) : !(now instanceof Held)) {
                return false;
            }
            if (now instanceof Held held
                    && !held.uncertain()
                    && loss.reason() == LeaseLoss.Reason.BACKEND_UNAVAILABLE
                    && announced) {
                listeners.leaseUncertain(
                        name,
                        token,
                        Duration.ZERO,
                        loss.cause().orElseGet(() -> new IllegalStateException("renewal not confirmed in time")));
            }
            status = new Lost(loss);
            if (announced) {
                listeners.leaseLost(loss);
            }
            return true;
        }
    }

    // ---- after the ending ------------------------------------------------------------------------

    /** The lease's {@code lost()}: completes with the loss, once its holder is told (see {@link LossSignal}). */
    CompletableFuture<LeaseLoss> lostFuture() {
        return signal.future();
    }

    /** See {@link LossSignal#onLossNow}: for interrupting a {@code callLocked} thread. */
    AutoCloseable onLossNow(Runnable hook) {
        return signal.onLossNow(hook);
    }

    /** See {@link LossSignal#watch}: for cancelling a Kotlin block or failing a {@code callLockedAsync}. */
    AutoCloseable watchLoss(Consumer<LeaseLoss> watcher) {
        return signal.watch(watcher);
    }

    /** Loss hooks and watchers attached now (for tests and diagnostics). */
    int lossAttachments() {
        return signal.attachedCount();
    }

    /**
     * Completes as soon as the lease's ending is final ({@code RELEASED} or {@code LOST}), on the thread
     * that decided it; never fails. Whoever must report how the lease ended waits for it, then reads
     * {@link #loss()}.
     */
    CompletableFuture<Void> ended() {
        return ended;
    }

    /**
     * Completes once the lease has ended and, if it was released, once that release has had its
     * outcome; if it was lost, once its holder has been told (a holder hears of its loss before the
     * lock is freed for others) and the lock's release for others was sent. A clean-up of the lease's
     * owner (the late reply of an acquire whose retry produced this lease) waits for it: sent earlier,
     * it could delete the lock just before the holder's own release runs, which would then find the
     * lock gone and report a false loss. {@code close()} waits for it too.
     */
    CompletableFuture<Void> settled() {
        return settled;
    }

    /**
     * Why a release that failed settled unconfirmed: Redis out of reach, or a backend that answered but
     * could not confirm it (a quorum without a majority's confirmation); the message names the cause.
     */
    private static String whyUnanswered(Throwable cause, Predicate<Throwable> isTransient) {
        return isTransient.test(cause)
                ? "Redis could not be reached until the release gave up"
                : "the backend could not confirm the release";
    }

    /**
     * The release had Redis's answer ({@code reply}, see {@link ReleaseReply}), or none within its
     * budget ({@code error}): decides how the lease ended, ends it so, and settles it; returns the
     * final status. {@code isTransient} tells a failure to reach Redis from one the backend answered
     * with (a quorum that could not confirm the release, say), for the message. {@code redisMayHaveExpiredBy} tells whether the lock's TTL in Redis may have run
     * out by a given moment, {@code held} how long the lease was held.
     *
     * <p>The work under the lease ended in time (the release was asked while it was valid); what is
     * left to decide is whether the lock stayed its own until then:
     * <ul>
     *   <li>deleted: {@code RELEASED}, confirmed;</li>
     *   <li>found gone or another owner's by an answer that came while the lease was still valid:
     *       Redis cannot have let it expire yet, so it was taken while the work ran: {@code LOST},
     *       {@code STOLEN};</li>
     *   <li>such an answer that came after the validity ran out, or an inconclusive one, or none
     *       within the release's budget: {@code RELEASED}, unconfirmed (the lock may have expired on
     *       its own after the work ended; nothing tells).</li>
     * </ul>
     */
    Status releaseAnswered(
            @Nullable ReleaseReply reply,
            @Nullable Throwable error,
            Predicate<Throwable> isTransient,
            LongPredicate redisMayHaveExpiredBy,
            Duration held) {
        if (error != null) {
            Throwable cause = Futures.unwrap(error);
            released(new ReleaseUnconfirmedException(name, whyUnanswered(cause, isTransient), cause), held);
        } else if (reply.deleted()) {
            released(null, held);
        } else if (reply.inconclusive()) {
            released(
                    new ReleaseUnconfirmedException(
                            name,
                            "an attempt of the release got no answer, and the next found the lock held by another"
                                    + " owner, who may have taken it after that attempt deleted it",
                            null),
                    held);
        } else if (redisMayHaveExpiredBy.test(reply.answeredNanos())) {
            // (What Redis holds, not the max-hold bound: a lock extended past that bound cannot have
            // expired in Redis before its TTL, so an answer before it proves a theft all the same.)
            released(
                    new ReleaseUnconfirmedException(
                            name,
                            "Redis answered only after the lease's validity had run out, and found the lock "
                                    + (reply.code() == ReleaseReply.ABSENT ? "gone" : "held by another owner")
                                    + "; it may have expired on its own after the work ended",
                            null),
                    held);
        } else {
            LeaseLoss stolen = new LeaseLoss(name, token, LeaseLoss.Reason.STOLEN, Instant.now(), null);
            if (lost(stolen, true)) {
                tellLoss(stolen, () -> {}); // someone else's lock, or none: nothing to free
                return status();
            }
        }
        releaseSettled(); // after the release's outcome, whatever it was: see settled()
        return status();
    }

    /** The release had its outcome ({@link #released}): the lease is ended and settled. */
    private void releaseSettled() {
        ended.complete(null);
        settled.complete(null);
    }

    /**
     * Tells the holder of {@code loss}, which {@link #lost} has just made final: a {@code callLocked}
     * thread is interrupted at once (here); then the watchers and {@link #lostFuture()} are told, then
     * {@code free} runs (the lock's release for others), then the lease is settled: on the callback
     * executor for a lease handed to a caller; at once for one handed to nobody, which has no holder to
     * tell and need not wait for that executor.
     */
    void tellLoss(LeaseLoss loss, Runnable free) {
        ended.complete(null);
        signal.declare(loss);
        AtomicBoolean once = new AtomicBoolean();
        Runnable tellThenFree = () -> {
            if (!once.compareAndSet(false, true)) {
                return;
            }
            untold = null;
            signal.tell(loss);
            free.run();
            settled.complete(null); // only now may a clean-up of this owner free the lock for others
        };
        if (announced()) {
            untold = tellThenFree;
            callbacks.execute(tellThenFree);
        } else {
            tellThenFree.run();
        }
    }

    /**
     * For {@code close()} near the end of its timeout: if the holder has still not been told of its
     * loss because the callback executor has not run that task (a user's single-thread executor whose
     * thread is running the very {@code close()}, or is blocked), tells it here, on the closing
     * thread, and frees the lock; otherwise does nothing. Without this the lock stays in Redis for a
     * lease time although Redis is reachable.
     */
    void tellNowIfUntold() {
        Runnable pending = untold;
        if (pending != null) {
            pending.run();
        }
    }

    @Override
    public String toString() {
        return "LeaseLifecycle{" + name + ", " + status + "}";
    }
}
