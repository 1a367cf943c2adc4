package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Phase 2 of an acquisition over the quorum (see {@link QuorumAcquire}), once at least M granted:
 * quorum-commit.lua on the granting members with {@code T = max(tᵢ) + 1} and the value
 * {@code <owner>:<tᵢ>} each granted; a member whose floor is not below T answers {@code {-1, floor}}, and
 * the commit is sent again to every member of the attempt with {@code T' = max(floor, T) + 1} (at most
 * {@value #ROUNDS} rounds); a member that takes no part ({@code {-2}}: it lost its data, or sits out, see
 * {@link QuorumEnlistment}) has the members enlisted anew (by an enlistment that starts after its answer,
 * waited for as long as a commit waits for its members, at most {@value AcquireTiming#MAX_PATIENCE_MS} ms),
 * and the same grants are committed again. A fair
 * waiter's commit sets the lease's TTL (quorum-commit.lua's ARGV[5]).
 *
 * <p>At least M committed: the reply is acquire.lua's granted reply {@code {1, T, pttl}} with
 * {@code pttl = min(pttlᵢ) - elapsed since phase 1 was sent - drift} (drift {@code 2 ms + 1 %} of the
 * lease, as the engine's validity: {@link AcquireTiming#driftMs}); members of the attempt that did not
 * commit, and phase-1 grants that came after the decision, are released; members that answered phase 1
 * "held" get the lease put on them as they free up ({@link LeaseSpread}). A commit waits at most a quarter
 * of the lease or the patience ({@link AcquireTiming#patienceMs}), whichever is longer, from its send;
 * then the members that have not answered count as failed. Fewer than M committed, or no validity left:
 * {@link NotGranted}. A member that breaks a rule of the quorum's configuration, found by an enlistment
 * during the commit, or a member that records another largest lease than this client's: the future
 * fails after the same clean-up.
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures. This
 * class is threadsafe: it keeps no state of its own (an attempt's is its {@link AcquireAttempt}'s).
 */
final class CommitPhase {

    static final LuaScript SCRIPT = LuaScript.bundled(ScriptNames.QUORUM_COMMIT);

    /** How many times a commit is sent (the first, and its resends after a floor refused it). */
    static final int ROUNDS = 3;

    private final QuorumMembers members;
    private final QuorumEnlistment enlistment;
    private final Duration grace;
    private final NotGranted notGranted;
    private final LeaseSpread spread;

    CommitPhase(
            QuorumMembers members,
            QuorumEnlistment enlistment,
            Duration grace,
            NotGranted notGranted,
            LeaseSpread spread) {
        this.members = members;
        this.enlistment = enlistment;
        this.grace = grace;
        this.notGranted = notGranted;
        this.spread = spread;
    }

    /** quorum-commit.lua with {@code token} on the members {@code granting}, in {@code round} (from 1). */
    CompletableFuture<Object> commit(AcquireAttempt attempt, List<Integer> granting, long token, int round) {
        Map<Integer, String> expected = attempt.expectedFor(token);
        Tally tally = Tally.fanOut(
                members.timer(),
                granting.size(),
                members.majority(),
                j -> commitOn(attempt, granting.get(j), expected.get(granting.get(j)), token),
                a -> !a.failed() && Replies.status(a.reply(), 0) == 1,
                grace,
                // from the send: every member of the attempt answered phase 1 just now, so one silent
                // for a quarter of the lease (at least the patience) is taken for dead
                Duration.ofMillis(memberWaitMs(attempt)),
                0,
                j -> members.silent(granting.get(j)),
                late -> lateCommit(attempt, granting.get(late.member()), token, late));
        return tally.outcome().thenCompose(byIndex -> {
            tally.waitedOut().forEach(j -> attempt.waitedOut(granting.get(j)));
            List<Tally.Answer> answers = byIndex.stream()
                    .map(a -> new Tally.Answer(granting.get(a.member()), a.reply(), a.failure()))
                    .toList();
            return committed(attempt, granting, token, round, answers);
        });
    }

    private CompletableFuture<Object> committed(
            AcquireAttempt attempt, List<Integer> granting, long token, int round, List<Tally.Answer> answers) {
        long minPttl = Long.MAX_VALUE;
        long maxFloor = 0;
        List<Integer> committed = new ArrayList<>();
        boolean refused = false;
        boolean notTakingPart = false;
        IllegalStateException mismatch = null;
        for (Tally.Answer a : answers) {
            if (a.failed()) {
                continue;
            }
            List<?> reply = Replies.list(a.reply(), "quorum-commit");
            long status = Replies.asLong(reply.get(0), "quorum-commit");
            if (status == 1) {
                committed.add(a.member());
                minPttl = Math.min(minPttl, Replies.asLong(reply.get(1), "quorum-commit"));
            } else if (status == -3) {
                long recorded = Replies.asLong(reply.get(1), "quorum-commit");
                mismatch = new IllegalStateException(String.format(
                        "the clients of a quorum must agree on its largest lease: this client's maxLeaseTime"
                                + " is %s, but member %d (%s) holds %s (lock '%s')",
                        Duration.ofMillis(enlistment.maxLeaseMs()),
                        a.member(),
                        members.get(a.member()),
                        Duration.ofMillis(recorded),
                        attempt.lockKey));
            } else if (status == -2) {
                notTakingPart = true;
                enlistment.notTakingPart(attempt.prefix, a.member()); // it lost its data, or sits out: enlisted again
            } else if (status == -1) {
                refused = true;
                maxFloor = Math.max(maxFloor, Replies.asLong(reply.get(1), "quorum-commit"));
            }
        }
        attempt.committed(committed, token);
        if (mismatch != null) {
            IllegalStateException misconfigured = mismatch;
            return notGranted.answer(attempt, answers, Set.of()).handle((ignored, failure) -> {
                throw new CompletionException(misconfigured); // after the clean-up, whatever it answered
            });
        }
        if (committed.size() >= members.majority()) {
            long pttl = minPttl - attempt.elapsedMs() - AcquireTiming.driftMs(attempt.leaseMs);
            if (pttl > 0) {
                attempt.granted(token);
                for (Tally.Answer a : answers) {
                    if (!committed.contains(a.member())) {
                        attempt.release(a.member()); // it holds a phase-1 value of this owner, not the quorum's token
                    }
                }
                // a member of the attempt that has not answered yet is judged by its late answer; one
                // that answered phase 1 "held" gets the lease once it frees up (F12)
                spread.spread(attempt, token, pttl, heldInPhase1(attempt));
                return CompletableFuture.completedFuture(List.of(1L, token, pttl));
            }
        } else if ((refused || notTakingPart) && round < ROUNDS) {
            // a floor above T: commit above it; a member found not taking part (this client's standings
            // were out of date): commit the same grants again once the members are enlisted anew
            long next = refused ? Math.max(maxFloor, token) + 1 : token;
            // (on new probes: while a majority still took part as this client knew it, the commit was
            // sent again at once to the same member, and a member's broken rule went unseen), waited for
            // as long as a commit waits for its members, at most the longest patience: an enlistment
            // waits for every member's probe, and one member silent must not hold the acquisition, nor
            // a closed quorum's caller, whatever the lease (the enlistment goes on behind it)
            CompletableFuture<Void> enlisted = notTakingPart
                    ? enlistment
                            .enlistAnew(attempt.prefix)
                            .completeOnTimeout(
                                    null,
                                    Math.min(memberWaitMs(attempt), AcquireTiming.MAX_PATIENCE_MS),
                                    TimeUnit.MILLISECONDS)
                    : CompletableFuture.completedFuture(null);
            return enlisted.thenCompose(ignored -> {
                QuorumUnavailableException brokenRule = enlistment.refused(attempt.lockKey, attempt.prefix);
                if (brokenRule == null) {
                    return commit(attempt, granting, next, round + 1);
                }
                // the enlistment found a member that breaks a rule: nothing is committed, the grants go
                return notGranted.answer(attempt, answers, Set.of()).handle((reply, failure) -> {
                    throw new CompletionException(brokenRule);
                });
            });
        }
        return notGranted.answer(attempt, answers, attempt.silentOrFailedInPhase1());
    }

    /** The members that answered phase 1 without granting: held by another owner (or its own copy on its way out). */
    private static Set<Integer> heldInPhase1(AcquireAttempt attempt) {
        Set<Integer> held = new java.util.HashSet<>();
        for (Tally.Answer a : attempt.phase1()) {
            if (!a.failed() && Replies.status(a.reply(), 0) != 1) {
                held.add(a.member());
            }
        }
        return held;
    }

    /** How long a commit waits for its members, from its send: a quarter of the lease, at least the patience. */
    private static long memberWaitMs(AcquireAttempt attempt) {
        return Math.max(AcquireTiming.patienceMs(attempt.leaseMs), attempt.leaseMs / 4);
    }

    /** quorum-commit.lua on {@code member}: {@code expected} is what it was last known to hold. */
    private CompletableFuture<Object> commitOn(AcquireAttempt attempt, int member, String expected, long token) {
        List<String> commitArgs = new ArrayList<>(
                List.of(expected, Long.toString(token), attempt.args.get(2), Long.toString(enlistment.maxLeaseMs())));
        if (attempt.fair && !attempt.waiter.isEmpty()) {
            commitArgs.add(attempt.args.get(1)); // a waiter's phase-1 grant lives for a grant window: the lease now
        }
        return members.eval(member, SCRIPT, attempt.commitKeys, commitArgs, -1);
    }

    /**
     * A phase-1 grant that came after phase 1 was decided: committed with the lease's token once the
     * attempt was granted (released if that commit fails or is refused), else released.
     */
    void lateGrant(AcquireAttempt attempt, Tally.Answer late) {
        int member = late.member();
        String value = attempt.owner + ":"
                + Replies.asLong(Replies.list(late.reply(), "acquire").get(1), "acquire");
        attempt.grantedLate(member, value);
        attempt.whenGrantedOrEnded(token -> {
            if (token == null) {
                attempt.release(member);
                return;
            }
            commitOn(attempt, member, value, token).whenComplete((reply, failure) -> {
                if (failure != null || Replies.status(reply, 0) != 1) {
                    attempt.release(member);
                }
            });
        });
    }

    /**
     * A commit's answer that came after its round was decided: kept when the attempt was granted with
     * this round's token and the member committed; else the member is released, unless the attempt
     * was granted with another round's token (the member then answered that round too).
     */
    private void lateCommit(AcquireAttempt attempt, int member, long token, Tally.Answer late) {
        boolean committed = !late.failed() && Replies.status(late.reply(), 0) == 1;
        attempt.whenGrantedOrEnded(granted -> {
            if (granted == null || (granted == token && !committed)) {
                attempt.release(member);
            }
        });
    }
}
