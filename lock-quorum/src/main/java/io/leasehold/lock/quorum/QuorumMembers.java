package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.Deployment;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The N members of a quorum and its majority M = N/2 + 1; how one call is sent to one member (with the
 * member's own publish command where the script publishes; not at all while the member is skipped after
 * a transient failure, see {@link MemberAvailability}), and how the failures of a call that no majority
 * answered are reported. Whether a member takes part in grants is {@link QuorumEnlistment}'s.
 *
 * <p>This class is threadsafe; it never blocks.
 */
final class QuorumMembers {

    /** The publish command arguments, as the scripts take them. */
    static final String SPUBLISH = "SPUBLISH";

    static final String PUBLISH = "PUBLISH";

    private final List<LockBackend> members;
    private final int majority;
    private final MemberAvailability availability;
    private final QuorumTimer timer = new QuorumTimer();
    /** Which member a failure that the quorum passed on as it is came from, so that it judges it. */
    private final Map<Throwable, LockBackend> failedOn = Collections.synchronizedMap(new WeakHashMap<>());

    private QuorumMembers(List<LockBackend> members) {
        this.members = members;
        this.majority = members.size() / 2 + 1;
        this.availability = new MemberAvailability(members.size());
    }

    /**
     * Checks the configuration: at least 3 members, none null, none a quorum itself, none a Sentinel or
     * Cluster deployment (see {@link LockBackend#deployment()}: a backend that cannot tell passes), no
     * backend twice.
     *
     * @throws IllegalArgumentException naming the rule, the value and the offending member
     */
    static QuorumMembers of(@Nullable List<? extends @Nullable LockBackend> members) {
        if (members == null) {
            throw new IllegalArgumentException("members must not be null");
        }
        if (members.size() < 3) {
            throw new IllegalArgumentException("a quorum needs at least 3 nodes, but was " + members.size());
        }
        Set<LockBackend> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<LockBackend> checked = new ArrayList<>(members.size());
        for (int i = 0; i < members.size(); i++) {
            LockBackend member = members.get(i);
            if (member == null) {
                throw new IllegalArgumentException(
                        "a quorum's members must not be null, but member " + i + " of " + members.size() + " was null");
            }
            if (member.grantsAreComposed()) {
                throw new IllegalArgumentException("a quorum's members must each be one Redis master, but member " + i
                        + " (" + member + ") composes its grants of several servers' (a quorum inside a quorum)");
            }
            Deployment deployment = member.deployment();
            if (deployment == Deployment.SENTINEL || deployment == Deployment.CLUSTER) {
                throw new IllegalArgumentException("a quorum's members must each be one independent Redis master,"
                        + " but member " + i + " (" + member + ") is "
                        + (deployment == Deployment.SENTINEL
                                ? "a Sentinel-managed master (a failover to a replica that lags behind loses"
                                        + " acquisitions; give each member one standalone server)"
                                : "a Redis Cluster (its keys spread over several masters, each with its own"
                                        + " failover; give each member one standalone server)"));
            }
            if (!seen.add(member)) {
                throw new IllegalArgumentException("a quorum's members must be distinct backends, but member " + i
                        + " (" + member + ") is member " + indexOf(checked, member) + " again");
            }
            checked.add(member);
        }
        return new QuorumMembers(List.copyOf(checked));
    }

