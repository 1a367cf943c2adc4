package io.leasehold.lock.safety;

import java.util.List;
import java.util.function.Supplier;

/** The named fault scenarios, in the order the suite runs them; each run gets a fresh instance. */
final class Scenarios {

    private Scenarios() {}

    static List<Supplier<Scenario>> all() {
        return List.of(
                KillHolder::new,
                PauseHolder::new,
                RestartWithoutPersistence::new,
                OutageLongerThanLease::new,
                PartitionHolder::new,
                LatencySpike::new,
                ClientKillStorm::new,
                ScriptFlushStorm::new,
                FailoverToLaggingReplica::new,
                PauseHandoffHolder::new,
                PauseReleasingHandoff::new,
                CutResendingRelease::new,
                WaitQueueKillAndPause::fairLock,
                WaitQueueKillAndPause::plainLock,
                QuorumMinorityRestart::ofThree,
                QuorumPartitionHolder::new,
                WaitQueueKillAndPause::quorumFairLock);
    }

    /**
     * Scenarios run only when {@code safety.only} names them (kept out of the normal build for its
     * time): a kill -9 with a handoff in flight, a freeze with a renewal likely in flight, and two of a
     * quorum of 5 restarted empty (about 26 s a run; its quorum-of-3 twin runs in the build).
     */
    static List<Supplier<Scenario>> optIn() {
        return List.of(KillMidHandoff::new, PauseHandoffHolder::whileRenewing, QuorumMinorityRestart::ofFive);
    }

    /**
     * The scenarios named in {@code only} (comma-separated, as in the results table), or all of them
     * when it is blank; an unknown name is refused, naming the known ones.
     */
    static List<Supplier<Scenario>> selected(String only) {
        if (only == null || only.isBlank()) {
            return all();
        }
        java.util.Set<String> names =
                new java.util.HashSet<>(List.of(only.trim().split("\\s*,\\s*")));
        List<Supplier<Scenario>> every = new java.util.ArrayList<>(all());
        every.addAll(optIn());
        List<String> known = every.stream().map(s -> s.get().name()).toList();
        names.forEach(name -> {
            if (!known.contains(name)) {
                throw new IllegalArgumentException(
                        "safety.only names an unknown scenario '" + name + "'; known: " + known);
            }
        });
        return every.stream().filter(s -> names.contains(s.get().name())).toList();
    }
}
