package io.leasehold.lock.spring.boot;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * What the health indicator reports of the client's leases, kept from the client's events: the leases
 * uncertain right now (a renewal failed; Redis may have let them go) and the leases lost within the last
 * {@link #LOST_WINDOW}. Events arrive on the client's event thread; the health endpoint reads from its
 * own: this class is threadsafe, its state guarded by {@code this}.
 */
final class LeaseTroubles implements LockEventListener {

    /** How long a loss counts as recent. */
    static final Duration LOST_WINDOW = Duration.ofMinutes(15);
    /** Losses remembered at most: a storm of losses must not grow the memory without bound. */
    private static final int MAX_REMEMBERED = 1_000;

    /** A lease lost, when and why. */
    record Loss(String lockName, LeaseLoss.Reason reason, Instant at) {}

    private final Clock clock;
    /** Leases uncertain now, by lock name and fencing token. */
    private final Set<String> uncertain = new HashSet<>();
    /** Recent losses, oldest first. */
    private final Deque<Loss> lost = new ArrayDeque<>();

    LeaseTroubles(Clock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized void onLeaseUncertain(String lockName, long fencingToken, Duration validFor, Throwable cause) {
        uncertain.add(lease(lockName, fencingToken));
    }

    @Override
    public synchronized void onLeaseReconfirmed(String lockName, long fencingToken) {
        uncertain.remove(lease(lockName, fencingToken));
    }

    @Override
    public synchronized void onReleased(String lockName, long fencingToken, Duration held) {
        uncertain.remove(lease(lockName, fencingToken));
    }

    @Override
    public synchronized void onLeaseLost(LeaseLoss loss) {
        uncertain.remove(lease(loss.lockName(), loss.fencingToken()));
        if (lost.size() == MAX_REMEMBERED) {
            lost.removeFirst();
        }
        lost.addLast(new Loss(loss.lockName(), loss.reason(), clock.instant()));
    }

    /** Leases uncertain now. */
    synchronized int uncertainNow() {
        return uncertain.size();
    }

    /** Leases lost within the last {@link #LOST_WINDOW} (up to the last {@value #MAX_REMEMBERED}). */
    synchronized int lostRecently() {
        forgetOld();
        return lost.size();
    }

    /** The latest loss within the window, if any. */
    synchronized Optional<Loss> lastLoss() {
        forgetOld();
        return Optional.ofNullable(lost.peekLast());
    }

    private void forgetOld() {
        Instant since = clock.instant().minus(LOST_WINDOW);
        while (!lost.isEmpty() && lost.peekFirst().at().isBefore(since)) {
            lost.removeFirst();
        }
    }

    private static String lease(String lockName, long fencingToken) {
        return fencingToken + "@" + lockName;
    }
}
