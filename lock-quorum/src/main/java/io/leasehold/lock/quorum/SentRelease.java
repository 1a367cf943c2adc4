package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LuaScript;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A release as it was fanned out to the members, to send it again to one of them: release.lua, or
 * extend.lua under a min-hold time (the lock stays taken until the hold is up, with the TTL left of it).
 * The same call again does what the first send would have done had it arrived late: it is checked
 * against the owner, and a hold's TTL is counted down from the first send ({@link #argsNow}).
 *
 * @param script release.lua or extend.lua
 * @param keys its keys
 * @param args its arguments, as first sent
 * @param publishArg the index of the argument that is the member's publish command (see
 *     {@link QuorumMembers#eval}), or -1
 * @param ttlArg the index of the TTL argument to count down (extend.lua's), or -1
 * @param sentNanos when it was first sent ({@link System#nanoTime()})
 */
record SentRelease(LuaScript script, List<String> keys, List<String> args, int publishArg, int ttlArg, long sentNanos) {

    SentRelease {
        keys = List.copyOf(keys);
        args = List.copyOf(args);
    }

    /**
     * The arguments to send at {@code nowNanos}: with a TTL argument, what is left of it (at least 1 ms,
     * which ends the hold).
     */
    List<String> argsNow(long nowNanos) {
        if (ttlArg < 0) {
            return args;
        }
        long left = Long.parseLong(args.get(ttlArg)) - TimeUnit.NANOSECONDS.toMillis(nowNanos - sentNanos);
        List<String> counted = new ArrayList<>(args);
        counted.set(ttlArg, Long.toString(Math.max(1, left)));
        return counted;
    }
}
