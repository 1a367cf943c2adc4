package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition over the quorum (see {@link QuorumAcquire}): its keys and arguments, what each member
 * was last known to hold for it, how its phases went, and how it ended; and the release of its owner on
 * a member, its one clean-up.
 *
 * <p>Every attempt comes with an owner of its own (the engine's switch for composed grants, R3), so its
 * clean-ups, releases by owner, never meet a later attempt's lock. The clean-ups of an attempt that was
 * granted, or answered contended with a holder a majority named, are quiet (see {@link #release}); a
 * split vote's are still heard as any release (R9 is not built for them: see the design's note on Q2 and
 * Q3).
 *
 * <p><b>Threads.</b> Never blocks. This class is threadsafe: what the members hold is kept under the
 * attempt's lock, the rest in concurrent sets, volatile fields and futures completed once.
 */
final class AcquireAttempt {

    static final LuaScript RELEASE = LuaScript.bundled(ScriptNames.RELEASE);

    /** The members that granted phase 1 (in the order they answered), and the largest token they granted. */
    record Grants(List<Integer> members, long maxToken) {}

    private final QuorumMembers members;
    private final ReleaseResends resends;

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
    private final Map<Integer, String> held = new HashMap<>();
    /** member → its phase-1 value ({@code <owner>:<tᵢ>}), what a commit resent with the same token expects. */
    private final Map<Integer, String> granted = new HashMap<>();
    /** The members a phase's patience waited out (phase 1's, and each commit round's): counted as failed. */
    private final Set<Integer> waitedOut = ConcurrentHashMap.newKeySet();
    /** The members whose phase-1 answer came after phase 1 was decided. */
    private final Set<Integer> answeredLate = ConcurrentHashMap.newKeySet();
    /** When phase 1 was decided ({@link System#nanoTime()}). */
    private volatile long phase1Decided;
    /** Phase 1's answers, once decided. */
    private volatile List<Tally.Answer> phase1 = List.of();
    /**
     * Whether this attempt's clean-ups are quiet (see {@link #release}), completed once its outcome is
     * known: a phase-1 grant that came after the decision waits for it, so that its clean-up is quiet
     * or heard as the outcome says, whatever order the late reply and the decision came in.
     */
    private final CompletableFuture<Boolean> quietCleanUps = new CompletableFuture<>();
    /**
     * The token of the lease this attempt was granted, once it was; null once it ended otherwise. A
     * member whose phase-1 grant or commit came after the decision waits for it: the lease is committed
     * on it too (so that it lives on every member that answered, and survives a minority dying), or
     * the member is released.
     */
    private final CompletableFuture<@Nullable Long> grantedToken = new CompletableFuture<>();

    AcquireAttempt(
            QuorumMembers members,
            ReleaseResends resends,
            List<String> keys,
            List<String> args,
            String prefix,
            long started) {
        this.members = members;
        this.resends = resends;
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

    /** Phase 1 decided with {@code answers}: records them and what the granting members now hold. */
    Grants phase1Decided(List<Tally.Answer> answers) {
        phase1 = answers;
        phase1Decided = System.nanoTime();
        long maxToken = 0;
        List<Integer> granting = new ArrayList<>();
        synchronized (this) {
            for (Tally.Answer a : answers) {
                if (!a.failed() && Replies.status(a.reply(), 0) == 1) {
                    long token =
                            Replies.asLong(Replies.list(a.reply(), "acquire").get(1), "acquire");
                    held.put(a.member(), owner + ":" + token);
                    granted.put(a.member(), owner + ":" + token);
                    granting.add(a.member());
                    maxToken = Math.max(maxToken, token);
                }
            }
        }
        return new Grants(granting, maxToken);
    }

    /** Phase 1's answers, once decided (empty before). */
    List<Tally.Answer> phase1() {
        return phase1;
    }

    /** {@code member}'s phase-1 answer came after phase 1 was decided. */
    void answeredLate(int member) {
        answeredLate.add(member);
    }

    /** A phase-1 grant of {@code value} by {@code member} that came after phase 1 was decided. */
    synchronized void grantedLate(int member, String value) {
        held.put(member, value);
        granted.put(member, value);
    }

    /** Whether {@code member} may hold a value of this attempt: it granted, or a patience waited it out. */
    private synchronized boolean mayHold(int member) {
        return held.containsKey(member) || waitedOut.contains(member);
    }

    /** A phase's patience waited out {@code member}: it counts as failed. */
    void waitedOut(int member) {
        waitedOut.add(member);
    }

    /** The members the patiences waited out so far. */
    Set<Integer> waitedOutSoFar() {
        return Set.copyOf(waitedOut);
    }

    /** What a commit of {@code token} expects on each member: what it was last known to hold. */
    Map<Integer, String> expectedFor(long token) {
        synchronized (this) {
            Map<Integer, String> expected = new HashMap<>(held);
            // a member that committed this very token in an earlier round (the commit resent after a
            // member was found not taking part) is sent its phase-1 value: quorum-commit.lua answers
            // committed where it holds <owner>:<T> already, and refuses <owner>:<T> as the value expected
            String committedValue = owner + ":" + token;
            expected.replaceAll((m, value) -> value.equals(committedValue) ? granted.get(m) : value);
            return expected;
        }
    }

    /** The {@code committed} members hold the lease of {@code token} now. */
    synchronized void committed(List<Integer> committed, long token) {
        committed.forEach(m -> held.put(m, owner + ":" + token));
    }

    /** Granted the lease of {@code token}: the clean-ups are quiet, and the late answers committed. */
    void granted(long token) {
        quietCleanUps.complete(true);
        grantedToken.complete(token);
    }

    /** Not granted: whether the clean-ups are {@code quiet} (decided before the clean-ups it decides on). */
    void notGranted(boolean quiet) {
        quietCleanUps.complete(quiet);
    }

    /** The call ended, whatever way: an outcome not decided yet is "not granted", with clean-ups heard. */
    void ended() {
        quietCleanUps.complete(false);
        grantedToken.complete(null);
    }

    /** Runs {@code action} with the token of the lease once granted, or with null once it ended otherwise. */
    void whenGrantedOrEnded(Consumer<@Nullable Long> action) {
        grantedToken.thenAccept(action);
    }

    /**
     * The members that count as failed for a commit's majority rule besides its own failures: those a
     * patience waited out (phase 1's or a commit's), those that failed phase 1, and those that have not
     * answered phase 1 yet although it was decided at least a patience ago (they were waited for as
     * long as phase 1 would have). A member only behind the grace of a decided phase 1, or not awaited
     * because a commit's tally was decided without it, is not counted.
     */
    Set<Integer> silentOrFailedInPhase1() {
        Set<Integer> counted = new java.util.HashSet<>(waitedOut);
        Set<Integer> answered = new java.util.HashSet<>();
        for (Tally.Answer a : phase1) {
            answered.add(a.member());
            if (a.failed()) {
                counted.add(a.member());
            }
        }
        boolean waitedLongEnough =
                System.nanoTime() - phase1Decided >= TimeUnit.MILLISECONDS.toNanos(AcquireTiming.patienceMs(leaseMs));
        for (int m = 0; m < members.size() && waitedLongEnough; m++) {
            if (!answered.contains(m) && !answeredLate.contains(m)) {
                counted.add(m);
            }
        }
        return counted;
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
     *
     * <p>A clean-up that fails transiently on a member that may hold this attempt's grant (it granted,
     * or a patience waited it out) is sent again in the background until the member answers
     * ({@link ReleaseResends}; heard, as a release): else the grant would keep the lock on that member
     * for the attempt's whole lease. Not on a member whose phase 1 failed: while a member is down, every
     * attempt's clean-up of it fails, and queueing each would only flood it once it is back.
     */
    CompletableFuture<Object> release(int member) {
        List<String> releaseArgs = List.of(owner, args.get(2), args.get(3), QuorumMembers.PUBLISH, args.get(1));
        long sent = System.nanoTime();
        CompletableFuture<Object> call = quietCleanUps.thenCompose(quiet -> quiet
                ? members.evalQuietly(member, RELEASE, releaseKeys, releaseArgs, QuorumRelease.RELEASE_PUBLISH_ARG)
                : members.eval(member, RELEASE, releaseKeys, releaseArgs, QuorumRelease.RELEASE_PUBLISH_ARG));
        call.whenComplete((reply, failure) -> {
            if (failure != null && members.isTransient(member, failure) && mayHold(member)) {
                resends.resend(member, RELEASE, releaseKeys, releaseArgs, QuorumRelease.RELEASE_PUBLISH_ARG, sent);
            }
        });
        return call;
    }
}
