package io.leasehold.lock.history.fencing;

import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.ResourceAccess;
import java.util.Objects;

/**
 * What one access to a {@link FencedResource} did, as the resource answered it.
 *
 * <p>This record is immutable and threadsafe.
 *
 * @param resource the resource's name
 * @param op read or write
 * @param token the fencing token sent
 * @param accepted whether the resource took the token and did the access
 * @param seq the resource's number for this access (its order of all accesses, rejected ones included)
 * @param highest the highest token the resource had seen after this access
 * @param value read accepted: the value read; write accepted: the value written; rejected: {@code null}
 * @param previous write accepted: the value the write replaced; otherwise {@code null}
 */
public record FencedAccess(
        String resource, AccessOp op, long token, boolean accepted, long seq, long highest, Long value, Long previous) {

    public FencedAccess {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(op, "op");
    }

    /**
     * The history record of this access, made by {@code process} in the section of {@code lock},
     * sent at {@code start} and answered at {@code end} (microseconds, {@link io.leasehold.lock.history.HistoryClock}).
     */
    public ResourceAccess toHistory(String process, String lock, long start, long end) {
        return new ResourceAccess(
                process,
                lock,
                resource,
                op,
                token,
                accepted ? AccessOutcome.ACCEPTED : AccessOutcome.REJECTED,
                value,
                seq,
                start,
                end,
                null);
    }
}
