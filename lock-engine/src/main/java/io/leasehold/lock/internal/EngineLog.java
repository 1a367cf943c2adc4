package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.ReleaseUnconfirmedException;
import io.leasehold.lock.spi.support.Durations;
import java.lang.System.Logger.Level;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The engine's log lines, through {@link System.Logger} (logger {@code io.leasehold.lock}), so that
 * they reach whatever logging the application uses (JUL by default; SLF4J or Log4j through their
 * {@code System.LoggerFinder} bridges) without a dependency of ours.
 *
 * <p>Only rare events are logged, each once: a lease lost (at INFO when its client closed with it held,
 * else WARNING), a lease going uncertain (once per streak
 * of failed renewals, not once per attempt) and coming back, a release Redis could not confirm,
 * locks a {@code close()} left behind, a listener that throws, the first events dropped because
 * listeners fell behind. Lines name the
 * lock and the fencing token, never the owner value (a secret that would let a reader release the
 * lock). Called on the client's event thread only, never on a hot path.
 */
final class EngineLog {

    private static final System.Logger LOG = System.getLogger("io.leasehold.lock");

    private EngineLog() {}

    static void leaseLost(LeaseLoss loss) {
        if (loss.reason() == LeaseLoss.Reason.CLIENT_CLOSED) {
            // The application closed its client with the lease held (a shutdown): told, not alarming.
            if (LOG.isLoggable(Level.INFO)) {
                LOG.log(
                        Level.INFO,
                        "Lease of lock '" + loss.lockName() + "' (fencing token " + loss.fencingToken()
                                + ") ended by LockClient.close() while held: its holder was told, then the lock"
                                + " released");
            }
            return;
        }
        if (LOG.isLoggable(Level.WARNING)) {
            LOG.log(
                    Level.WARNING,
                    "Lease of lock '" + loss.lockName() + "' (fencing token " + loss.fencingToken()
                            + ") lost: " + loss.reason()
                            + loss.cause().map(c -> " (" + c + ")").orElse("")
                            + "; another holder may have the lock, so work under this lease must stop");
        }
    }

    static void releaseUnconfirmed(String name, long token, ReleaseUnconfirmedException cause) {
        if (LOG.isLoggable(Level.WARNING)) {
            LOG.log(
                    Level.WARNING,
                    "Release of lock '" + name + "' (fencing token " + token + ") not confirmed: "
                            + cause.getMessage()
                            + "; other holders may wait until it expires");
        }
    }

    /**
     * {@code close()} could not settle every release within its timeout: these locks stay in Redis
     * until their lease time runs out.
     */
    static void closeLeftLocks(int clientId, java.util.Collection<String> names, Duration closeTimeout) {
        if (LOG.isLoggable(Level.WARNING)) {
            LOG.log(
                    Level.WARNING,
                    "LockClient " + clientId + " closed with the release of " + names.size() + " lock(s) not settled"
                            + " within the close timeout of " + Durations.human(closeTimeout) + ": " + names
                            + "; each stays in Redis until its lease time runs out");
        }
    }

    static void leaseUncertain(String name, long token, Duration validFor, Throwable cause) {
        if (LOG.isLoggable(Level.WARNING)) {
            LOG.log(
                    Level.WARNING,
                    "Lease of lock '" + name + "' (fencing token " + token + ") is uncertain: "
                            + "the latest renewal or extend failed (" + cause + "); it stays valid for at most "
                            + Durations.human(validFor)
                            + " while renewal is retried");
        }
    }

    static void leaseReconfirmed(String name, long token) {
        if (LOG.isLoggable(Level.INFO)) {
            LOG.log(
                    Level.INFO,
                    "Lease of lock '" + name + "' (fencing token " + token + ") is held again: "
                            + "Redis confirmed a renewal");
        }
    }

    /**
     * The listeners' event queue was full and events were dropped: logged once per client (later drops
     * are only counted and reported through {@link LockEventListener#onEventsDropped}), so that a
     * stuck listener cannot flood the log either.
     */
    static void eventsDropped(long count, int bound) {
        if (LOG.isLoggable(Level.WARNING)) {
            LOG.log(
                    Level.WARNING,
                    "Lock event listeners fell behind: " + count + " event(s) were dropped because " + bound
                            + " were already waiting for the event thread (a listener that blocks or is slow?). "
                            + "Whole leases and waits are dropped, never just their start or end; listeners are "
                            + "told through onEventsDropped. This is logged once per client; later drops are "
                            + "only counted");
        }
    }

    /**
     * A listener threw. Logged at its 1st, 10th, 100th, ... failure, so that a listener that throws
     * on every event cannot flood the log, yet is never silent.
     */
    static void listenerFailed(LockEventListener listener, String event, long failureCount, Throwable error) {
        if (!isPowerOfTen(failureCount) || !LOG.isLoggable(Level.WARNING)) {
            return;
        }
        LOG.log(
                Level.WARNING,
                "Lock event listener " + listener.getClass().getName() + " threw in " + event
                        + " (failure " + failureCount + " of this listener; logged at 1, 10, 100, ... failures); "
                        + "the event was skipped for this listener only",
                error);
    }

    /**
     * One of the engine's handlers threw (see {@link Futures#whenDone}): a bug in Leasehold, logged
     * every time, since what it left half done may hold up a lock until a timeout or the client's close.
     */
    static void handlerFailed(String what, @Nullable String lockName, Throwable bug) {
        LOG.log(
                Level.ERROR,
                "Leasehold's engine failed while handling " + what
                        + (lockName == null ? "" : " of lock '" + lockName + "'")
                        + ": this is a bug in Leasehold, please report it"
                        + " with this stack trace; what waited for this step may wait until its timeout or the"
                        + " client's close",
                bug);
    }

    static boolean isPowerOfTen(long n) {
        long p = 1;
        while (p < n && p <= Long.MAX_VALUE / 10) {
            p *= 10;
        }
        return p == n;
    }
}
