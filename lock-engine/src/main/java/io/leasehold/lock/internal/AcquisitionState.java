package io.leasehold.lock.internal;

import org.jspecify.annotations.Nullable;

/**
 * Where one {@link Acquisition} stands; {@link AcquisitionMachine} moves it from state to state.
 *
 * <pre>
 *  Starting ──▶ Attempting ──granted──▶ HandingOut ──given──▶ Done
 *     │            ▲  │                     │ (ran out: new round)
 *     │            │  ├─contended──▶ Queued ◀┘
 *     │            │  └─transient─▶ BackingOff
 *     └─behind local waiters──▶ Queued        (a wake-up, an alarm or a handoff: Attempting again)
 *  any state but Done ──deadline, failure, cancel, close──▶ Done
 * </pre>
 *
 * <p>A state owns the alarm it armed, if any: leaving the state cancels it, and an alarm that fires
 * as its state is left is ignored (see {@link AcquisitionMachine.Alarm}).
 */
sealed interface AcquisitionState {

    /** Built; {@code start()} decides between an attempt and queueing behind this client's waiters. */
    record Starting() implements AcquisitionState {}

    /**
     * An attempt (or a handoff to this waiter) of the current round is in flight: its reply decides.
     *
     * @param wakePending    a wake-up came meanwhile: if the reply is contended, ask again at once (a
     *                       release raced the attempt). Acting on the wake-up before the reply would
     *                       send a second acquire with the same owner, which (being idempotent) also
     *                       succeeds, and undoing that duplicate would delete the caller's own lock.
     * @param grantSeenNanos when a grant to another waiter was seen meanwhile (its message may beat
     *                       this attempt's reply), or {@link #NO_GRANT_SEEN}: if the reply is
     *                       contended, ask again once that grant's window has passed at the latest
     */
    record Attempting(boolean wakePending, long grantSeenNanos) implements AcquisitionState {

        static final long NO_GRANT_SEEN = Long.MIN_VALUE;

        Attempting(boolean wakePending) {
            this(wakePending, NO_GRANT_SEEN);
        }

        /** This state with a wake-up pending, keeping what else it saw. */
        Attempting withWakePending() {
            return new Attempting(true, grantSeenNanos);
        }
    }

    /** Nothing in flight: the acquisition waits for a wake-up, an alarm or a handoff. */
    sealed interface Waiting extends AcquisitionState {

        /** The alarm this state armed, or null. */
        AcquisitionMachine.@Nullable Alarm alarm();
    }

    /**
     * Contended (or queued behind this client's waiters): waits for a release message, for becoming
     * the head of the local queue, or for its alarm (the holder's TTL: the fallback that also keeps a
     * waiter going while its subscription is slow or failing). A handoff that yielded to the head of
     * Redis's queue leaves its waiter here too.
     *
     * @param place a fair waiter's place in Redis's queue, which the watchdog keeps alive while this
     *              state lasts (leaving it for any state but a {@code Queued} with the same place
     *              cancels it), and which tells it when the place is gone or the lock free; or null
     */
    record Queued(
            AcquisitionMachine.@Nullable Alarm alarm,
            @Nullable WaiterPlace place) implements Waiting {

        Queued(AcquisitionMachine.@Nullable Alarm alarm) {
            this(alarm, null);
        }
    }

    /** The last attempt failed transiently: tries again when the alarm (the back-off) fires. */
    record BackingOff(AcquisitionMachine.Alarm alarm) implements Waiting {}

    /** The current round got {@code lease}: on its way to the caller, who may still turn it down. */
    record HandingOut(DefaultLease lease) implements AcquisitionState {}

    /** Over: handed out, failed, timed out, cancelled or closed. */
    record Done() implements AcquisitionState {}
}
