package io.leasehold.lock.micrometer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Maps unbounded lock names ({@code order:123}) to a bounded set of tag values: the user's group
 * function, then a cap on distinct groups beyond which every new group is
 * {@value LeaseholdMeters#OTHER_GROUP}, so that a function that lets ids through cannot blow up a
 * registry. Groups once admitted stay admitted.
 *
 * <p>This class is threadsafe.
 */
final class LockGroups {

    private final Function<String, String> groupOf;
    private final int maxGroups;
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();

    LockGroups(Function<String, String> groupOf, int maxGroups) {
        this.groupOf = groupOf;
        this.maxGroups = maxGroups;
    }

    /** The default group function: the part of the name before its first {@code ':'}, or the whole name. */
    static String prefixBeforeColon(String lockName) {
        int colon = lockName.indexOf(':');
        return colon < 0 ? lockName : lockName.substring(0, colon);
    }

    String groupOf(String lockName) {
        String group;
        try {
            group = groupOf.apply(lockName);
        } catch (RuntimeException e) {
            group = null; // a broken group function must not lose the event
        }
        if (group == null || group.isEmpty()) {
            return LeaseholdMeters.OTHER_GROUP;
        }
        if (admitted.contains(group)) {
            return group;
        }
        synchronized (admitted) {
            if (admitted.contains(group)) {
                return group;
            }
            if (admitted.size() >= maxGroups) {
                return LeaseholdMeters.OTHER_GROUP;
            }
            admitted.add(group);
            return group;
        }
    }
}
