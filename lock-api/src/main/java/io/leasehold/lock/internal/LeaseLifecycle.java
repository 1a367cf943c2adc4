package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.ReleaseUnconfirmedException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
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
    private final Object lock = new Object();
    private volatile Status status = Held.CERTAIN; // written under lock
    private boolean announced; // guarded by lock

    LeaseLifecycle(String name, long token, Listeners listeners) {
        this.name = name;
        this.token = token;
        this.listeners = listeners;
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

    @Override
    public String toString() {
        return "LeaseLifecycle{" + name + ", " + status + "}";
    }
}
