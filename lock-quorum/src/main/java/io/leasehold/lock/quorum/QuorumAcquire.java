package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An acquisition over the quorum, in two phases (docs/design/quorum-locks.md, "Acquire"), once a
 * majority of the members may take part in grants (see {@link QuorumEnlistment}; else it fails with a
 * transient {@link QuorumUnavailableException} naming each member's standing) and no member breaks a
 * rule of the quorum's configuration (two members that are one server, a member that may evict keys: see
 * {@link MemberConfigCheck}; else it fails with a {@link QuorumUnavailableException} that is not
 * transient, naming the rule and the members, also when an enlistment during the commit finds it):
 *
 * <ol>
 *   <li><b>grant</b> (here): acquire.lua on every member, with the engine's keys and arguments (place mode
 *       {@code '1'}: a {@code lock(name)} waiter takes no place in a member's wait queue); for a fair
 *       waiter (place mode {@code '0'} with its waiter's id, or {@code '1'} and an id for one that will
 *       not wait), quorum-fair-acquire.lua, which grants only the head of the member's quorum queue and
 *       keeps the waiter's place there with the ticket {@link FairWaiters} chose for it (none on its
 *       first attempt: each member's own then, the largest of which becomes its ticket), also when it
 *       grants: such a grant lives only for a grant window (the waiter lease, 1.5 s), so that a waiter
 *       that dies before its commit holds the queue no longer than a dead single-master head;</li>
 *   <li><b>commit</b>, once at least M granted: {@link CommitPhase}, which then puts the lease on the
 *       members that answered phase 1 "held" as they free up ({@link LeaseSpread}). Once a fair waiter is granted, its
 *       places are taken out (its leave, see {@link FairWaiters#granted}).</li>
 * </ol>
 *
 * <p>Phase 1 waits for the members that have not answered at most its patience
 * ({@link AcquireTiming#patienceMs}) once a majority answered, when the answers so far leave it open, and
 * is decided at the lease whoever answered; then they count as failed (a member that
 * died while its driver keeps its commands until its command timeout would otherwise hold every split
 * vote that long). Fewer than M granted: {@link NotGranted}. What one attempt holds and how it ended is
 * its {@link AcquireAttempt}'s.
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures. This
 * class is threadsafe: each call keeps its own state.
 */
final class QuorumAcquire {

    private static final int PUBLISH_ARG = 4;

    private final QuorumMembers members;
    private final QuorumEnlistment enlistment;
    private final Duration grace;
    private final FairWaiters fairWaiters;
    private final NotGranted notGranted;
    private final CommitPhase commitPhase;
    private final ReleaseResends resends;

    QuorumAcquire(
            QuorumMembers members,
            QuorumEnlistment enlistment,
            Duration grace,
            FairWaiters fairWaiters,
            ReleaseResends resends,
            LeaseSpread spread) {
        this.members = members;
        this.resends = resends;
        this.enlistment = enlistment;
        this.grace = grace;
        this.fairWaiters = fairWaiters;
        this.notGranted = new NotGranted(members);
        this.commitPhase = new CommitPhase(members, enlistment, grace, notGranted, spread);
    }

    /** acquire.lua over the quorum; see the class doc. */
    CompletableFuture<Object> acquire(LuaScript script, List<String> keys, List<String> args) {
        if (keys.size() < 5 || args.size() < 6) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("acquire takes 5 keys and 6 arguments"
                    + " (see acquire.lua's header), but got " + keys.size() + " keys and " + args.size()
                    + " arguments"));
        }
        boolean fair = args.size() >= 7;
        if (!"1".equals(args.get(5)) && !(fair && "0".equals(args.get(5)))) {
            return CompletableFuture.failedFuture(new IllegalStateException("a quorum keeps places only for fair"
                    + " waiters that name their waiter (ARGV[7]): acquire's place mode (ARGV[6]) must be '1', or '0'"
                    + " with a waiter, but was '" + args.get(5) + "' with " + args.size() + " arguments for lock '"
                    + keys.get(0) + "'"));
        }
        String prefix;
        try {
            prefix = prefixOf(keys.get(0));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return enlistment.ready(prefix).thenCompose(ready -> {
            QuorumUnavailableException refused = enlistment.refused(keys.get(0), prefix);
            if (refused != null) {
                return CompletableFuture.failedFuture(refused); // a member counted twice, or one that may evict
            }
            int takingPart = enlistment.mayTakePart(prefix);
            if (takingPart < members.majority()) {
                return CompletableFuture.failedFuture(enlistment.tooFewTakePart(keys.get(0), prefix, takingPart));
            }
            return phases(script, keys, args, prefix);
        });
    }

    private CompletableFuture<Object> phases(LuaScript script, List<String> keys, List<String> args, String prefix) {
        AcquireAttempt attempt;
        try {
            attempt = new AcquireAttempt(members, resends, keys, args, prefix, System.nanoTime());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        Tally phase1 = members.fanOut(
                phase1Script(attempt, script),
                phase1Keys(attempt),
                phase1Args(attempt),
                attempt.fair ? -1 : PUBLISH_ARG,
                a -> !a.failed() && Replies.status(a.reply(), 0) == 1,
                grace,
                Duration.ofMillis(AcquireTiming.patienceMs(attempt.leaseMs)),
                member -> {}, // skipped by the members; counted below from the tally
                late -> {
                    attempt.answeredLate(late.member());
                    if (!late.failed() && Replies.status(late.reply(), 0) == 1) {
                        commitPhase.lateGrant(attempt, late); // a grant that came after the decision
                    }
                });
        // no grant can come after the lease (less the drift): phase 1 is decided then, whoever answered
        QuorumTimer.Timeout giveUp = members.timer().after(Duration.ofMillis(attempt.leaseMs), phase1::giveUp);
        phase1.outcome().whenComplete((answers, failure) -> giveUp.cancel());
        return phase1.outcome()
                .thenCompose(answers -> {
                    phase1.waitedOut().forEach(attempt::waitedOut);
                    return decided(attempt, answers);
                })
                .thenApply(reply -> fairReply(attempt, reply))
                // whatever way the call ended (a reply it could not read, say), late clean-ups go out
                .whenComplete((reply, failure) -> attempt.ended());
    }

    /** Phase 1's script: the engine's acquire.lua, or for a fair waiter quorum-fair-acquire.lua. */
    private static LuaScript phase1Script(AcquireAttempt attempt, LuaScript acquire) {
        return attempt.fair ? FairPhaseOne.SCRIPT : acquire;
    }

    /** Phase 1's keys: the engine's, or for a fair waiter {@link FairPhaseOne#keys}. */
    private static List<String> phase1Keys(AcquireAttempt attempt) {
        return attempt.fair ? FairPhaseOne.keys(attempt.lockKey, attempt.keys.get(1)) : attempt.keys;
    }

    /** Phase 1's arguments: the engine's, or for a fair waiter the waiter and its ticket, if chosen. */
    private List<String> phase1Args(AcquireAttempt attempt) {
        if (!attempt.fair) {
            return attempt.args;
        }
        List<String> args = attempt.args;
        String ticket = attempt.waiter.isEmpty() ? "" : fairWaiters.attempt(attempt.waiter, attempt.owner);
        return FairPhaseOne.attemptArgs(attempt.owner, args.get(1), args.get(2), attempt.waiter, args.get(3), ticket);
    }

    /** Phase 1 decided: the commit once at least M granted, else not granted. */
    private CompletableFuture<Object> decided(AcquireAttempt attempt, List<Tally.Answer> answers) {
        AcquireAttempt.Grants grants = attempt.phase1Decided(answers);
        if (grants.members().size() >= members.majority()) {
            return commitPhase.commit(attempt, grants.members(), grants.maxToken() + 1, 1);
        }
        // the members that did not answer within phase 1's patience count as failed
        return notGranted.answer(attempt, answers, attempt.waitedOutSoFar());
    }

    /**
     * A fair waiter's reply: its ticket is chosen when it was not granted (see {@link FairWaiters}),
     * and it asks again soon enough to keep its places ({@link FairPhaseOne#askAgainWithin}).
     */
    private Object fairReply(AcquireAttempt attempt, Object reply) {
        if (!attempt.fair || attempt.waiter.isEmpty()) {
            return reply;
        }
        if (Replies.status(reply, 0) == 1) {
            String leaving = fairWaiters.granted(attempt.owner);
            if (leaving != null) {
                // its grants kept its places (quorum-fair-acquire.lua): out now, sent before the reply
                // goes to the engine, so that on each member's connection they precede its release
                FairPhaseOne.leave(members, attempt.lockKey, attempt.keys.get(1), leaving);
            }
            return reply;
        }
        fairWaiters.notGranted(attempt.waiter, attempt.phase1());
        return FairPhaseOne.askAgainWithin(reply, attempt.waiterLeaseMs);
    }

    /** The key prefix of {@code lockKey}, {@code <prefix>{<name>}}. */
    static String prefixOf(String lockKey) {
        int brace = lockKey.indexOf('{');
        if (brace < 0) {
            throw new IllegalArgumentException(
                    "a lock key must be '<prefix>{<name>}' (see LockKeys), but was '" + lockKey + "'");
        }
        return lockKey.substring(0, brace);
    }
}
