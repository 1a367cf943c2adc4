package io.leasehold.lock.history;

import io.leasehold.lock.LeaseLoss;
import java.util.Objects;

/**
 * The holder was told that its lease was lost:
 * {@code {"type":"loss","process":"w1","lock":"L","token":"1795…","reason":"EXPIRED","time":…,"seen":…}}.
 * Several records for one lease (from {@code lease.lost()} and from a listener) are fine: the checker
 * takes the earliest.
 *
 * @param process the worker
 * @param lock the lock name
 * @param token the fencing token of the lost lease
 * @param reason the {@link LeaseLoss.Reason} name (or another word for a holder's own detection)
 * @param time when the holder was told: {@link LeaseLoss#detectedAt()}, the moment the engine declared
 *     the loss and the lease's state turned {@code LOST}, in microseconds ({@link HistoryClock})
 * @param seen when the worker's callback ran and wrote this record (at or after {@code time}): the
 *     difference is how late the asynchronous signal arrived
 */
public record LossSignal(String process, String lock, long token, String reason, long time, long seen)
        implements HistoryEvent {

    public static final String TYPE = "loss";

    public LossSignal {
        Checks.name(TYPE, "process", process);
        Checks.name(TYPE, "lock", lock);
        Checks.token(TYPE, token);
        Checks.name(TYPE, "reason", reason);
    }

    /** The record of {@code loss}, seen now by {@code process}. */
    public static LossSignal of(String process, LeaseLoss loss) {
        Objects.requireNonNull(loss, "loss");
        return new LossSignal(
                process,
                loss.lockName(),
                loss.fencingToken(),
                loss.reason().name(),
                HistoryClock.micros(loss.detectedAt()),
                HistoryClock.nowMicros());
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public long latestTime() {
        return Math.max(time, seen);
    }
}
