package io.leasehold.lock.internal;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A lease's local validity deadline (G4), kept honest under commands whose outcome is not known.
 *
 * <p>Every command that sets the lock's TTL (the acquire, each renewal, each extend) is
 * {@linkplain #begin begun} with its send time and lease, which gives its <em>cap</em>:
 * {@code sent + lease - drift}, the earliest moment at which the TTL it sets can run out. Redis keeps
 * the TTL of whichever such command it ran last. Commands on a key run in the order they were sent
 * (one connection, or one after another), so:
 * <ul>
 *   <li>a {@linkplain #confirmed confirmed} command's cap holds, unless a command sent after it may
 *       have run after it: every command sent later that is still in flight, or whose outcome is
 *       unknown ({@linkplain #failed failed}: Redis may have run it), may be the last one run, so
 *       its cap bounds the validity too;</li>
 *   <li>a confirmation of a command sent before the latest confirmed one tells nothing new.</li>
 * </ul>
 * So the deadline is the minimum of the latest-sent confirmed cap and the caps of every unresolved
 * command sent after it. An extend to a shorter time lowers the deadline from the moment it is sent,
 * and keeps it lowered if its reply is lost; a later confirmed renewal lifts it again.
 *
 * <p>This class is threadsafe.
 */
final class LeaseValidity {

    private long confirmedSeq;
    private long confirmedUntil;
    private long nextSeq = 1;
    /** Commands begun after {@link #confirmedSeq} whose outcome is not confirmed: sequence → cap. */
    private final TreeMap<Long, Long> unresolved = new TreeMap<>();

    /** Validity of an acquisition confirmed by Redis: it was sent at {@code sentNanos} with a lease of {@code leaseMs}. */
    LeaseValidity(long sentNanos, long leaseMs) {
        this.confirmedUntil = Validity.validUntil(sentNanos, leaseMs);
    }

    /** A TTL-setting command is about to be sent; returns its sequence number for {@link #confirmed}/{@link #failed}. */
    synchronized long begin(long sentNanos, long leaseMs) {
        long seq = nextSeq++;
        unresolved.put(seq, Validity.validUntil(sentNanos, leaseMs));
        return seq;
    }

    /** Redis confirmed command {@code seq}: it ran and set its TTL. */
    synchronized void confirmed(long seq) {
        Long cap = unresolved.remove(seq);
        if (cap == null || seq < confirmedSeq) {
            return; // superseded by a command sent later and already confirmed
        }
        confirmedSeq = seq;
        confirmedUntil = cap;
        // Commands sent before this one ran before it: whatever they did, this one's TTL replaced it.
        Iterator<Map.Entry<Long, Long>> earlier = unresolved.headMap(seq).entrySet().iterator();
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

    /**
     * Command {@code seq} certainly did not run (it was never sent): its cap no longer applies.
     */
    synchronized void notSent(long seq) {
        unresolved.remove(seq);
    }

    /** The local validity deadline on the engine's ticker: never later than what Redis holds. */
    synchronized long until() {
        long until = confirmedUntil;
        for (long cap : unresolved.tailMap(confirmedSeq, false).values()) {
            until = Math.min(until, cap);
        }
        return until;
    }
}
