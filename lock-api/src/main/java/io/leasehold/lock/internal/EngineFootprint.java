package io.leasehold.lock.internal;

import io.leasehold.lock.LockClient;

/**
 * What one client's engine keeps in memory right now, counted per kind: for load and leak tests,
 * which acquire and release many names and then expect nothing left behind, and for diagnostics.
 * <b>Internal: may change without notice.</b>
 *
 * <p>Every count but {@link #timerTasks} is per lock name, lease or call; {@link #timerTasks} also
 * counts the client-wide tasks of which there is at most one each ({@value #CLIENT_WIDE_TIMER_TASKS}
 * in all: the next renewal round, which stays armed until its time even when the last lease ended,
 * and the sweep of command timeouts).
 *
 * @param waitQueues             names with a local wait queue, waiting or lingering ({@link WaitQueues})
 * @param subscribedNames        of those, names whose release channel is subscribed
 * @param acquisitions           acquisitions in progress ({@link DefaultLockClient})
 * @param heldLeases             leases held, or ended and not settled yet (releasing, or lost and not yet
 *                               told) ({@link DefaultLockClient})
 * @param localHolders           names with a local holder recorded for their waiters ({@link DefaultLockClient})
 * @param renewedLeases          leases the watchdog renews ({@link Renewer})
 * @param renewalScheduleEntries leases in the renewal schedule ({@link RenewalSchedule})
 * @param releaseResends         releases waiting to be sent again ({@link Engine})
 * @param watchedCalls           backend calls watched for their command timeout, answered ones not yet pruned
 *                               ({@link CommandTimeouts}; pruned every {@link CommandTimeouts#PRUNE_NANOS})
 * @param timerTasks             tasks scheduled on the engine's timer ({@link EngineTimer})
 */
public record EngineFootprint(
        int waitQueues,
        int subscribedNames,
        int acquisitions,
        int heldLeases,
        int localHolders,
        int renewedLeases,
        int renewalScheduleEntries,
        int releaseResends,
        int watchedCalls,
        int timerTasks) {

    /** Timer tasks a client may keep with nothing held and nobody waiting: one renewal round, one timeout sweep. */
    public static final int CLIENT_WIDE_TIMER_TASKS = 2;

    /**
     * The footprint of {@code client} now.
     *
     * @throws IllegalArgumentException if {@code client} is not the engine's ({@link io.leasehold.lock.LockClient#create})
     */
    public static EngineFootprint of(LockClient client) {
        if (!(client instanceof DefaultLockClient)) {
            throw new IllegalArgumentException(
                    "client must be built by LockClient.create or LockClient.builder, but was "
                            + (client == null ? "null" : client.getClass().getName()));
        }
        return ((DefaultLockClient) client).footprint();
    }

    /**
     * True when nothing is held, waited for or in flight, and the timer keeps no more than the
     * {@value #CLIENT_WIDE_TIMER_TASKS} client-wide tasks: what a client that acquired and released
     * any number of names must come back to.
     */
    public boolean isIdle() {
        return waitQueues == 0
                && subscribedNames == 0
                && acquisitions == 0
                && heldLeases == 0
                && localHolders == 0
                && renewedLeases == 0
                && renewalScheduleEntries == 0
                && releaseResends == 0
                && watchedCalls == 0
                && timerTasks <= CLIENT_WIDE_TIMER_TASKS;
    }
}
