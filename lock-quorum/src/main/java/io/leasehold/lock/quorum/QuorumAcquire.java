package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * An acquisition over the quorum, in two phases (docs/design/quorum-locks.md, "Acquire"), once a
 * majority of the members may take part in grants (see {@link QuorumEnlistment}; else it fails with a
 * transient {@link QuorumUnavailableException} naming each member's standing) and no member breaks a
 * rule of the quorum's configuration (two members that are one server, a member that may evict keys: see
 * {@link MemberConfigCheck}; else it fails with a {@link QuorumUnavailableException} that is not
 * transient, naming the rule and the members, also when an enlistment during the commit finds it):
 *
 * <ol>
 *   <li><b>grant</b>: acquire.lua on every member, with the engine's keys and arguments (place mode
 *       {@code '1'}: a {@code lock(name)} waiter takes no place in a member's wait queue); for a fair
 *       waiter (place mode {@code '0'} with its waiter's id, or {@code '1'} and an id for one that will
 *       not wait), quorum-fair-acquire.lua, which grants only the head of the member's quorum queue and
 *       keeps the waiter's place there with the ticket {@link FairWaiters} chose for it (none on its
 *       first attempt: each member's own then, the largest of which becomes its ticket), also when it
 *       grants: such a grant lives only for a grant window (the waiter lease, 1.5 s), so that a waiter
 *       that dies before its commit holds the queue no longer than a dead single-master head;</li>
 *   <li><b>commit</b>, once at least M granted: quorum-commit.lua on the granting members with
 *       {@code T = max(tᵢ) + 1} and the value {@code <owner>:<tᵢ>} each granted; a member whose floor is
 *       not below T answers {@code {-1, floor}}, and the commit is sent again to every member of the
 *       attempt with {@code T' = max(floor, T) + 1} (at most {@value #COMMIT_ROUNDS} rounds); a member
 *       that takes no part ({@code {-2}}: it lost its data, or sits out, see {@link QuorumEnlistment})
 *       has the members enlisted anew, and the same grants are committed again. A fair waiter's commit
 *       sets the lease's TTL (quorum-commit.lua's ARGV[5]); once granted, the waiter's places are taken
 *       out (its leave, see {@link FairWaiters#granted}).</li>
 * </ol>
 *
 * <p>At least M committed: the reply is acquire.lua's granted reply {@code {1, T, pttl}} with
 * {@code pttl = min(pttlᵢ) - elapsed since phase 1 was sent - drift} (drift {@code 2 ms + 1 %} of the
 * lease, as the engine's validity); members of the attempt that did not commit, and phase-1 grants that
 * came after the decision, are released. Phase 1 waits for the members that have not answered at most
 * its patience ({@link #patienceMs}) once a majority answered, when the answers so far leave it open;
 * the commit at most the patience or twice phase 1's time, whichever is longer, from its send; then they count as failed
 * (a member that died while its driver keeps its commands until its command timeout would otherwise
 * hold every split vote that long). Fewer than M granted or committed, or no validity left (a
 * split vote): the owner is released on every member that granted or did not answer (waiting for the
 * releases to members that granted), and the reply is acquire.lua's contended reply
 * {@code {0, token, ttl, 0}}: the holder's token and TTL when a majority names the same holder, else a
 * random back-off of 1 to {@value #MAX_BACKOFF_MS} ms as the holder's TTL, after which the engine asks
 * again (step 1 keeps this simple back-off; the design's is 10 ms doubling to 200 ms). A majority failing:
 * the future fails (see {@link QuorumMembers#noMajority}). When the phases took the whole lease (less the
 * drift), whatever the members answered, the future fails with a transient
 * {@link QuorumUnavailableException} after the same clean-up: the members were too slow for the lease,
 * which is no contention (the engine's own "granted too late" is a backend failure too).
 *
 * <p>Every attempt comes with an owner of its own (the engine's switch for composed grants, R3), so the
 * clean-ups here, releases by owner, never meet a later attempt's lock. The clean-ups of an attempt
 * that was granted, or answered contended with a holder a majority named, are quiet (see
 * {@link Attempt#release}); a split vote's are still heard as any release (R9 is not built for them:
 * see the design's note on Q2 and Q3).
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures. This
 * class is threadsafe: each call keeps its own state.
 */
final class QuorumAcquire {

    static final LuaScript COMMIT = LuaScript.bundled(ScriptNames.QUORUM_COMMIT);
    static final LuaScript RELEASE = LuaScript.bundled(ScriptNames.RELEASE);

    /** How many times a commit is sent (the first, and its resends after a floor refused it). */
    static final int COMMIT_ROUNDS = 3;

    /** The bounds of {@link #patienceMs}. */
    static final long MIN_PATIENCE_MS = 100;

    static final long MAX_PATIENCE_MS = 1_000;

    /** The largest random back-off after a split vote, ms. */
    static final long MAX_BACKOFF_MS = 50;

    private static final int PUBLISH_ARG = 4;
    private static final int RELEASE_PUBLISH_ARG = 3;

    private final QuorumMembers members;
    private final QuorumEnlistment enlistment;
    private final Duration grace;
    private final FairWaiters fairWaiters;

    QuorumAcquire(QuorumMembers members, QuorumEnlistment enlistment, Duration grace, FairWaiters fairWaiters) {
        this.members = members;
        this.enlistment = enlistment;
        this.grace = grace;
        this.fairWaiters = fairWaiters;
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
        Attempt attempt;
        try {
            attempt = new Attempt(keys, args, prefix, System.nanoTime());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        Tally phase1 = members.fanOut(
                attempt.phase1Script(script),
                attempt.phase1Keys(),
                attempt.phase1Args(),
                attempt.fair ? -1 : PUBLISH_ARG,
                a -> !a.failed() && Replies.status(a.reply(), 0) == 1,
                grace,
                Duration.ofMillis(patienceMs(attempt.leaseMs)),
                member -> {}, // skipped by the members; counted below from the tally
                late -> {
                    attempt.answeredLate.add(late.member());
                    if (!late.failed() && Replies.status(late.reply(), 0) == 1) {
                        attempt.lateGrant(late); // a grant that came after the decision
                    }
                });
        // no grant can come after the lease (less the drift): phase 1 is decided then, whoever answered
        QuorumTimer.Timeout giveUp = members.timer().after(Duration.ofMillis(attempt.leaseMs), phase1::giveUp);
        phase1.outcome().whenComplete((answers, failure) -> giveUp.cancel());
        return phase1.outcome()
                .thenCompose(answers -> {
                    attempt.waitedOut.addAll(phase1.waitedOut());
                    return attempt.granted(answers);
                })
                .thenApply(attempt::fairReply)
                // whatever way the call ended (a reply it could not read, say), late clean-ups go out
                .whenComplete((reply, failure) -> {
                    attempt.quietCleanUps.complete(false);
                    attempt.grantedToken.complete(null);
                });
    }

    /** One acquisition: its keys and arguments, and what each member was last known to hold for it. */
    private final class Attempt {
        final List<String> keys;
        final List<String> args;
        final String lockKey;
        final String owner;
        final String prefix;
        final long leaseMs;
        final long started;
        /** Whether this is a fair waiter's attempt (ARGV[7] names its waiter): phase 1 is quorum-fair-acquire.lua. */
        final boolean fair;
        /** The fair waiter, or '' for a fair attempt that will not wait (takes no place); null when not fair. */
        final @Nullable String waiter;
        /** acquire.lua's waiter lease (ARGV[4]), ms. */
        final long waiterLeaseMs;

        final List<String> commitKeys;
        final List<String> releaseKeys;
        /** member → the value it was last known to hold for this attempt ({@code <owner>:<token>}). */
        final Map<Integer, String> held = new HashMap<>();
        /** member → its phase-1 value ({@code <owner>:<tᵢ>}), what a commit resent with the same token expects. */
        final Map<Integer, String> granted = new HashMap<>();
        /** The members a phase's patience waited out (phase 1's, and each commit round's): counted as failed. */
        final Set<Integer> waitedOut = ConcurrentHashMap.newKeySet();
        /** The members whose phase-1 answer came after phase 1 was decided. */
        final Set<Integer> answeredLate = ConcurrentHashMap.newKeySet();
        /** When phase 1 was decided ({@link System#nanoTime()}). */
        volatile long phase1Decided;
        /** Phase 1's answers, once decided. */
        volatile List<Tally.Answer> phase1 = List.of();
        /**
         * Whether this attempt's clean-ups are quiet (see {@link #release}), completed once its outcome is
         * known: a phase-1 grant that came after the decision waits for it, so that its clean-up is quiet
         * or heard as the outcome says, whatever order the late reply and the decision came in.
         */
        final CompletableFuture<Boolean> quietCleanUps = new CompletableFuture<>();
        /**
         * The token of the lease this attempt was granted, once it was; null once it ended otherwise. A
         * member whose phase-1 grant or commit came after the decision waits for it: the lease is committed
         * on it too (so that it lives on every member that answered, and survives a minority dying), or
         * the member is released.
         */
        final CompletableFuture<@Nullable Long> grantedToken = new CompletableFuture<>();

        Attempt(List<String> keys, List<String> args, String prefix, long started) {
            this.prefix = prefix;
            this.keys = keys;
            this.args = args;
            this.lockKey = keys.get(0);
            this.owner = args.get(0);
            this.started = started;
            try {
                this.leaseMs = Long.parseLong(args.get(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "acquire's lease (ARGV[2]) must be an integer, but was '" + args.get(1) + "'", e);
            }
            try {
                this.waiterLeaseMs = Long.parseLong(args.get(3));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "acquire's waiter lease (ARGV[4]) must be an integer, but was '" + args.get(3) + "'", e);
            }
            this.fair = args.size() >= 7;
            this.waiter = !fair ? null : "0".equals(args.get(5)) ? args.get(6) : "";
            this.commitKeys = List.of(lockKey, keys.get(1), LockKeys.quorumRecordKey(prefix));
            List<String> release = new ArrayList<>(keys.subList(0, 5));
            release.add(lockKey + ":yielded"); // LockKeys.yieldMarkerKey of the name
            this.releaseKeys = List.copyOf(release);
        }

        /** Phase 1's script: the engine's acquire.lua, or for a fair waiter quorum-fair-acquire.lua. */
        LuaScript phase1Script(LuaScript acquire) {
            return fair ? FairPhaseOne.SCRIPT : acquire;
        }

        /** Phase 1's keys: the engine's, or for a fair waiter {@link FairPhaseOne#keys}. */
        List<String> phase1Keys() {
            return fair ? FairPhaseOne.keys(lockKey, keys.get(1)) : keys;
        }

        /** Phase 1's arguments: the engine's, or for a fair waiter the waiter and its ticket, if chosen. */
        List<String> phase1Args() {
            if (!fair) {
                return args;
            }
            String ticket = waiter.isEmpty() ? "" : fairWaiters.attempt(waiter, owner);
            return FairPhaseOne.attemptArgs(owner, args.get(1), args.get(2), waiter, args.get(3), ticket);
        }

        /**
         * A fair waiter's reply: its ticket is chosen when it was not granted (see {@link FairWaiters}),
         * and it asks again soon enough to keep its places ({@link FairPhaseOne#askAgainWithin}).
         */
        Object fairReply(Object reply) {
            if (!fair || waiter.isEmpty()) {
                return reply;
            }
            if (Replies.status(reply, 0) == 1) {
                String leaving = fairWaiters.granted(owner);
                if (leaving != null) {
                    // its grants kept its places (quorum-fair-acquire.lua): out now, sent before the reply
                    // goes to the engine, so that on each member's connection they precede its release
                    FairPhaseOne.leave(members, lockKey, keys.get(1), leaving);
                }
                return reply;
            }
            fairWaiters.notGranted(waiter, phase1);
            return FairPhaseOne.askAgainWithin(reply, waiterLeaseMs);
        }

        /** Phase 1 decided. */
        CompletableFuture<Object> granted(List<Tally.Answer> answers) {
            phase1 = answers;
            phase1Decided = System.nanoTime();
            long maxToken = 0;
            List<Integer> granting = new ArrayList<>();
            synchronized (this) {
                for (Tally.Answer a : answers) {
                    if (!a.failed() && Replies.status(a.reply(), 0) == 1) {
                        long token = Replies.asLong(
                                Replies.list(a.reply(), "acquire").get(1), "acquire");
                        held.put(a.member(), owner + ":" + token);
                        granted.put(a.member(), owner + ":" + token);
                        granting.add(a.member());
                        maxToken = Math.max(maxToken, token);
                    }
                }
            }
            if (granting.size() >= members.majority()) {
                return commit(granting, maxToken + 1, 1);
            }
            // the members that did not answer within phase 1's patience count as failed
            return notGranted(answers, Set.copyOf(waitedOut));
        }

        /** Phase 2: quorum-commit.lua with {@code token} on the {@code attempt}'s members. */
        CompletableFuture<Object> commit(List<Integer> attempt, long token, int round) {
            Map<Integer, String> expected;
            synchronized (this) {
                expected = new HashMap<>(held);
                // a member that committed this very token in an earlier round (the commit resent after a
                // member was found not taking part) is sent its phase-1 value: quorum-commit.lua answers
                // committed where it holds <owner>:<T> already, and refuses <owner>:<T> as the value expected
                String committedValue = owner + ":" + token;
                expected.replaceAll((m, value) -> value.equals(committedValue) ? granted.get(m) : value);
            }
            Tally tally = Tally.fanOut(
                    members.timer(),
                    attempt.size(),
                    members.majority(),
                    j -> commitOn(attempt.get(j), expected.get(attempt.get(j)), token),
                    a -> !a.failed() && Replies.status(a.reply(), 0) == 1,
                    grace,
                    // from the send: every member of the attempt answered phase 1 just now, so one silent
                    // for a quarter of the lease (at least the patience) is taken for dead
                    Duration.ofMillis(Math.max(patienceMs(leaseMs), leaseMs / 4)),
                    0,
                    j -> members.silent(attempt.get(j)),
                    late -> lateCommit(attempt.get(late.member()), token, late));
            return tally.outcome().thenCompose(byIndex -> {
                tally.waitedOut().forEach(j -> waitedOut.add(attempt.get(j)));
                List<Tally.Answer> answers = byIndex.stream()
                        .map(a -> new Tally.Answer(attempt.get(a.member()), a.reply(), a.failure()))
                        .toList();
                return committed(attempt, token, round, answers);
            });
        }

        private CompletableFuture<Object> committed(
                List<Integer> attempt, long token, int round, List<Tally.Answer> answers) {
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
                            lockKey));
                } else if (status == -2) {
                    notTakingPart = true;
                    enlistment.notTakingPart(prefix, a.member()); // it lost its data, or sits out: enlisted again
                } else if (status == -1) {
                    refused = true;
                    maxFloor = Math.max(maxFloor, Replies.asLong(reply.get(1), "quorum-commit"));
                }
            }
            synchronized (this) {
                committed.forEach(m -> held.put(m, owner + ":" + token));
            }
            if (mismatch != null) {
                IllegalStateException misconfigured = mismatch;
                return notGranted(answers, Set.of()).handle((ignored, failure) -> {
                    throw new CompletionException(misconfigured); // after the clean-up, whatever it answered
                });
            }
            if (committed.size() >= members.majority()) {
                long pttl = minPttl - elapsedMs() - driftMs(leaseMs);
                if (pttl > 0) {
                    quietCleanUps.complete(true);
                    grantedToken.complete(token);
                    for (Tally.Answer a : answers) {
                        if (!committed.contains(a.member())) {
                            release(a.member()); // it holds a phase-1 value of this owner, not the quorum's token
                        }
                    }
                    // a member of the attempt that has not answered yet is judged by its late answer
                    return CompletableFuture.completedFuture(List.of(1L, token, pttl));
                }
            } else if ((refused || notTakingPart) && round < COMMIT_ROUNDS) {
                // a floor above T: commit above it; a member found not taking part (this client's standings
                // were out of date): commit the same grants again once the members are enlisted anew
                long next = refused ? Math.max(maxFloor, token) + 1 : token;
                CompletableFuture<Void> enlisted =
                        notTakingPart ? enlistment.ready(prefix) : CompletableFuture.completedFuture(null);
                return enlisted.thenCompose(ignored -> {
                    QuorumUnavailableException brokenRule = enlistment.refused(lockKey, prefix);
                    if (brokenRule == null) {
                        return commit(attempt, next, round + 1);
                    }
                    // the enlistment found a member that breaks a rule: nothing is committed, the grants go
                    return notGranted(answers, Set.of()).handle((reply, failure) -> {
                        throw new CompletionException(brokenRule);
                    });
                });
            }
            return notGranted(answers, silentOrFailedInPhase1());
        }

        /**
         * The members that count as failed for a commit's majority rule besides its own failures: those a
         * patience waited out (phase 1's or a commit's), those that failed phase 1, and those that have not
         * answered phase 1 yet although it was decided at least a patience ago (they were waited for as
         * long as phase 1 would have). A member only behind the grace of a decided phase 1, or not awaited
         * because a commit's tally was decided without it, is not counted.
         */
        private Set<Integer> silentOrFailedInPhase1() {
            Set<Integer> counted = new java.util.HashSet<>(waitedOut);
            Set<Integer> answered = new java.util.HashSet<>();
            for (Tally.Answer a : phase1) {
                answered.add(a.member());
                if (a.failed()) {
                    counted.add(a.member());
                }
            }
            boolean waitedLongEnough =
                    System.nanoTime() - phase1Decided >= TimeUnit.MILLISECONDS.toNanos(patienceMs(leaseMs));
            for (int m = 0; m < members.size() && waitedLongEnough; m++) {
                if (!answered.contains(m) && !answeredLate.contains(m)) {
                    counted.add(m);
                }
            }
            return counted;
        }

        /** quorum-commit.lua on {@code member}: {@code expected} is what it was last known to hold. */
        private CompletableFuture<Object> commitOn(int member, String expected, long token) {
            List<String> commitArgs = new ArrayList<>(
                    List.of(expected, Long.toString(token), args.get(2), Long.toString(enlistment.maxLeaseMs())));
            if (fair && !waiter.isEmpty()) {
                commitArgs.add(args.get(1)); // a waiter's phase-1 grant lives for a grant window: the lease now
            }
            return members.eval(member, COMMIT, commitKeys, commitArgs, -1);
        }

        /**
         * A phase-1 grant that came after phase 1 was decided: committed with the lease's token once the
         * attempt was granted (released if that commit fails or is refused), else released.
         */
        void lateGrant(Tally.Answer late) {
            int member = late.member();
            String value = owner + ":"
                    + Replies.asLong(Replies.list(late.reply(), "acquire").get(1), "acquire");
            synchronized (this) {
                held.put(member, value);
                granted.put(member, value);
            }
            grantedToken.thenAccept(token -> {
                if (token == null) {
                    release(member);
                    return;
                }
                commitOn(member, value, token).whenComplete((reply, failure) -> {
                    if (failure != null || Replies.status(reply, 0) != 1) {
                        release(member);
                    }
                });
            });
        }

        /**
         * A commit's answer that came after its round was decided: kept when the attempt was granted with
         * this round's token and the member committed; else the member is released, unless the attempt
         * was granted with another round's token (the member then answered that round too).
         */
        private void lateCommit(int member, long token, Tally.Answer late) {
            boolean committed = !late.failed() && Replies.status(late.reply(), 0) == 1;
            grantedToken.thenAccept(granted -> {
                if (granted == null || (granted == token && !committed)) {
                    release(member);
                }
            });
        }

        /**
         * A split vote, or a majority failing: releases this owner on every member that did not answer
         * phase 1 as contended (waiting for those that answered {@code last}, the answers of the phase
         * that decided), then answers contended from phase 1's contended replies, or fails when too many
         * of {@code last} failed, counting the members {@code alsoFailed} too (each member once).
         */
        private CompletableFuture<Object> notGranted(List<Tally.Answer> last, Set<Integer> alsoFailed) {
            List<Tally.Answer> first = phase1;
            List<Integer> contended = first.stream()
                    .filter(a -> !a.failed() && Replies.status(a.reply(), 0) != 1)
                    .map(Tally.Answer::member)
                    .toList();
            List<Integer> answered = last.stream()
                    .filter(a -> !a.failed())
                    .map(Tally.Answer::member)
                    .toList();
            List<Object> holder = ContendedReplies.majorityHolder(first, members.majority());
            quietCleanUps.complete(holder != null); // before the clean-ups it decides on
            List<CompletableFuture<Object>> settled = new ArrayList<>();
            for (int m = 0; m < members.size(); m++) {
                if (contended.contains(m)) {
                    continue;
                }
                CompletableFuture<Object> release = release(m);
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
                Throwable failure = members.noMajority(lockKey, "acquire", last);
                return all.thenCompose(ignored -> CompletableFuture.failedFuture(failure));
            }
            long elapsedMs = elapsedMs();
            if (elapsedMs >= leaseMs - driftMs(leaseMs)) {
                // Not contention: the members were too slow for the lease (a grant can have run out before
                // its commit, or left no validity): a transient failure, as the engine's own grant too late
                QuorumUnavailableException slow = new QuorumUnavailableException(
                        "the quorum could not grant lock '" + lockKey + "' within its lease: the two phases took "
                                + elapsedMs + " ms of a " + leaseMs + " ms lease",
                        true);
                return all.thenCompose(ignored -> CompletableFuture.failedFuture(slow));
            }
            List<Object> reply = holder != null ? holder : ContendedReplies.splitVote(first);
            return all.thenApply(ignored -> reply);
        }

        /** Milliseconds since phase 1 was sent, rounded up. */
        long elapsedMs() {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started + 999_999);
        }

        /**
         * Releases this attempt's owner on {@code member} (release.lua). Quietly (see
         * {@link QuorumMembers#evalQuietly}) once the attempt was granted, or answered contended with a
         * holder that a majority named: nobody waits for such a clean-up, and a waiter of this very
         * client would hear it as a release racing its ask and ask again at once, for as long as the
         * holder's lease lasts (a lease held on exactly M members makes every ask a grant on the
         * others). After a split vote it is heard, as any release (see the design's Q2 note: waiters
         * that took phase-1 grants of several attempts for one holder wait for such a message).
         */
        CompletableFuture<Object> release(int member) {
            List<String> releaseArgs = List.of(owner, args.get(2), args.get(3), QuorumMembers.PUBLISH, args.get(1));
            return quietCleanUps.thenCompose(quiet -> quiet
                    ? members.evalQuietly(member, RELEASE, releaseKeys, releaseArgs, RELEASE_PUBLISH_ARG)
                    : members.eval(member, RELEASE, releaseKeys, releaseArgs, RELEASE_PUBLISH_ARG));
        }
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

    /**
     * How long phase 1 waits, once a majority answered, for the members that have not answered when the
     * answers so far leave the vote open (the least a commit waits from its send): a tenth of the lease, from {@value #MIN_PATIENCE_MS} ms to {@value #MAX_PATIENCE_MS} ms (Redlock's
     * "a timeout small compared to the auto-release time"). Then the silent members count as failed: the
     * attempt ends as a split vote, releases everywhere and asks again after its back-off, instead of
     * waiting for a dead member's command timeout (a minute by Lettuce's default); a minority member that
     * is only slower than that costs one more attempt, and is skipped for a second.
     */
    static long patienceMs(long leaseMs) {
        return Math.max(MIN_PATIENCE_MS, Math.min(MAX_PATIENCE_MS, leaseMs / 10));
    }

    /** The drift allowance of a lease of {@code leaseMs}: 2 ms + 1 % (as the engine's validity). */
    static long driftMs(long leaseMs) {
        return 2 + leaseMs / 100;
    }
}
