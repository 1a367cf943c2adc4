package io.leasehold.lock.micrometer;

/**
 * The names and tags of the meters {@link LeaseholdMetrics} records: dotted lower-case names under
 * one prefix, {@value #PREFIX}, so that a registry's naming convention renders them for its
 * backend (Prometheus: {@code leasehold_lock_acquire_seconds}, {@code leasehold_lock_lost_total}).
 * Every meter carries the {@link #TAG_LOCK_GROUP} tag.
 *
 * <p>This class holds constants only.
 */
public final class LeaseholdMeters {

    /** The common prefix of every meter name. */
    public static final String PREFIX = "leasehold.lock";

    /** Timer: from the call to its outcome; tags {@link #TAG_LOCK_GROUP}, {@link #TAG_OUTCOME}. */
    public static final String ACQUIRE = PREFIX + ".acquire";
    /** Gauge: leases held now; tag {@link #TAG_LOCK_GROUP}. */
    public static final String HELD = PREFIX + ".held";
    /** Timer: how long leases were held, recorded when they end; tags {@link #TAG_LOCK_GROUP}, {@link #TAG_ENDING}. */
    public static final String HOLD = PREFIX + ".hold";
    /** Counter: renewal (and extend) attempts; tags {@link #TAG_LOCK_GROUP}, {@link #TAG_RESULT}. */
    public static final String RENEWALS = PREFIX + ".renewals";
    /** Counter: leases lost; tags {@link #TAG_LOCK_GROUP}, {@link #TAG_REASON}. */
    public static final String LOST = PREFIX + ".lost";
    /** Gauge: leases uncertain now (a renewal failed, none confirmed since); tag {@link #TAG_LOCK_GROUP}. */
    public static final String UNCERTAIN = PREFIX + ".uncertain";
    /** Gauge: acquisitions waiting now for a held lock; tag {@link #TAG_LOCK_GROUP}. */
    public static final String WAITERS = PREFIX + ".waiters";
    /** Timer: from a release message seen to the next local acquisition it woke; tag {@link #TAG_LOCK_GROUP}. */
    public static final String HANDOFF = PREFIX + ".handoff";

    /** The bounded group of the lock name (see {@link LeaseholdMetrics.Builder#lockGroup}). */
    public static final String TAG_LOCK_GROUP = "lock.group";
    /** How an acquisition ended: {@link #OUTCOME_ACQUIRED}, {@link #OUTCOME_TIMEOUT}, {@link #OUTCOME_ERROR}, {@link #OUTCOME_CANCELLED}. */
    public static final String TAG_OUTCOME = "outcome";
    /** How a lease ended: {@link #ENDING_RELEASED}, {@link #ENDING_RELEASE_UNCONFIRMED} or {@link #ENDING_LOST}. */
    public static final String TAG_ENDING = "ending";
    /** A renewal's result: {@link #RESULT_RENEWED} or {@link #RESULT_FAILED}. */
    public static final String TAG_RESULT = "result";
    /** Why a lease was lost: a {@link io.leasehold.lock.LeaseLoss.Reason} name, e.g. {@code EXPIRED}. */
    public static final String TAG_REASON = "reason";

    public static final String OUTCOME_ACQUIRED = "acquired";
    public static final String OUTCOME_TIMEOUT = "timeout";
    public static final String OUTCOME_ERROR = "error";
    public static final String OUTCOME_CANCELLED = "cancelled";
    public static final String ENDING_RELEASED = "released";
    /**
     * Released while valid, but Redis could not confirm it (see
     * {@link io.leasehold.lock.ReleaseUnconfirmedException}): the work ended in time; the lock may stay
     * in Redis until its lease time runs out.
     */
    public static final String ENDING_RELEASE_UNCONFIRMED = "release_unconfirmed";

    public static final String ENDING_LOST = "lost";
    public static final String RESULT_RENEWED = "renewed";
    public static final String RESULT_FAILED = "failed";
    /** The group of lock names beyond the cap of distinct groups, or whose group function gave nothing. */
    public static final String OTHER_GROUP = "other";

    private LeaseholdMeters() {}
}
