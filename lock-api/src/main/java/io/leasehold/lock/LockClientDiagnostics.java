package io.leasehold.lock;

/**
 * What one {@link LockClient} keeps in memory right now, counted by kind: for health checks and
 * gauges, and for hunting leaks (a client whose work is done should come back to
 * {@linkplain #isQuiescent() quiescent}). Taken by {@link LockClient#diagnostics()}.
 *
 * <p><b>A snapshot, and a cheap one.</b> Taking it makes no Redis call and waits for no I/O: it
 * reads the client's own bookkeeping (taking some of its locks for a moment), at a cost that grows
 * at most with the number of lock names being waited for. Each count is exact when it is read, but
 * the counts are read one after another, not at one instant: while locks are being acquired and
 * released they need not agree with each other (a lease just granted may show as an acquisition
 * still, or already as a lease). Compare counts only once the traffic you care about has settled.
 *
 * <p><b>Timer tasks.</b> Every count but {@link #timerTasks} is per lock name, lease or call.
 * {@link #timerTasks} also counts the client-wide tasks, of which there is at most one each:
 * {@value #CLIENT_WIDE_TIMER_TASKS} in all (the next renewal round, which stays armed until its time
 * even after the last lease ended, and the sweep of command timeouts). So a client that holds
 * nothing may still show up to {@value #CLIENT_WIDE_TIMER_TASKS} timer tasks.
 *
 * <p>This record is immutable and threadsafe.
 *
 * @param waitedNames            lock names with a wait queue in this client: someone waits for the
 *                               lock, or its last waiter left less than about a second ago (the queue
 *                               and its subscription linger for the next waiter)
 * @param subscribedNames        of those names, the ones whose release channel is subscribed right now
 * @param acquisitions           acquisitions in progress: acquire calls of any form (blocking, async,
 *                               {@code tryAcquire}, Kotlin) that have neither handed out a lease nor
 *                               ended without one, waiting ones included
 * @param leases                 leases of this client not settled yet: held (valid or uncertain), or
 *                               ended (released or lost) while their release or their loss signal is
 *                               still on its way
 * @param localHolders           lock names for which this client keeps its own current lease at hand
 *                               for its waiters of the name (they need not ask Redis while it is valid,
 *                               since its release hands the lock over); dropped when that lease ends
 * @param renewedLeases          leases the watchdog renews: held leases with auto-renew on
 *                               ({@link LockOptions#autoRenew()})
 * @param renewalScheduleEntries renewed leases waiting in the watchdog's schedule for their next
 *                               renewal (a lease whose renewal call is on its way is not among them),
 *                               and the places of {@code fairLock} waiters that the watchdog keeps
 *                               in their locks' wait queues (a waiter that stopped waiting leaves its
 *                               place there until that place is next due, within half a second)
 * @param releaseResends         releases waiting to be sent again, after a send failed for a reason
 *                               that may pass (Redis unreachable for a moment)
 * @param watchedCalls           Redis calls watched for the client's command timeout
 *                               ({@link LockClient.Builder#commandTimeout}): calls on their way, and
 *                               answered ones not yet pruned (they are within a few tens of milliseconds)
 * @param timerTasks             tasks scheduled on the client's timer thread (lease deadlines, renewal,
 *                               wait deadlines and retries, lingering subscriptions, command timeouts),
 *                               the client-wide ones included (see above)
 */
public record LockClientDiagnostics(
        int waitedNames,
        int subscribedNames,
        int acquisitions,
        int leases,
        int localHolders,
        int renewedLeases,
        int renewalScheduleEntries,
        int releaseResends,
        int watchedCalls,
        int timerTasks) {

    /**
     * Timer tasks a client may keep with nothing held, waited for or in flight: one renewal round and
     * one sweep of command timeouts. {@link #isQuiescent()} allows this many.
     */
    public static final int CLIENT_WIDE_TIMER_TASKS = 2;

    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public LockClientDiagnostics {
        requireCount("waitedNames", waitedNames);
        requireCount("subscribedNames", subscribedNames);
        requireCount("acquisitions", acquisitions);
        requireCount("leases", leases);
        requireCount("localHolders", localHolders);
        requireCount("renewedLeases", renewedLeases);
        requireCount("renewalScheduleEntries", renewalScheduleEntries);
        requireCount("releaseResends", releaseResends);
        requireCount("watchedCalls", watchedCalls);
        requireCount("timerTasks", timerTasks);
    }

    /**
     * Whether the client is at rest: nothing held, waited for or in flight (every count 0), and its
     * timer keeps no more than the {@value #CLIENT_WIDE_TIMER_TASKS} client-wide tasks. It is what a
     * client comes back to once every lease it handed out was released (or lost) and every acquisition
     * ended, however many lock names it used: a client that stays away from it after that keeps
     * something it should not. Coming back takes a moment after the last release: about a second for
     * a name's lingering subscription, a few tens of milliseconds for answered calls to be pruned; so
     * poll for it with a deadline rather than expect it at once.
     *
     * @return true if every count is 0 and {@link #timerTasks} is at most {@value #CLIENT_WIDE_TIMER_TASKS}
     */
    public boolean isQuiescent() {
        return waitedNames == 0
                && subscribedNames == 0
                && acquisitions == 0
                && leases == 0
                && localHolders == 0
                && renewedLeases == 0
                && renewalScheduleEntries == 0
                && releaseResends == 0
                && watchedCalls == 0
                && timerTasks <= CLIENT_WIDE_TIMER_TASKS;
    }

    private static void requireCount(String name, int count) {
        if (count < 0) {
            throw new IllegalArgumentException(name + " must be at least 0, but was " + count);
        }
    }
}
