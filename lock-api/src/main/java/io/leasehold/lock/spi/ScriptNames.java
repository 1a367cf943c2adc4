package io.leasehold.lock.spi;

import java.util.List;

/**
 * Names of the bundled scripts, for backends that emulate them (lock-inmemory's in-memory backend)
 * and for tests that count calls. See each script's header for KEYS, ARGV and the reply.
 */
public final class ScriptNames {

    public static final String ACQUIRE = "acquire";
    public static final String HANDOFF = "handoff";
    public static final String RELEASE = "release";
    public static final String RENEW = "renew";
    public static final String EXTEND = "extend";
    public static final String INSPECT = "inspect";
    public static final String FORCE_RELEASE = "force-release";
    /** Phase 2 of an acquisition over a quorum of independent masters (see docs/design/quorum-locks.md). */
    public static final String QUORUM_COMMIT = "quorum-commit";
    /** A node's standing in a quorum of independent masters, and the steps that bring it back after a reset. */
    public static final String QUORUM_ENLIST = "quorum-enlist";
    /** Puts back, on one node of a quorum, a lease that a majority confirms and that node lost. */
    public static final String QUORUM_RESTORE = "quorum-restore";

    /** Phase 1 of a fairLock acquisition over a quorum: each member's queue in the order of the quorum's tickets. */
    public static final String QUORUM_FAIR_ACQUIRE = "quorum-fair-acquire";

    /** Every bundled script. */
    public static final List<String> ALL = List.of(
            ACQUIRE,
            HANDOFF,
            RELEASE,
            RENEW,
            EXTEND,
            INSPECT,
            FORCE_RELEASE,
            QUORUM_COMMIT,
            QUORUM_ENLIST,
            QUORUM_RESTORE,
            QUORUM_FAIR_ACQUIRE);

    private ScriptNames() {}
}
