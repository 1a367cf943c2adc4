package io.leasehold.lock.history.fencing;

import io.leasehold.lock.history.HistoryEvent;
import io.leasehold.lock.history.ResourceState;
import io.leasehold.lock.history.ResourceUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The whole state of a {@link FencedResource} at one moment: its counter, the highest token it has
 * seen, how many accesses it numbered, and its log of accepted writes, read atomically.
 *
 * <p>This record is immutable and threadsafe.
 *
 * @param resource the resource's name
 * @param value the counter
 * @param highest the highest token seen, or {@code null} if none
 * @param seq how many accesses it has numbered
 * @param time when the snapshot was taken, microseconds since the epoch by the resource server's clock
 * @param updates the accepted writes, in the order they were applied
 */
public record ResourceSnapshot(String resource, long value, Long highest, long seq, long time, List<Update> updates) {

    public ResourceSnapshot {
        Objects.requireNonNull(resource, "resource");
        updates = List.copyOf(updates);
    }

    /**
     * One accepted write.
     *
     * @param seq the access number the resource gave it
     * @param token its fencing token
     * @param previous the value it replaced
     * @param value the value it wrote
     * @param time when it was applied, microseconds since the epoch by the resource server's clock
     */
    public record Update(long seq, long token, long previous, long value, long time) {}

    /**
     * The snapshot as history records, written by {@code process}: one {@link ResourceState} and one
     * {@link ResourceUpdate} per accepted write, for the checker to compare.
     */
    public List<HistoryEvent> toHistory(String process) {
        List<HistoryEvent> events = new ArrayList<>(updates.size() + 1);
        events.add(new ResourceState(process, resource, value, highest, seq, time));
        for (Update update : updates) {
            events.add(new ResourceUpdate(
                    process, resource, update.seq(), update.token(), update.previous(), update.value(), update.time()));
        }
        return events;
    }
}
