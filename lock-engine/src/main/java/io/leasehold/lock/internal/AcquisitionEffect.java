package io.leasehold.lock.internal;

import io.leasehold.lock.LockException;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What {@link AcquisitionMachine#on} asks {@link Acquisition} to do once it has left the machine's
 * monitor: every call to the backend, the wait queue, the client or the caller is one of these, run
 * in the order given.
 */
sealed interface AcquisitionEffect {

    /**
     * Sends acquire.lua for {@code round}; {@code settled} completes once its reply has been acted on.
     * {@code patient} once an attempt of this wait went unanswered within its timeout, or when the
     * wait ends before a fair attempt's short first wait would: this one waits the whole command
     * timeout (see {@link GrantOrder#attempt}).
     */
    record Send(AcquireRound round, CompletableFuture<Void> settled, boolean patient) implements AcquisitionEffect {}

    /**
     * Joins the name's local queue (the first waiter subscribes its release channel). Then, unless the
     * acquisition ended meanwhile (it then leaves again: its own leave may have come first), it wakes
     * itself if {@code wakeAfter}, or if a lingering subscription saw a release since
     * {@code lastSentNanos} (the waiter then asks even under a local lease).
     */
    record JoinQueue(long lastSentNanos, boolean wakeAfter, boolean evenUnderLocalLease) implements AcquisitionEffect {}

    /** Wakes this waiter if it heads its queue ({@code evenUnderLocalLease}: ask Redis even while a local lease holds the lock). */
    record Wake(boolean evenUnderLocalLease) implements AcquisitionEffect {}

    /** Have the watchdog keep {@code place} alive (a fair waiter's place in Redis's queue, see {@link WaiterPlace}). */
    record KeepPlace(WaiterPlace place) implements AcquisitionEffect {}

    /**
     * The claimed handoff: the queue hands it to the releasing lease (see {@link Handoff}).
     * {@code releaseSettled} is to be completed once that release has settled: the round's clean-up
     * waits for it.
     */
    record HandoffClaimed(AcquireRound round, int streak, boolean mayYield, CompletableFuture<Void> releaseSettled)
            implements AcquisitionEffect {}

    /** Releases {@code round}'s owner, after {@code after} completes if not null (a clean-up of something no caller holds). */
    record ReleaseOwner(AcquireRound round, @Nullable CompletableFuture<?> after) implements AcquisitionEffect {}

    /** Registers {@code lease} with the client (renewal, loss deadline) and hands it out to the caller. */
    record StartLease(DefaultLease lease) implements AcquisitionEffect {}

    /**
     * Makes the lease that a grant message handed {@code round} (fencing token {@code token}), valid
     * for the grant window from {@code sentNanos}, the send of the round's last contended attempt
     * (the grant ran after it), and feeds it back as {@link AcquisitionEvent.Granted}: the message
     * stands for the reply of an attempt (see {@link AcquisitionMachine}'s grant from a message).
     */
    record TakeGrant(AcquireRound round, long token, long sentNanos) implements AcquisitionEffect {}

    /** Completes the caller's future with {@code lease} (released at once if the caller gave up in the last instant). */
    record GiveLease(DefaultLease lease) implements AcquisitionEffect {}

    /** Releases a lease that is not handed out; then, with {@code thenGoOn}, the wait goes on (or ends, if the caller cancelled meanwhile). */
    record DropLease(DefaultLease lease, boolean thenGoOn) implements AcquisitionEffect {}

    /**
     * Ends the acquisition's bookkeeping: registers the clean-up of {@code last} (if {@code cleanUp}),
     * after {@code settledFirst}; the client stops tracking the acquisition; it leaves its queue if it
     * joined; {@code finished()} completes.
     */
    record Finish(
            boolean cleanUp, AcquireRound last, @Nullable CompletableFuture<?> settledFirst, boolean queued)
            implements AcquisitionEffect {}

    /**
     * Completes the caller's future with {@code failure}; with {@code afterCleanUp}, once the clean-up
     * registered by the {@link Finish} before it has been answered (see {@code Acquisition#fail}).
     */
    record Fail(Throwable failure, boolean afterCleanUp) implements AcquisitionEffect {}

    /** Reports the acquisition failed to the listeners. */
    record ReportFailed(LockException failure) implements AcquisitionEffect {}

    /** Reports the acquisition cancelled to the listeners. */
    record ReportCancelled() implements AcquisitionEffect {}
}
