package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Which members take part in grants, and the steps that bring back a member that lost its data
 * (docs/design/quorum-locks.md, "A node that lost its data"), through quorum-enlist.lua on each
 * member's quorum record:
 *
 * <ol>
 *   <li>every member is <b>probed</b>: no record, a record of another server process (its {@code run_id}
 *       changed: a restart, a failover), sitting out, awaiting its seed, or taking part;</li>
 *   <li>members <b>join</b> at once, seeded, only when every member answered that it holds no record:
 *       a new quorum (a member whose record key holds a value Leasehold did not write holds no record of
 *       ours: it does not keep the others from joining, takes no part, and is named in the error of an
 *       acquisition it keeps from a majority); each join names the server process ({@code run_id}) its probe answered from, so that
 *       a join replayed or delayed past a restart does not make a wiped member take part. A member without a record while another holds one (or did not answer) either
 *       never joined or lost its data: it is left out for a moment (a new quorum's joins may still be on
 *       their way to it), then, if still without a record, <b>reset</b> as a member whose record is
 *       another server process's: it sits out for the restart delay, by its own clock (Redlock's
 *       delayed restart), so that every lease it may have granted has run out before it grants again,
 *       its floor raised to the largest floor read (another member may lose its data before this one is
 *       seeded, and the token of a lease committed on the two only must not be forgotten);</li>
 *   <li>a member whose delay is over is <b>seeded</b>: its floor raised to the largest floor of the
 *       members taking part, read after its reset, when at least N − M + 1 of them answered (they then
 *       share a member with the majority of every token committed before: the tokens keep rising); or,
 *       when fewer take part but every member answered, to the largest floor of all (it shares a member
 *       with that majority when a minority lost its data). Else it waits for the next enlistment.</li>
 * </ol>
 *
 * <p>The restart delay is the quorum's largest lease plus the drift allowance ({@link LeaseCap} refuses
 * any longer lease): this client's, or the largest a member's record holds if that is longer. Each record
 * holds the largest lease of the client that joined or reset it, and quorum-commit.lua refuses a client
 * configured otherwise, so no lease outlasts the delay. What this cannot tell: a majority of the members losing their data at once looks
 * like a new quorum when no member holds a record any more (leases held at that moment could then be
 * granted again); the fault model of a quorum is a minority failing. A new quorum with a member down
 * cannot tell it from one whose member lost its data: its members sit out the delay, and are seeded once
 * every member answers.
 *
 * <p><b>Configuration.</b> The probes' answers are checked first ({@link MemberConfigCheck}: two members
 * answering the same {@code run_id} are one server; a member whose {@code maxmemory} is above 0 without
 * {@code noeviction} may evict lease keys). While a member breaks a rule, no step is taken on any member,
 * the members at fault are {@link Roster.Standing#REFUSED} (probed again after {@link #RETRY_NANOS}), and
 * {@link #refused} gives the failure of every acquisition.
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures. The
 * standings are kept per key prefix in a {@link Roster} each. Threadsafe.
 */
final class QuorumEnlistment {

    static final LuaScript ENLIST = LuaScript.bundled(ScriptNames.QUORUM_ENLIST);

    /** How long a member that did not answer, or awaits a seed it could not have, is left before it is asked again. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** How long a member found without a record while another holds one is left before it is reset. */
    static final long EMPTY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /**
     * How many times {@link #ready} waits for members found without a record: the first wait ends when
     * they are due, and the enlistment then joins or resets them; one more covers an enlistment of
     * another caller that was running when they became due.
     */
    static final int SETTLE_ROUNDS = 3;

    private static final int NO_RECORD = 0;
    private static final int ANOTHER_PROCESS = 1;
    private static final int SITTING_OUT = 2;
    private static final int AWAITING_SEED = 3;
    private static final int TAKING_PART = 4;
    /**
     * Not the script's: a member whose script call failed because its record key holds a value Leasehold
     * did not write (quorum-enlist.lua's "holds a value that is not a Leasehold quorum record", or a
     * record whose floor is no integer); {@link #step} answers it as {@code {FOREIGN, 0, 0, 0, "", what}}.
     */
    private static final int FOREIGN = -2;

    private final QuorumMembers members;
    private final MemberConfigCheck check;
    private final long maxLeaseMs;
    private final ConcurrentMap<String, Roster> rosters = new ConcurrentHashMap<>();

    QuorumEnlistment(QuorumMembers members, long maxLeaseMs) {
        this.members = members;
        this.check = new MemberConfigCheck(members);
        this.maxLeaseMs = maxLeaseMs;
    }

    /** This client's largest lease, ms, which joins and resets write into a member's record. */
    long maxLeaseMs() {
        return maxLeaseMs;
    }

    /** How long a member that lost its data sits out: the largest lease plus its drift allowance. */
    static long restartDelayMs(long maxLeaseMs) {
        return maxLeaseMs + AcquireTiming.driftMs(maxLeaseMs);
    }

    /**
     * Completes once a majority of the members takes part in grants of {@code prefix}'s locks as far as
     * this client knows, or an enlistment has run (see {@link Roster#ready}); never fails. When the
     * enlistment found members without a record that would make a majority (a new quorum whose other
     * clients' joins are on their way to them), it waits until they are due and enlists them again, at
     * most {@link #SETTLE_ROUNDS} times: by then each has a record (joined) or has been reset, so the
     * wait is bounded by about {@link #EMPTY_NANOS} and an enlistment's round trips.
     */
    CompletableFuture<Void> ready(String prefix) {
        return ready(prefix, roster(prefix), SETTLE_ROUNDS);
    }

    private CompletableFuture<Void> ready(String prefix, Roster roster, int rounds) {
        return roster.ready(members.majority(), System.nanoTime(), () -> enlist(prefix, roster))
                .thenCompose(ignored -> {
                    long wait = roster.untilEmptyDue(members.majority(), System.nanoTime());
                    if (wait < 0 || rounds == 0) {
                        return CompletableFuture.completedFuture(null);
                    }
                    // without this wait, every client that probed a new quorum while the first client's
                    // joins were on their way failed with "1 of 3 members take part" (F4)
                    Executor due = CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS);
                    return CompletableFuture.runAsync(() -> {}, due)
                            .thenCompose(dueNow -> ready(prefix, roster, rounds - 1));
                });
    }

    /**
     * Completes once an enlistment that started after this call has run (see {@link Roster#enlistAnew}),
     * and the members it found without a record have settled as in {@link #ready}; never fails. For a
     * commit that a member answered it takes no part: what this client knew of the standings (and of
     * the members' configuration) is out of date, so the commit is sent again only on new probes.
     */
    CompletableFuture<Void> enlistAnew(String prefix) {
        Roster roster = roster(prefix);
        return roster.enlistAnew(() -> enlist(prefix, roster))
                .thenCompose(ignored -> ready(prefix, roster, SETTLE_ROUNDS));
    }

    /**
     * How many members may take part in grants of {@code prefix}'s locks, as far as this client knows:
     * those taking part, and those that did not answer their last probe.
     */
    int mayTakePart(String prefix) {
        return roster(prefix).mayTakePart();
    }

    /** A member answered a commit of {@code prefix} that it takes no part: it is enlisted again. */
    void notTakingPart(String prefix, int member) {
        roster(prefix).forget(member);
    }

    /** The failure of an acquisition of {@code lockKey} while fewer than a majority may take part. */
    QuorumUnavailableException tooFewTakePart(String lockKey, String prefix, int takingPart) {
        Roster roster = roster(prefix);
        // a member whose record key holds a foreign value is named with what it holds: it is no outage,
        // and it stays until someone removes the value (F5)
        StringBuilder foreign = new StringBuilder();
        int foreignCount = 0;
        for (int i = 0; i < members.size(); i++) {
            String what = roster.foreign(i);
            if (what != null) {
                foreign.append(foreignCount++ == 0 ? "; " : ", ")
                        .append("member ")
                        .append(i)
                        .append(" (")
                        .append(members.get(i))
                        .append(") takes no part: ")
                        .append(what);
            }
        }
        boolean foreignBlocks = foreignCount > members.size() - members.majority();
        return new QuorumUnavailableException(
                String.format(
                        "the quorum cannot grant lock '%s': %d of %d members take part in grants, %d needed%s"
                                + " (standings %s; a member that lost its data sits out %d ms before it grants again)",
                        lockKey,
                        takingPart,
                        members.size(),
                        members.majority(),
                        foreignBlocks
                                ? foreign + " (remove the value, or give this quorum another key prefix)"
                                : foreign.toString(),
                        describe(prefix),
                        restartDelayMs(maxLeaseMs)),
                !foreignBlocks);
    }

    /**
     * The failure of every acquisition of {@code lockKey} while a member breaks a rule of the quorum's
     * configuration (see {@link MemberConfigCheck}): not transient, naming each rule, the offending
     * members and the lock; null when none does.
     */
    QuorumUnavailableException refused(String lockKey, String prefix) {
        String refusal = roster(prefix).refusal();
        return refusal == null ? null : new QuorumUnavailableException(refusal + " (lock '" + lockKey + "')", false);
    }

    /** The members' standings for {@code prefix}, for an error message. */
    String describe(String prefix) {
        return roster(prefix).describe(System.nanoTime());
    }

    private Roster roster(String prefix) {
        return rosters.computeIfAbsent(prefix, p -> new Roster(members.size()));
    }

    private CompletableFuture<Void> enlist(String prefix, Roster roster) {
        List<String> keys = List.of(LockKeys.quorumRecordKey(prefix));
        List<CompletableFuture<List<?>>> probes = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            probes.add(step(i, keys, "probe", "", "", ""));
        }
        return CompletableFuture.allOf(probes.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
            List<List<?>> answers = probes.stream().map(CompletableFuture::join).toList();
            List<List<String>> refusals = check.refusals(answers);
            if (MemberConfigCheck.anyRefused(refusals)) {
                learnRefused(roster, answers, refusals, System.nanoTime());
                return CompletableFuture.completedFuture(null);
            }
            boolean allAnswered = true;
            boolean newQuorum = true;
            long largestFloor = 0;
            long largestLease = maxLeaseMs;
            int partaking = 0;
            long partakingFloor = 0;
            for (List<?> a : answers) {
                // a member whose record key holds a foreign value answered that it holds no record of ours:
                // it does not keep a new quorum's clean members from joining (F5), but its floor is unknown,
                // so it does not count as answered for a seed from the largest floor of all
                allAnswered &= a != null && state(a) != FOREIGN;
                newQuorum &= a != null && (state(a) == NO_RECORD || state(a) == FOREIGN);
                largestFloor = a == null ? largestFloor : Math.max(largestFloor, floor(a));
                largestLease = a == null ? largestLease : Math.max(largestLease, lease(a));
                if (a != null && state(a) == TAKING_PART) {
                    partaking++;
                    partakingFloor = Math.max(partakingFloor, floor(a));
                }
            }
            boolean seedFromPartaking = partaking >= members.size() - members.majority() + 1;
            long seed = seedFromPartaking ? partakingFloor : largestFloor;
            boolean canSeed = seedFromPartaking || allAnswered;
            // the longest any member's clients may lease for (a client configured otherwise is refused by
            // the commit, but may still be the one that finds a member reset)
            String delay = Long.toString(restartDelayMs(largestLease));
            String lease = Long.toString(maxLeaseMs);
            List<CompletableFuture<List<?>>> steps = new ArrayList<>();
            for (int i = 0; i < members.size(); i++) {
                List<?> a = answers.get(i);
                int state = a == null ? -1 : state(a);
                if (state == NO_RECORD && newQuorum) {
                    // only on the server process that answered the probe: not on one restarted since
                    steps.add(step(i, keys, "join", "0", lease, run(a)));
                } else if ((state == NO_RECORD && roster.standing(i) == Roster.Standing.EMPTY)
                        || state == ANOTHER_PROCESS) {
                    // with the largest floor read: another member may lose its data before this one is seeded
                    steps.add(step(i, keys, "reset", delay, lease, Long.toString(largestFloor)));
                } else if (state == AWAITING_SEED && canSeed) {
                    steps.add(step(i, keys, "seed", Long.toString(seed), lease, ""));
                } else {
                    steps.add(CompletableFuture.completedFuture(a));
                }
            }
            return CompletableFuture.allOf(steps.toArray(CompletableFuture[]::new))
                    .thenRun(() -> {
                        long now = System.nanoTime();
                        for (int i = 0; i < members.size(); i++) {
                            learn(roster, i, steps.get(i).join(), now);
                        }
                    });
        });
    }

    /**
     * A member broke a rule of the quorum's configuration: no step is taken on any member (a server
     * counted twice would count twice in the join, reset and seed decisions too; every acquisition is
     * refused meanwhile). The members that break one are {@link Roster.Standing#REFUSED}; one without a
     * record is out for {@link #RETRY_NANOS}, not found empty (nothing was joined), the others as their
     * probes say. All are probed again once their instants pass.
     */
    private static void learnRefused(Roster roster, List<List<?>> answers, List<List<String>> refusals, long now) {
        for (int i = 0; i < refusals.size(); i++) {
            List<?> a = answers.get(i);
            if (!refusals.get(i).isEmpty()) {
                roster.refused(i, refusals.get(i), now + RETRY_NANOS);
            } else if (a != null && state(a) == NO_RECORD) {
                roster.out(i, now + RETRY_NANOS);
            } else {
                learn(roster, i, a, now);
            }
        }
    }

    private static void learn(Roster roster, int member, List<?> answer, long now) {
        int state = answer == null ? -1 : state(answer);
        if (answer == null) {
            roster.unreachable(member, now + RETRY_NANOS);
        } else if (state == FOREIGN) {
            roster.foreign(member, String.valueOf(answer.get(5)), now + RETRY_NANOS);
        } else if (state == TAKING_PART) {
            roster.takesPart(member);
        } else if (state == NO_RECORD) {
            roster.empty(member, now + EMPTY_NANOS); // reset at the next enlistment if still so
        } else if (state == SITTING_OUT) {
            long waitMs = Replies.asLong(answer.get(2), ScriptNames.QUORUM_ENLIST);
            roster.out(member, now + TimeUnit.MILLISECONDS.toNanos(waitMs));
        } else {
            roster.out(member, now + RETRY_NANOS); // a seed it could not have yet
        }
    }

    /**
     * One step on one member; completes with its reply, {@code {FOREIGN, 0, 0, 0, "", what}} when the
     * script refused a record key that holds a value Leasehold did not write, or null when the member
     * failed otherwise or answered oddly.
     */
    private CompletableFuture<List<?>> step(
            int member, List<String> keys, String step, String arg, String lease, String fourth) {
        CompletableFuture<Object> call;
        try {
            call = members.eval(member, ENLIST, keys, List.of(step, arg, lease, fourth), -1);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.handle((reply, failure) -> {
            String foreign = failure == null ? null : foreignRecord(failure);
            if (foreign != null) {
                return List.of((long) FOREIGN, 0L, 0L, 0L, "", foreign);
            }
            if (failure != null
                    || !(reply instanceof List)
                    || ((List<?>) reply).size() < MemberConfigCheck.REPLY_SIZE) {
                return null;
            }
            return (List<?>) reply;
        });
    }

    /**
     * What the record key holds, from quorum-enlist.lua's error for a record it did not write (e.g.
     * "key 'p:quorum' holds a value that is not a Leasehold quorum record (a string, not a hash)"), found
     * anywhere in {@code failure}'s causes (each driver wraps it its own way); null for any other failure.
     */
    static String foreignRecord(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = t.getMessage();
            int key = message == null ? -1 : message.indexOf("key '");
            if (key >= 0
                    && (message.contains("holds a value that is not a Leasehold quorum record")
                            || message.contains("holds a quorum record whose"))) {
                return message.substring(key);
            }
        }
        return null;
    }

    private static int state(List<?> answer) {
        return (int) Replies.asLong(answer.get(0), ScriptNames.QUORUM_ENLIST);
    }

    private static long floor(List<?> answer) {
        return Replies.asLong(answer.get(1), ScriptNames.QUORUM_ENLIST);
    }

    private static String run(List<?> answer) {
        return String.valueOf(answer.get(4));
    }

    private static long lease(List<?> answer) {
        return Replies.asLong(answer.get(3), ScriptNames.QUORUM_ENLIST);
    }
}
