package io.leasehold.bench;

import java.util.Set;

/** Figure names, shared by the scenarios that measure them and the report that prints them. */
final class Figures {

    static final String OPS_PER_SECOND = "ops/s";
    static final String CALLS_PER_OP = "round trips/op";
    static final String COMMANDS_PER_OP = "Redis commands/op";
    static final String CPU_MICROS_PER_OP = "Redis CPU µs/op";
    /** The bench JVM's CPU per op over the window (the contender's clients, the workers' loop, JIT and GC), less the FIFO audit's threads. */
    static final String CLIENT_CPU_MICROS_PER_OP = "client CPU µs/op";

    /** From the call to acquire to the lease in hand (quorum group); under contention it includes the wait. */
    static final String ACQUIRE_P99_MICROS = "acquire p99 µs";

    static final String HANDOFF_P50_MICROS = "handoff p50 µs";
    static final String HANDOFF_P99_MICROS = "handoff p99 µs";
    static final String HOLDER_CHANGED = "holder changed %";
    static final String WORKER_SPREAD = "per-worker CV %";
    static final String CALLS_PER_WAITER = "round trips/waiter/10 s";
    static final String COMMANDS_PER_WAITER = "commands/waiter/10 s";
    static final String SCRIPT_CALLS_PER_PERIOD = "script calls/period";
    static final String LONGEST_SCRIPT_MICROS = "longest script µs";
    static final String MEDIAN_SCRIPT_MICROS = "median script µs";
    static final String SCRIPTS_OVER_1_MS = "scripts > 1 ms";
    static final String SERVER_PREEMPTED = "Redis preempted";
    static final String LOCKS_LOST = "locks lost";
    static final String LIMIT_CALLS_PER_SECOND = "script calls/s";
    static final String DEAD_WAITER_MS = "dead waiter → next grant ms";
    static final String DEAD_WAITER_MAX_MS = "max ms";
    static final String NOT_GRANTED = "samples not granted within 30 s";
    /** Grants of a fair lock whose FIFO order the audit checked ({@link FifoCheck}); a total over the rounds. */
    static final String FIFO_CHECKED_GRANTS = "FIFO checked grants";
    /** Broken FIFO rules the audit found ({@link FifoCheck}); must be 0; a total over the rounds. */
    static final String FIFO_VIOLATIONS = "FIFO violations";
    /** Figures the report adds up over the rounds instead of taking their median: a violation in one round must show. */
    static final Set<String> TOTALLED = Set.of(FIFO_CHECKED_GRANTS, FIFO_VIOLATIONS);

    private Figures() {}
}
