package io.leasehold.lock.history;

import java.util.Objects;

/**
 * A fault the run injected, declared by whoever injected it:
 * {@code {"type":"fault","process":"nemesis","kind":"restart-without-persistence","effect":"DATA_LOSS","start":…,"end":…}}.
 * Declare windows generously: from just before the fault is injected until the system is whole again
 * (for a data loss: until the server serves again).
 *
 * @param process the process that injected it (e.g. {@code nemesis})
 * @param kind a free name for the fault, e.g. {@code partition}, {@code sigstop}, {@code failover}
 * @param effect what it does to the guarantees
 * @param target the process it hit, for {@link FaultEffect#PAUSE} and {@link FaultEffect#KILL} (required
 *     there), else {@code null}
 * @param start when it began, in microseconds ({@link HistoryClock})
 * @param end when it was over
 */
public record FaultWindow(String process, String kind, FaultEffect effect, String target, long start, long end)
        implements HistoryEvent {

    public static final String TYPE = "fault";

    public FaultWindow {
        Checks.name(TYPE, "process", process);
        Checks.name(TYPE, "kind", kind);
        Objects.requireNonNull(effect, TYPE + ".effect");
        Checks.order(TYPE, start, end);
        boolean needsTarget = effect == FaultEffect.PAUSE || effect == FaultEffect.KILL;
        if (needsTarget) {
            Checks.name(TYPE, "target", target);
        }
    }

    /** True when this window and {@code [from, to]} share an instant. */
    public boolean intersects(long from, long to) {
        return start <= to && from <= end;
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public long latestTime() {
        return end;
    }
}
