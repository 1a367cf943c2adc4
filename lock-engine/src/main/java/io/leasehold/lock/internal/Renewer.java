package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The watchdog (G5): renews every auto-renewing lease of one client at a third of its lease, in
 * batched script calls of one cluster slot each, each as large as the {@link RenewalBatchSizer}
 * allows: sized by what the calls cost the server, measured, so that no call holds a shared Redis up
 * for long. Renewal never extends a lease past its max-hold bound, and nothing is sent for a lease
 * past its loss check. The same calls keep fair waiters' places in their locks' wait queues alive
 * ({@link WaiterPlace}, every {@link GrantOrder#WAITER_RENEW_MS} ms): places and leases of one slot
 * share calls.
 *
 * <p><b>When</b> a lease is renewed ({@link RenewalSchedule} keeps the times; see there how leases
 * share calls): it is due a third of its lease after its acquisition or last renewal was sent; sooner
 * while a shorter lease may be in force (an extend to a shorter time was sent: a third of the
 * validity then left, see {@link #validityLowered}); a failed renewal is retried after
 * {@link Validity#renewRetryNanos}, or sooner under such an extend. A lease due is renewed at that
 * time or, riding along with others of its slot, up to half a renewal period before; never later
 * (give or take the timer's own delay).
 *
 * <p><b>Cost</b>, for n leases: {@link #add}, {@link #remove} and {@link #validityLowered} are
 * O(log n); a renewal round costs O(log n) per lease it renews, and scans nothing else.
 *
 * <p><b>Threads</b>: rounds run on the engine's timer thread, replies are handled where they arrive;
 * neither runs user code (G13).
 *
 * <p>This class is threadsafe; its bookkeeping, one {@link Entry} per lease, is guarded by {@link #lock}.
 */
final class Renewer {

    /**
     * How many leases one renew call carries: as many as the server runs within a budget, by what the
     * calls cost it, measured (renew.lua reports its own run time). A fixed 500 ran 1.7-3.5 ms and
     * longer on the bench's two-core machine, while every other client of the Redis waited.
     */
    private final RenewalBatchSizer batchSizer = new RenewalBatchSizer();
    /** How soon a lease found past its loss check is looked at again, in case a late-confirmed extend moved the check. */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How often a waiter's place is renewed: a third of its waiter lease. */
    private static final long PLACE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(GrantOrder.WAITER_RENEW_MS);

    private final Engine engine;
    private final Object lock = new Object();
    /** Every lease being renewed: scheduled, or with its renewal in flight, or past its last renewal (max hold). */
    private final Map<DefaultLease, Entry> entries = new HashMap<>();

    /** Leases and waiters' places, due for renewal; a cancelled place is dropped when it comes due. */
    private final RenewalSchedule<Renewable> schedule = new RenewalSchedule<>(Renewable::slot);

    private EngineTimer.@Nullable Timeout tick;
    private long tickAtNanos;

    Renewer(Engine engine) {
        this.engine = engine;
    }

    /**
     * Starts renewing {@code lease}, first a third of its lease after its acquisition was sent, or a
     * third into the validity left if its first TTL was shorter (a grant taken from its message). O(log n).
     */
    void add(DefaultLease lease) {
        synchronized (lock) {
            Entry entry = new Entry(lease);
            entries.put(lease, entry);
            scheduleLocked(
                    entry,
                    noLaterThanInForce(lease, lease.acquiredNanos() + Validity.renewIntervalNanos(lease.leaseMs)));
            armTickLocked();
        }
    }

    /**
     * Starts keeping {@code place} (a fair waiter's place in its lock's wait queue): renewed a period
     * after its attempt was sent, and every period after that until it is cancelled. O(log n).
     */
    void keepPlace(WaiterPlace place) {
        synchronized (lock) {
            if (place.cancelled()) {
                return;
            }
            schedulePlaceLocked(place, place.sentNanos + PLACE_PERIOD_NANOS);
            armTickLocked();
        }
    }

    /** Stops renewing {@code lease} (it ended); a renewal of it in flight is answered but not followed by another. O(log n). */
    void remove(DefaultLease lease) {
        synchronized (lock) {
            Entry entry = entries.remove(lease);
            if (entry != null) {
                schedule.unschedule(entry);
            }
        }
    }

    /**
     * The lease's validity may have dropped (an extend to a shorter time was sent): renew no later
     * than a third of what is left, so that it never runs out unrenewed. A renewal already in flight
     * does not help, since the extend may run after it: its reply schedules the next one from the
     * validity then in force.
     */
    void validityLowered(DefaultLease lease) {
        synchronized (lock) {
            Entry entry = entries.get(lease);
            if (entry == null || entry.holdBounded || entry.inFlight) {
                return;
            }
            long due = thirdOfValidityLeft(lease);
            OptionalLong scheduled = schedule.dueAt(entry);
            if (scheduled.isEmpty() || due - scheduled.getAsLong() < 0) {
                scheduleLocked(entry, due);
                armTickLocked();
            }
        }
    }

    /**
     * {@code due}, or a third of the validity left if sooner while a TTL shorter than the lease time
     * may be in force (an extend to a shorter time, or a grant taken from its message): such a TTL
     * must never run out unrenewed.
     */
    private long noLaterThanInForce(DefaultLease lease, long due) {
        return lease.shorterLeaseInForce() ? Math.min(due, thirdOfValidityLeft(lease)) : due;
    }

    /** A third of the validity left from now: the lease's lease time, or a shorter extend's, renewed at a third. */
    private long thirdOfValidityLeft(DefaultLease lease) {
        return engine.now() + Math.max(0, lease.validityLeftNanos()) / 3;
    }

    /**
     * Redis confirmed a TTL command of {@code lease} that is not the watchdog's (an extend): the
     * failure of a renewal before it is over, so it no longer explains a later run-out (see
     * {@link RenewalReport#lastFailure}).
     */
    void confirmedElsewhere(DefaultLease lease) {
        synchronized (lock) {
            Entry entry = entries.get(lease);
            if (entry != null) {
                entry.lastFailure = null;
            }
        }
    }

    /** Leases being renewed right now. */
    int size() {
        synchronized (lock) {
            return entries.size();
        }
    }

    /** Leases and waiters' places in the renewal schedule (leases with a renewal in flight are not). */
    int scheduled() {
        synchronized (lock) {
            return schedule.size();
        }
    }

    /** Puts {@code entry}'s lease in the schedule, due at {@code due}, eligible to ride along half a renewal period before. */
    private void scheduleLocked(Entry entry, long due) {
        schedule.schedule(entry, due, due - Validity.renewIntervalNanos(entry.lease.leaseMs) / 2);
    }

    /** Puts {@code place} in the schedule, due at {@code due}, eligible to ride along half a period before. */
    private void schedulePlaceLocked(WaiterPlace place, long due) {
        schedule.schedule(place, due, due - PLACE_PERIOD_NANOS / 2);
    }

    /**
     * What the watchdog knows of {@code lease}'s renewal right now, to tell why it is lost: see
     * {@link RenewalReport}; {@link RenewalReport#NONE} for a lease it does not renew.
     */
    RenewalReport report(DefaultLease lease) {
        synchronized (lock) {
            Entry entry = entries.get(lease);
            return entry == null
                    ? RenewalReport.NONE
                    : new RenewalReport(entry.holdBounded, entry.lastFailure, entry.inFlight, entry.sentNanos);
        }
    }

    /** Makes sure a round runs when the earliest lease is due (a round that finds nothing due simply re-arms). */
    private void armTickLocked() {
        OptionalLong next = schedule.nextDue();
        if (next.isEmpty() || (tick != null && next.getAsLong() - tickAtNanos >= 0)) {
            return;
        }
        if (tick != null) {
            tick.cancel();
        }
        tickAtNanos = next.getAsLong();
        tick = engine.timer.scheduleAt(this::runTick, tickAtNanos);
    }

    private void runTick() {
        List<List<Renewable>> batches;
        synchronized (lock) {
            tick = null;
            long now = engine.now();
            batches = schedule.takeDue(now, batchSizer.nextBatchSize());
            for (List<Renewable> batch : batches) {
                batch.removeIf(due -> {
                    if (due instanceof WaiterPlace) {
                        return ((WaiterPlace) due).cancelled(); // (the waiter moved on: dropped here)
                    }
                    Entry entry = (Entry) due;
                    if (entry.lease.heldBeforeLossCheck()) {
                        entry.inFlight = true;
                        return false;
                    }
                    // Past its loss check, as after the process stalled: the check ends it (EXPIRED), and
                    // nothing is sent. Looked at again in case a late-confirmed extend moved the check.
                    scheduleLocked(entry, now + RECHECK_NANOS);
                    return true;
                });
            }
        }
        AtomicBoolean firstReply = new AtomicBoolean();
        for (List<Renewable> batch : batches) {
            if (!batch.isEmpty()) {
                renew(batch, firstReply);
            }
        }
        synchronized (lock) {
            armTickLocked();
        }
    }

    /**
     * Sends one renew call for {@code batch}: its leases, and its places after them. {@code firstReply}
     * is shared by the calls of one round: see {@link #serverMicros}.
     */
    private void renew(List<Renewable> batch, AtomicBoolean firstReply) {
        long sent = engine.now();
        List<Entry> renewing = new ArrayList<>(batch.size());
        List<WaiterPlace> places = new ArrayList<>();
        List<Long> sequences = new ArrayList<>(batch.size());
        List<Long> leaseMs = new ArrayList<>(batch.size());
        List<String> keys = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(1 + batch.size() * 3);
        List<Long> replyDeadlines = new ArrayList<>(batch.size());
        synchronized (lock) {
            for (Renewable due : batch) {
                if (due instanceof WaiterPlace) {
                    // The next renewal is due a period after this one, whatever becomes of it: a reply
                    // that is slow or lost must not let the place lapse (renewing it twice is harmless).
                    WaiterPlace place = (WaiterPlace) due;
                    places.add(place);
                    schedulePlaceLocked(place, sent + PLACE_PERIOD_NANOS);
                    continue;
                }
                Entry entry = (Entry) due;
                DefaultLease lease = entry.lease;
                long ms = lease.leaseMs;
                if (lease.maxHoldDeadlineNanos != Long.MAX_VALUE) {
                    long holdLeftMs = TimeUnit.NANOSECONDS.toMillis(lease.maxHoldDeadlineNanos - sent);
                    if (holdLeftMs < ms) {
                        entry.holdBounded = true; // the last renewal: the lease ends at its max-hold bound
                        ms = holdLeftMs;
                    }
                }
                if (ms <= 0) {
                    entry.inFlight = false; // at its max-hold bound: never renewed again
                    continue;
                }
                long seq = lease.renewalSent(sent, ms);
                entry.sentNanos = sent;
                replyDeadlines.add(lease.renewalReplyDeadline(sent));
                renewing.add(entry);
                sequences.add(seq);
                leaseMs.add(ms);
                keys.add(lease.lockKey);
            }
        }
        if (renewing.isEmpty() && places.isEmpty()) {
            return;
        }
        // renew.lua's arguments: the lease time once when all share it (most calls), else one per
        // lease; ':<p>' after it when the call keeps p places
        boolean shared = leaseMs.stream().distinct().count() == 1;
        args.add((shared ? Long.toString(leaseMs.get(0)) : "") + (places.isEmpty() ? "" : ":" + places.size()));
        for (int i = 0; i < renewing.size(); i++) {
            DefaultLease lease = renewing.get(i).lease;
            args.add(lease.knownLockValue());
            args.add(lease.lockValue(sequences.get(i)));
            if (!shared) {
                args.add(Long.toString(leaseMs.get(i)));
            }
        }
        for (WaiterPlace place : places) {
            keys.addAll(place.keys);
            args.add(place.owner);
            args.add(Long.toString(GrantOrder.WAITER_LEASE_MS));
        }
        // Each renewal counts from when the backend writes the call (after any wait for a connection),
        // which is before Redis can run it.
        AtomicLong written = new AtomicLong(sent);
        Runnable writing = () -> {
            long now = engine.now();
            written.set(now);
            for (int i = 0; i < renewing.size(); i++) {
                renewing.get(i).lease.renewalWritten(sequences.get(i), now);
            }
        };
        CompletableFuture<Object> call = engine.call(EngineScripts.RENEW, keys, args, null, writing);
        // A lease whose reply is missing halfway to its loss check goes UNCERTAIN then (see OverdueRenewals).
        OverdueRenewals overdue = OverdueRenewals.watch(
                engine,
                call,
                sent,
                renewing.stream().map(entry -> entry.lease).toList(),
                replyDeadlines.stream().mapToLong(Long::longValue).toArray());
        Futures.whenDone(call, "the reply of a renew call", null, (reply, error) -> {
            overdue.cancel();
            List<?> codes = null;
            List<?> kept = null;
            Throwable failure = error == null ? null : Futures.unwrap(error);
            if (failure == null) {
                try {
                    List<?> parts = Replies.asList(reply, "renew");
                    if (parts.size() != (places.isEmpty() ? 2 : 3)) {
                        throw Replies.unexpected(reply, "renew (codes and µs" + (places.isEmpty() ? ")" : ", places)"));
                    }
                    codes = Replies.asList(parts.get(0), "renew");
                    if (codes.size() != renewing.size()) {
                        throw Replies.unexpected(reply, "renew of " + renewing.size() + " leases");
                    }
                    if (!places.isEmpty()) {
                        kept = Replies.asList(parts.get(2), "renew");
                        if (kept.size() != places.size()) {
                            throw Replies.unexpected(reply, "renew of " + places.size() + " places");
                        }
                    }
                    long micros = Replies.asLong(parts.get(1), "renew");
                    batchSizer.record(renewing.size() + places.size(), serverMicros(micros, written.get(), firstReply));
                } catch (RuntimeException badReply) {
                    failure = badReply;
                }
            }
            placesAnswered(places, kept, failure, written.get());
            for (int i = 0; i < renewing.size(); i++) {
                Entry entry = renewing.get(i);
                long code;
                try {
                    code = failure != null ? 0 : Replies.asLong(codes.get(i), "renew");
                } catch (RuntimeException badElement) {
                    renewalFailed(entry, sequences.get(i), badElement); // one bad element fails its lease only
                    continue;
                }
                if (failure != null) {
                    renewalFailed(entry, sequences.get(i), failure);
                } else {
                    renewalAnswered(entry, code, written.get(), sequences.get(i));
                }
            }
            synchronized (lock) {
                armTickLocked();
            }
        });
    }

    /**
     * Tells each of {@code places} (not cancelled meanwhile) what its renewal, written at {@code sent},
     * found: kept (the holder's token in {@code kept}), or lost (0 there, or the call's {@code failure}).
     */
    private void placesAnswered(
            List<WaiterPlace> places, @Nullable List<?> kept, @Nullable Throwable failure, long sent) {
        long roundTrip = engine.now() - sent;
        for (int i = 0; i < places.size(); i++) {
            WaiterPlace place = places.get(i);
            if (place.cancelled()) {
                continue;
            }
            long token = 0;
            Throwable why = failure;
            if (why == null) {
                try {
                    token = Replies.asLong(kept.get(i), "renew (place)");
                } catch (RuntimeException badElement) {
                    why = badElement; // one bad element loses its place only
                }
            }
            if (token > 0) {
                place.listener.kept(place, sent, token, roundTrip);
            } else {
                place.listener.lost(place, why);
            }
        }
    }

    /**
     * The server time of a renew call for the {@link RenewalBatchSizer}: what the script measured, or,
     * where the server's clock stands still during a script (it said 0: Redis 7.2 and 7.3), the round
     * trip of the first call of the round to be answered, an upper bound of its server time that
     * counts no other call of the round (they were all sent at once, so a later reply also waited
     * for the calls run before it); 0, no reading, for the other calls of such a round.
     */
    private long serverMicros(long scriptMicros, long sent, AtomicBoolean firstReply) {
        if (scriptMicros > 0) {
            return scriptMicros;
        }
        return firstReply.compareAndSet(false, true) ? TimeUnit.NANOSECONDS.toMicros(engine.now() - sent) : 0;
    }

    /**
     * Reply codes of renew.lua: 1 renewed, 2 superseded (an extend numbered after it ran first),
     * 0 gone, -1 another owner's, -2 not a Leasehold lock (a foreign value); and 3, renewed partially,
     * from a backend that confirms partially (see {@link DefaultLease#confirmedPartially}).
     */
    private void renewalAnswered(Entry entry, long code, long sent, long seq) {
        DefaultLease lease = entry.lease;
        boolean partially = lease.confirmedPartially(code);
        if (code == 1 || code == DefaultLease.TTL_SUPERSEDED || partially) {
            if (code == 1 || partially) {
                lease.renewalConfirmed(seq, partially);
            } else {
                lease.renewalSuperseded(seq); // not a renewal, but proof the lock is still ours
            }
            synchronized (lock) {
                entry.inFlight = false;
                entry.lastFailure = null;
                if (!entry.holdBounded && isCurrent(entry)) {
                    scheduleLocked(entry, nextDueAfterRenewal(lease, sent));
                }
            }
            return;
        }
        synchronized (lock) {
            entry.inFlight = false;
        }
        lease.declareLost(code == 0 ? lease.goneReason() : LeaseLoss.Reason.STOLEN, null);
    }

    /**
     * When a lease whose renewal sent at {@code sent} was answered must be renewed next: a third of
     * its lease after that, or sooner, a third of the validity left, if a shorter lease may be in force
     * (an extend to a shorter time sent meanwhile).
     */
    private long nextDueAfterRenewal(DefaultLease lease, long sent) {
        return noLaterThanInForce(lease, sent + Validity.renewIntervalNanos(lease.leaseMs));
    }

    /**
     * A renewal failed or timed out: retried after {@link Validity#renewRetryNanos}, or sooner if a
     * shorter lease may be in force (an extend to a shorter time sent while the renewal was in flight
     * must not run out before the retry). Also the last renewal before the max-hold bound is retried:
     * its retry is bounded again.
     */
    private void renewalFailed(Entry entry, long seq, Throwable failure) {
        DefaultLease lease = entry.lease;
        synchronized (lock) {
            entry.inFlight = false;
            entry.lastFailure = failure;
            if (isCurrent(entry)) {
                long due = engine.now() + Validity.renewRetryNanos(lease.leaseMs);
                scheduleLocked(entry, noLaterThanInForce(lease, due));
            }
        }
        lease.renewalFailed(seq, failure);
    }

    /** Stops all renewal (client close). */
    void stop() {
        synchronized (lock) {
            entries.clear();
            schedule.clear();
            if (tick != null) {
                tick.cancel();
                tick = null;
            }
        }
    }

    /** Whether {@code entry} is still its lease's (the lease was not removed, or removed and added again, meanwhile). */
    private boolean isCurrent(Entry entry) {
        return entries.get(entry.lease) == entry;
    }

    /** What the watchdog renews: a lease ({@link Entry}) or a waiter's place ({@link WaiterPlace}). */
    sealed interface Renewable permits Entry, WaiterPlace {

        /** The cluster slot of its keys: a renew call carries one slot's. */
        int slot();
    }

    /** The watchdog's own record of one lease it renews; guarded by {@link #lock}. */
    private static final class Entry implements Renewable {

        final DefaultLease lease;
        /** A renewal of it is in flight (sent, not answered yet). */
        boolean inFlight;
        /** Its last renewal was sent, bounded by its max-hold deadline: it is never renewed again. */
        boolean holdBounded;
        /** When the renewal in flight was sent (valid while {@link #inFlight}). */
        long sentNanos;
        /** The last renewal's failure; null once a renewal is confirmed. */
        @Nullable
        Throwable lastFailure;

        Entry(DefaultLease lease) {
            this.lease = lease;
        }

        @Override
        public int slot() {
            return lease.slot;
        }
    }
}
