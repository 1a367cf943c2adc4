package io.leasehold.lock.quorum;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Which members a call skips for a while because their last call failed transiently, so that a fan-out
 * decides from the others at once instead of waiting for a member that is down: a driver may keep a
 * down member's commands until its command timeout (Lettuce, by default, buffers them while it
 * reconnects), and a fan-out whose answers so far leave the outcome open (a split vote) would wait that
 * long on every call.
 *
 * <p>Per member, one state under this object's monitor, as a circuit breaker keeps it:
 * <ul>
 *   <li><b>answering</b>: every call goes through;</li>
 *   <li><b>skipped</b> until an instant, after a transient failure: calls fail at once, transiently;</li>
 *   <li><b>probing</b>, once the instant passed: one call goes through, the others are still skipped;
 *       its answer makes the member answering again, its transient failure skips it again.</li>
 * </ul>
 * A skipped member counts as failed in every majority rule, as a member that did not answer does.
 *
 * <p>Threadsafe; never blocks.
 */
final class MemberAvailability {

    /** How long a member is skipped after a transient failure, before one call probes it again. */
    static final long SKIP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private enum State {
        ANSWERING,
        SKIPPED,
        PROBING
    }

    private final State[] states;
    private final long[] skippedUntil;

    MemberAvailability(int members) {
        this.states = new State[members];
        this.skippedUntil = new long[members];
        Arrays.fill(states, State.ANSWERING);
    }

    /** Whether a call to {@code member} goes through now; a call that does must report its outcome. */
    synchronized boolean admit(int member, long now) {
        switch (states[member]) {
            case ANSWERING:
                return true;
            case SKIPPED:
                if (now - skippedUntil[member] >= 0) {
                    states[member] = State.PROBING; // this call is the probe
                    return true;
                }
                return false;
            default:
                return false; // a probe is out
        }
    }

    /** A call to {@code member} was answered (any reply, an error reply included). */
    synchronized void answered(int member) {
        states[member] = State.ANSWERING;
    }

    /** A call to {@code member} failed transiently: it is skipped for {@link #SKIP_NANOS}. */
    synchronized void failed(int member, long now) {
        states[member] = State.SKIPPED;
        skippedUntil[member] = now + SKIP_NANOS;
    }

    /** Milliseconds until {@code member} is probed again; 0 when it is not skipped. */
    synchronized long skippedForMs(int member, long now) {
        return states[member] == State.ANSWERING ? 0 : Math.max(0, (skippedUntil[member] - now) / 1_000_000);
    }
}