    private static int indexOf(List<LockBackend> members, LockBackend member) {
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i) == member) {
                return i;
            }
        }
        return -1;
    }

    int size() {
        return members.size();
    }

    /** M = N/2 + 1. */
    int majority() {
        return majority;
    }

    LockBackend get(int member) {
        return members.get(member);
    }

    List<LockBackend> all() {
        return members;
    }

    /** The timers of the quorum's fan-outs and acquisitions; closed with the quorum. */
    QuorumTimer timer() {
        return timer;
    }

    /**
     * Runs {@code script} on every member at once (see {@link #eval} for {@code publishArg}), and tallies
     * the answers against the majority ({@link Tally}): what decides, and how long the members behind a
     * decided majority may still answer; a later answer goes to {@code late}.
     */
    Tally fanOut(
            LuaScript script,
            List<String> keys,
            List<String> args,
            int publishArg,
            Predicate<Tally.Answer> success,
            Duration grace,
            Consumer<Tally.Answer> late) {
        return Tally.fanOut(
                timer, size(), majority(), i -> eval(i, script, keys, args, publishArg), success, grace, late);
    }

    /**
     * {@link #fanOut(LuaScript, List, List, int, Predicate, Duration, Consumer)}, decided at the latest
     * {@code patience} after a majority of the members replied (it waits for the members behind a
     * majority, never for the majority itself); a member still silent then is skipped as one whose call
     * failed transiently (see {@link #silent}) and handed to {@code silent}.
     */
    Tally fanOut(
            LuaScript script,
            List<String> keys,
            List<String> args,
            int publishArg,
            Predicate<Tally.Answer> success,
            Duration grace,
            Duration patience,
            IntConsumer silent,
            Consumer<Tally.Answer> late) {
        return Tally.fanOut(
                timer,
                size(),
                majority(),
                i -> eval(i, script, keys, args, publishArg),
                success,
                grace,
                patience,
                majority(),
                member -> {
                    silent(member);
                    silent.accept(member);
                },
                late);
    }

    /**
     * {@code member} did not answer within a fan-out's patience: it is skipped for a while as one whose
     * call failed transiently ({@link MemberAvailability}), so that the next fan-outs decide without it
     * at once, until a probe finds it answering. A driver that keeps a dead member's commands until its
     * command timeout (Lettuce) would otherwise cost every split vote the patience until that timeout.
     */
    void silent(int member) {
        availability.failed(member, System.nanoTime());
    }

    /**
     * Runs {@code script} on {@code member}; when {@code publishArg} is 0 or more, the argument at that
     * index is replaced by the member's own publish command ({@code SPUBLISH} where it uses sharded
     * pub/sub, else {@code PUBLISH}), once the member knows which (its failure to tell fails the call).
     */
    CompletableFuture<Object> eval(int member, LuaScript script, List<String> keys, List<String> args, int publishArg) {
        LockBackend backend = members.get(member);
        if (publishArg < 0) {
            return send(member, script, keys, args);
        }
        if (publishArg >= args.size()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(script.name() + " must carry its publish"
                    + " command as argument " + (publishArg + 1) + ", but had " + args.size() + " arguments"));
        }
        return backend.shardedPubSub().thenCompose(sharded -> {
            List<String> own = new ArrayList<>(args);
            own.set(publishArg, sharded ? SPUBLISH : PUBLISH);
            return send(member, script, keys, own);
        });
    }

    /**
     * {@link #eval} with the publish command at {@code publishArg} replaced by one that the member's
     * subscribers do not hear: where the member uses sharded pub/sub, plain {@code PUBLISH} (Redis keeps
     * the two apart: a message published with one reaches only subscribers of the same kind); where it
     * does not, its own command, so the call is heard as any release (a server without sharded pub/sub
     * has no quiet way).
     */
    CompletableFuture<Object> evalQuietly(
            int member, LuaScript script, List<String> keys, List<String> args, int publishArg) {
        LockBackend backend = members.get(member);
        if (publishArg < 0 || publishArg >= args.size()) {
            return eval(member, script, keys, args, publishArg);
        }
        return backend.shardedPubSub().thenCompose(sharded -> {
            // PUBLISH either way: unheard by a sharded member's subscribers, a plain member's own command
            List<String> quiet = new ArrayList<>(args);
            quiet.set(publishArg, PUBLISH);
            return send(member, script, keys, quiet);
        });
    }

    /**
     * Sends {@code script} to {@code member}, unless the member is skipped after a transient failure
     * ({@link MemberAvailability}): then the call fails at once with a transient
     * {@link QuorumUnavailableException} naming the member. Every outcome of a call sent is reported back.
     */
    private CompletableFuture<Object> send(int member, LuaScript script, List<String> keys, List<String> args) {
        LockBackend backend = members.get(member);
        if (!availability.admit(member, System.nanoTime())) {
            return CompletableFuture.failedFuture(new QuorumUnavailableException(
                    "member " + member + " (" + backend
                            + ") is skipped for " + availability.skippedForMs(member, System.nanoTime())
                            + " ms more: its"
                            + " last call failed",
                    true));
        }
        CompletableFuture<Object> call;
        try {
            call = backend.eval(script, keys, args);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.whenComplete((reply, failure) -> {
            if (failure != null && backend.isTransient(Tally.unwrap(failure))) {
                availability.failed(member, System.nanoTime());
            } else {
                availability.answered(member);
            }
        });
    }

    /**
     * The failure of a call that no majority answered, from the answers of its members: the failure of
     * a member as it is when every failure is one its member judges not transient (a script error,
     * such as a key that is not a Leasehold lock, which every member reports alike); else a transient
     * {@link QuorumUnavailableException} naming the lock, the call and how many members failed, each
     * member's failure suppressed in it.
     */
    Throwable noMajority(String lockKey, String call, List<Tally.Answer> answers) {
        List<Tally.Answer> failures =
                answers.stream().filter(Tally.Answer::failed).toList();
        boolean anyTransient = failures.stream().anyMatch(a -> isTransient(a.member(), a.failure()));
        if (!failures.isEmpty() && !anyTransient) {
            Throwable first = failures.get(0).failure();
            failedOn.put(first, members.get(failures.get(0).member()));
            return first;
        }
        QuorumUnavailableException e = new QuorumUnavailableException(
                "no majority of the quorum answered " + call + " of lock '" + lockKey + "': " + failures.size() + " of "
                        + members.size() + " members failed and " + (members.size() - answers.size())
                        + " did not answer in time, " + majority + " needed",
                true);
        failures.forEach(a -> e.addSuppressed(a.failure()));
        return e;
    }

    /** Whether a call to {@code member} that failed with {@code failure} failed transiently. */
    boolean isTransient(int member, Throwable failure) {
        Throwable t = Tally.unwrap(failure);
        if (t instanceof QuorumUnavailableException) {
            return ((QuorumUnavailableException) t).isTransient(); // a skipped member
        }
        return members.get(member).isTransient(failure);
    }

    /**
     * Whether {@code failure} is transient: a {@link QuorumUnavailableException} says so itself; a
     * member's failure passed on as it is, as that member judges it; anything else as any member would.
     */
    boolean isTransient(Throwable failure) {
        Throwable t = Tally.unwrap(failure);
        if (t instanceof QuorumUnavailableException) {
            return ((QuorumUnavailableException) t).isTransient();
        }
        LockBackend member = failedOn.get(t);
        if (member != null) {
            return member.isTransient(t);
        }
        return members.stream().anyMatch(m -> m.isTransient(t));
    }
}
