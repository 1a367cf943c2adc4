package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * renew.lua (the watchdog's batch) and extend.lua over the quorum: the same call to every member, and
 * per lease the majority's code (docs/design/quorum-locks.md, "Renew, extend, release, inspect"):
 *
 * <ul>
 *   <li>superseded ({@code 2}: a command of the lease numbered higher ran there) on at least M members:
 *       {@code 2}, and the later command's own reply decides;</li>
 *   <li>else confirmed ({@code 1} renewed, or {@code 2} superseded) by every member: {@code 1};</li>
 *   <li>confirmed by at least M members but not all (one failed, did not answer in time, or found the
 *       lock gone and could not have it put back, see below): {@link LockBackend#CONFIRMED_PARTIALLY} ({@code 3}). Superseded on fewer than M
 *       members does not drop this command: the later one may fail, and then this one's TTL (a shorter
 *       extend's, say) is what a majority holds, so the engine must count its cap;</li>
 *   <li>confirmed by fewer than M: the not-confirmed code most members that answered gave ({@code 0}
 *       absent, {@code -1} another owner's, {@code -2} not a Leasehold lock; a tie goes to {@code 0});</li>
 *   <li>fewer than M answered at all: the call fails (see {@link QuorumMembers#noMajority}).</li>
 * </ul>
 *
 * <p>A renewal confirmed by at least M members but found gone ({@code 0}) on others has it put back
 * there ({@link QuorumRestore}), with its value and the renewal's lease, and counts those members as
 * renewed when they answer within the grace: a lease ending on exactly M members would otherwise be
 * lost with the next of them to die.
 *
 * <p>renew's {@code micros} is the largest a member measured. A renew call that keeps waiters' places
 * ({@code ':<p>'} in ARGV[1]) fails with an {@link IllegalStateException}: a quorum takes no places.
 * The answer waits for every member, or for a majority and then at most the grace for the rest.
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures. This
 * class is threadsafe.
 */
final class QuorumRenewals {

    /** extend.lua's publish command, when it names the release channel (KEYS[2]). */
    private static final int EXTEND_PUBLISH_ARG = 3;

    /** extend.lua's new lease (ms, from now). */
    private static final int EXTEND_TTL_ARG = 1;

    private final QuorumMembers members;
    private final Duration grace;
    private final QuorumRestore restore;
    private final ReleaseResends resends;
    private final ReleasedOwners released;

    QuorumRenewals(QuorumMembers members, Duration grace, ReleasedOwners released, ReleaseResends resends) {
        this.resends = resends;
        this.released = released;
        this.members = members;
        this.grace = grace;
        this.restore = new QuorumRestore(members, grace, released, resends);
    }

    /** renew.lua over the quorum; see the class doc. */
    CompletableFuture<Object> renew(LuaScript script, List<String> keys, List<String> args) {
        if (args.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "renew takes the lease time as ARGV[1] (see renew.lua's header), but got no arguments"));
        }
        if (args.get(0).indexOf(':') >= 0) {
            return CompletableFuture.failedFuture(new IllegalStateException("a quorum keeps no waiters' places (its"
                    + " grants are composed): renew's ARGV[1] must carry no ':<places>', but was '" + args.get(0)
                    + "'"));
        }
        int leases = keys.size();
        String lockKey = keys.isEmpty() ? "(none)" : keys.get(0);
        long sentNanos = System.nanoTime();
        return fanOut(script, keys, args, -1).thenCompose(answers -> {
            List<List<?>> codes = new ArrayList<>();
            List<Integer> from = new ArrayList<>();
            long micros = 0;
            for (Tally.Answer a : answers) {
                if (a.failed()) {
                    continue;
                }
                List<?> parts = Replies.list(a.reply(), "renew");
                if (parts.size() != 2) {
                    throw Replies.unexpected(a.reply(), "renew (codes and µs)");
                }
                List<?> memberCodes = Replies.list(parts.get(0), "renew");
                if (memberCodes.size() != leases) {
                    throw Replies.unexpected(a.reply(), "renew of " + leases + " leases");
                }
                codes.add(memberCodes);
                from.add(a.member());
                micros = Math.max(micros, Replies.asLong(parts.get(1), "renew"));
            }
            if (codes.size() < members.majority()) {
                throw new java.util.concurrent.CompletionException(members.noMajority(
                        leases == 1 ? lockKey : leases + " locks from '" + lockKey + "'", "renew", answers));
            }
            long[][] perLease = new long[leases][codes.size()];
            List<Long> merged = new ArrayList<>(leases);
            Map<Integer, List<QuorumRestore.Missing>> missing = new HashMap<>();
            for (int i = 0; i < leases; i++) {
                for (int m = 0; m < codes.size(); m++) {
                    perLease[i][m] = Replies.asLong(codes.get(m).get(i), "renew");
                }
                merged.add(code(perLease[i]));
                if (merged.get(i) == LockBackend.CONFIRMED_PARTIALLY) {
                    for (int m = 0; m < codes.size(); m++) {
                        if (perLease[i][m] == 0) { // confirmed by a majority, gone here: put it back
                            missing.computeIfAbsent(from.get(m), k -> new ArrayList<>())
                                    .add(missingLease(i, keys, args));
                        }
                    }
                }
            }
            long totalMicros = micros;
            if (missing.isEmpty()) {
                return CompletableFuture.completedFuture(List.of(merged, totalMicros)); // the usual case
            }
            return restore.restore(missing, sentNanos).thenApply(restored -> {
                // only the leases put back somewhere are judged again
                restored.forEach((member, leasesPutBack) -> {
                    int m = from.indexOf(member);
                    for (int i : leasesPutBack) {
                        perLease[i][m] = 1; // holds the renewed lease now
                    }
                });
                Set<Integer> again = new java.util.HashSet<>();
                restored.values().forEach(again::addAll);
                again.forEach(i -> merged.set(i, code(perLease[i])));
                return List.of(merged, totalMicros);
            });
        });
    }

    /** Lease {@code i} of a renew call as quorum-restore.lua takes it (see renew.lua's arguments). */
    private static QuorumRestore.Missing missingLease(int i, List<String> keys, List<String> args) {
        boolean ownLeases = args.get(0).isEmpty(); // '' : each lease carries its own
        int stride = ownLeases ? 3 : 2;
        int at = 1 + i * stride;
        String leaseMs = ownLeases ? args.get(at + 2) : args.get(0);
        return new QuorumRestore.Missing(i, keys.get(i), args.get(at + 1), leaseMs);
    }

    /** extend.lua over the quorum: the same majority rule on its single code. */
    CompletableFuture<Object> extend(LuaScript script, List<String> keys, List<String> args) {
        String lockKey = keys.isEmpty() ? "(none)" : keys.get(0);
        // A release under a min-hold time names the release channel and carries a publish command as
        // ARGV[4]: each member gets its own, as a release's does.
        int publishArg = keys.size() > 1 ? EXTEND_PUBLISH_ARG : -1;
        if (publishArg >= 0 && !args.isEmpty()) {
            // it ends the lease (at the hold's end): no put-back may follow it, see ReleasedOwners
            released.released(
                    lockKey,
                    args.get(0),
                    new SentRelease(script, keys, args, publishArg, EXTEND_TTL_ARG, System.nanoTime()));
        }
        // Such a release is sent again to the members that fail, with what is left of the hold, once a
        // majority answered: a member that missed it would keep the lease's own TTL past the hold.
        ReleaseResends.Round resending =
                publishArg < 0 ? null : resends.round(script, keys, args, publishArg, EXTEND_TTL_ARG);
        CompletableFuture<List<Tally.Answer>> decided = members.fanOut(
                        script, keys, args, publishArg, a -> !a.failed(), grace, late -> {
                            if (resending != null) {
                                resending.answer(late);
                            }
                        })
                .outcome()
                .whenComplete((answers, failure) -> {
                    if (resending != null) {
                        resending.decided(answers);
                    }
                });
        return decided.thenApply(answers -> {
            List<Long> codes = new ArrayList<>();
            for (Tally.Answer a : answers) {
                if (!a.failed()) {
                    codes.add(Replies.asLong(a.reply(), "extend"));
                }
            }
            if (codes.size() < members.majority()) {
                throw new java.util.concurrent.CompletionException(members.noMajority(lockKey, "extend", answers));
            }
            return code(codes.stream().mapToLong(Long::longValue).toArray());
        });
    }

    /** The same call to every member; {@code publishArg}: the index of a publish command to give each its own, or -1. */
    private CompletableFuture<List<Tally.Answer>> fanOut(
            LuaScript script, List<String> keys, List<String> args, int publishArg) {
        return members.fanOut(script, keys, args, publishArg, a -> !a.failed(), grace, late -> {})
                .outcome();
    }

    /**
     * The quorum's code of one lease from the codes of the members that answered (the rest count as
     * not confirmed); see the class doc.
     */
    long code(long[] answered) {
        int renewed = 0;
        int superseded = 0;
        int absent = 0;
        int otherOwner = 0;
        int foreign = 0;
        for (long c : answered) {
            if (c == 1) {
                renewed++;
            } else if (c == 2) {
                superseded++;
            } else if (c == 0) {
                absent++;
            } else if (c == -1) {
                otherOwner++;
            } else {
                foreign++;
            }
        }
        int majority = members.majority();
        int confirmed = renewed + superseded;
        if (superseded >= majority) {
            return 2; // a later command ran on a majority: its own reply decides
        }
        if (confirmed == members.size()) {
            return 1;
        }
        if (confirmed >= majority) {
            // Superseded on fewer than a majority proves nothing of the later command: should it fail,
            // this one's TTL (a shorter extend, say) may be the one in force on a majority, so it counts.
            return LockBackend.CONFIRMED_PARTIALLY;
        }
        if (otherOwner > absent && otherOwner >= foreign) {
            return -1;
        }
        if (foreign > absent && foreign > otherOwner) {
            return -2;
        }
        return 0;
    }
}
