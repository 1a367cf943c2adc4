package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.ScriptNames;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The quorum's largest lease: a member that lost its data sits out that long (plus the drift allowance)
 * before it grants again, so no lease may be longer (acquire's lease, extend's and renew's new lease).
 * A lease argument that is no integer is left to the script, which refuses it.
 */
final class LeaseCap {

    private final Duration maxLeaseTime;
    private final long maxLeaseMs;

    LeaseCap(Duration maxLeaseTime) {
        this.maxLeaseTime = maxLeaseTime;
        this.maxLeaseMs = maxLeaseTime.toMillis();
    }

    long maxLeaseMs() {
        return maxLeaseMs;
    }

    /** The refusal of a call that asks for a longer lease than the cap, or null when it asks for none. */
    @Nullable
    IllegalArgumentException check(String script, List<String> keys, List<String> args) {
        switch (script) {
            case ScriptNames.ACQUIRE:
            case ScriptNames.EXTEND:
                return args.size() > 1 && !keys.isEmpty() ? check(args.get(1), keys.get(0)) : null;
            case ScriptNames.RENEW:
                if (args.isEmpty()) {
                    return null;
                }
                if (!args.get(0).isEmpty()) {
                    return keys.isEmpty() ? null : check(args.get(0), keys.get(0));
                }
                for (int i = 0; i < keys.size() && 3 * i + 3 < args.size(); i++) {
                    IllegalArgumentException refused = check(args.get(3 * i + 3), keys.get(i));
                    if (refused != null) {
                        return refused;
                    }
                }
                return null;
            default:
                return null;
        }
    }

    private @Nullable IllegalArgumentException check(String leaseMs, String lockKey) {
        long ms;
        try {
            ms = Long.parseLong(leaseMs);
        } catch (NumberFormatException e) {
            return null;
        }
        if (ms <= maxLeaseMs) {
            return null;
        }
        return new IllegalArgumentException("leaseTime must be at most the quorum's maxLeaseTime " + maxLeaseTime
                + " (a member that lost its data sits out that long before it grants again), but was "
                + Duration.ofMillis(ms) + " (lock '" + lockName(lockKey) + "')");
    }

    /** The name inside a lock key's hash tag, or the key itself. */
    private static String lockName(String lockKey) {
        int open = lockKey.indexOf('{');
        int close = lockKey.lastIndexOf('}');
        return open >= 0 && close > open ? lockKey.substring(open + 1, close) : lockKey;
    }
}
