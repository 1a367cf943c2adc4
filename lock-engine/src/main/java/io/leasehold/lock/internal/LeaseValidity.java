package io.leasehold.lock.internal;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A lease's local validity deadline (G4), kept honest under commands whose outcome is not known.
 *
 * <p>Every command that sets the lock's TTL (each renewal, each extend) is {@linkplain #begin begun}
 * with its send time and lease, which gives its <em>cap</em>: {@code sent + lease - drift}, the
 * earliest moment at which the TTL it sets can run out; and a sequence number, which it carries to
 * Redis. Redis applies such a command only if its number is higher than any applied before (see
 * {@code renew.lua}), so the TTL in force is always that of the highest-numbered command applied,
 * whatever order the commands reached Redis in. Hence:
 * <ul>
 *   <li>a {@linkplain #confirmed confirmed} command's cap holds, except that every command numbered
 *       higher that is still in flight, or whose outcome is unknown ({@linkplain #failed failed}:
 *       Redis may have run it, or may still), may be applied after it, so its cap bounds the
 *       validity too;</li>
 *   <li>a command numbered lower than the latest confirmed one can never be applied any more, and
 *       one that Redis {@linkplain #superseded refused as superseded} never was.</li>
 * </ul>
 * So the deadline is the minimum of the highest confirmed cap and the caps of every unresolved
 * command numbered above it. An extend to a shorter time lowers the deadline from the moment it is
 * sent, and keeps it lowered if its reply is lost; a later confirmed renewal lifts it again.
 *
 * <p>This class is threadsafe.
 */
final class LeaseValidity {

    /** What one TTL-setting command may leave in force: its deadline, and the lease it set. */
    private record Cap(long until, long leaseMs) {}

    private long confirmedSeq;
    private Cap confirmedCap;
    /** Whether command {@link #confirmedSeq} was confirmed only partially (see {@link #confirmed(long, boolean)}). */
    private boolean confirmedPartially;

    private long nextSeq = 1;
    /** Commands begun after {@link #confirmedSeq} whose outcome is not confirmed: sequence → cap. */
    private final TreeMap<Long, Cap> unresolved = new TreeMap<>();

    /** Validity of an acquisition confirmed by Redis: it was sent at {@code sentNanos} with a lease of {@code leaseMs}. */
    LeaseValidity(long sentNanos, long leaseMs) {
        this.confirmedCap = new Cap(Validity.validUntil(sentNanos, leaseMs), leaseMs);
    }

    /** A TTL-setting command is about to be sent; returns the sequence number it must carry to Redis. */
    synchronized long begin(long sentNanos, long leaseMs) {
        long seq = nextSeq++;
        unresolved.put(seq, new Cap(Validity.validUntil(sentNanos, leaseMs), leaseMs));
        return seq;
    }

    /**
     * Command {@code seq} is being written at {@code writtenNanos}, later than it was begun (the backend
     * waited for a connection): Redis cannot run it earlier, so its cap moves to that moment. Only
     * ever later, and only while its outcome is unresolved.
     */
    synchronized void written(long seq, long writtenNanos) {
        Cap cap = unresolved.get(seq);
        if (cap != null) {
            long until = Validity.validUntil(writtenNanos, cap.leaseMs());
            if (until - cap.until() > 0) {
                unresolved.put(seq, new Cap(until, cap.leaseMs()));
            }
        }
    }

    /**
     * Redis confirmed command {@code seq}: it was applied and set its TTL, everywhere or, when
     * {@code partially}, only on enough of a backend's servers (see
     * {@link io.leasehold.lock.spi.LockBackend#confirmsPartially}); whether the confirmation in force
     * is partial follows the highest-numbered confirmed command, whatever order the replies came in.
     */
    synchronized void confirmed(long seq, boolean partially) {
        Cap cap = unresolved.remove(seq);
        if (cap == null || seq < confirmedSeq) {
            return; // a higher-numbered command's confirmation came first: its TTL is the one in force
        }
        confirmedSeq = seq;
        confirmedCap = cap;
        confirmedPartially = partially;
        // Lower-numbered commands can no longer be applied: Redis refuses them from now on.
        Iterator<Map.Entry<Long, Cap>> earlier =
                unresolved.headMap(seq).entrySet().iterator();
        while (earlier.hasNext()) {
            earlier.next();
            earlier.remove();
        }
    }

    /**
     * Command {@code seq} failed or timed out: Redis may or may not have run it. Its cap stays in
     * force until a command sent after it is confirmed.
     */
    synchronized void failed(long seq) {
        // The cap simply stays among the unresolved ones; confirmed() drops it once superseded.
    }

    /** Redis refused command {@code seq} as superseded (a higher-numbered one was applied): its cap never applies. */
    synchronized void superseded(long seq) {
        unresolved.remove(seq);
    }

    /**
     * The highest-numbered command Redis confirmed to have applied, or 0 if none: the number the lock
     * value recorded then (see {@code renew.lua}).
     */
    synchronized long confirmedSeq() {
        return confirmedSeq;
    }

    /**
     * Whether the highest-numbered command Redis confirmed, whose TTL is in force, was confirmed only
     * partially: the lease stays {@code UNCERTAIN} until a later one is confirmed everywhere.
     */
    synchronized boolean partialInForce() {
        return confirmedPartially;
    }

    /** The local validity deadline on the engine's ticker: never later than what Redis holds. */
    synchronized long until() {
        return inForce().until();
    }

    /**
     * The lease time (ms) of the command whose cap is the deadline now: what the loss check's lead
     * and the renewal's timing must be measured against (an extend to 100 ms of a 30 s lease leaves
     * 100 ms in force, not 30 s).
     */
    synchronized long leaseMsInForce() {
        return inForce().leaseMs();
    }

    private Cap inForce() {
        Cap earliest = confirmedCap;
        for (Cap cap : unresolved.tailMap(confirmedSeq, false).values()) {
            if (cap.until() - earliest.until() < 0) {
                earliest = cap;
            }
        }
        return earliest;
    }
}
