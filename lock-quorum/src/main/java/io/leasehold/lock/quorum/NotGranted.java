package io.leasehold.lock.quorum;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The answer of an acquisition over the quorum that was not granted (see {@link QuorumAcquire}): fewer
 * than M granted or committed, or no validity left (a split vote). The owner is released on every member
 * that granted or did not answer (waiting for the releases to members that granted), and the reply is
 * acquire.lua's contended reply {@code {0, token, ttl, 0}}: the holder's token and TTL when a majority
 * names the same holder, else a random back-off of 1 to {@value ContendedReplies#MAX_BACKOFF_MS} ms as the
 * holder's TTL, after which the engine asks again (step 1 keeps this simple back-off; the design's is
 * 10 ms doubling to 200 ms; see {@link ContendedReplies}). A majority failing: the future fails (see
 * {@link QuorumMembers#noMajority}). When the phases took the whole lease (less the drift), whatever the
 * members answered, the future fails with a transient {@link QuorumUnavailableException} after the same
 * clean-up: the members were too slow for the lease, which is no contention (the engine's own "granted
 * too late" is a backend failure too).
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures. This
 * class is threadsafe: it keeps no state of its own (an attempt's is its {@link AcquireAttempt}'s).
 */
final class NotGranted {

    private final QuorumMembers members;

    NotGranted(QuorumMembers members) {
        this.members = members;
    }

    /**
     * A split vote, or a majority failing: releases the {@code attempt}'s owner on every member that did
     * not answer phase 1 as contended (waiting for those that answered {@code last}, the answers of the
     * phase that decided), then answers contended from phase 1's contended replies, or fails when too
     * many of {@code last} failed, counting the members {@code alsoFailed} too (each member once).
     */
    CompletableFuture<Object> answer(AcquireAttempt attempt, List<Tally.Answer> last, Set<Integer> alsoFailed) {
        List<Tally.Answer> first = attempt.phase1();
        List<Integer> contended = first.stream()
                .filter(a -> !a.failed() && Replies.status(a.reply(), 0) != 1)
                .map(Tally.Answer::member)
                .toList();
        List<Integer> answered =
                last.stream().filter(a -> !a.failed()).map(Tally.Answer::member).toList();
        List<Object> holder = ContendedReplies.majorityHolder(first, members.majority());
        attempt.notGranted(holder != null); // before the clean-ups it decides on
        List<CompletableFuture<Object>> settled = new ArrayList<>();
        for (int m = 0; m < members.size(); m++) {
            if (contended.contains(m)) {
                continue;
            }
            CompletableFuture<Object> release = attempt.release(m);
            if (answered.contains(m)) {
                settled.add(release); // a member that answers: its release settles before the reply
            }
        }
        Set<Integer> failed = new java.util.HashSet<>(alsoFailed);
        last.stream().filter(Tally.Answer::failed).forEach(a -> failed.add(a.member()));
        long failures = failed.size();
        boolean noMajority = failures >= members.size() - members.majority() + 1;
        CompletableFuture<Void> all = CompletableFuture.allOf(settled.toArray(CompletableFuture[]::new))
                .exceptionally(ignored -> null);
        if (noMajority) {
            Throwable failure = members.noMajority(attempt.lockKey, "acquire", last);
            return all.thenCompose(ignored -> CompletableFuture.failedFuture(failure));
        }
        long elapsedMs = attempt.elapsedMs();
        if (elapsedMs >= attempt.leaseMs - AcquireTiming.driftMs(attempt.leaseMs)) {
            // Not contention: the members were too slow for the lease (a grant can have run out before
            // its commit, or left no validity): a transient failure, as the engine's own grant too late
            QuorumUnavailableException slow = new QuorumUnavailableException(
                    "the quorum could not grant lock '" + attempt.lockKey + "' within its lease: the two phases took "
                            + elapsedMs + " ms of a " + attempt.leaseMs + " ms lease",
                    true);
            return all.thenCompose(ignored -> CompletableFuture.failedFuture(slow));
        }
        List<Object> reply = holder != null ? holder : ContendedReplies.splitVote(first);
        return all.thenApply(ignored -> reply);
    }
}
