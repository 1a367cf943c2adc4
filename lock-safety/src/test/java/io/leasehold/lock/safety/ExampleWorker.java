package io.leasehold.lock.safety;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.AcquireAttempt;
import io.leasehold.lock.history.AcquireOutcome;
import io.leasehold.lock.history.HistoryClock;
import io.leasehold.lock.history.HistoryWriter;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.SectionEnding;
import io.leasehold.lock.history.fencing.FencedAccess;
import io.leasehold.lock.history.fencing.FencedResource;
import io.leasehold.lock.history.fencing.FencedResourceException;
import java.time.Duration;

/**
 * What a worker of issue 10's safety run does, written with the public pieces only: acquire, log the
 * section, read-modify-write the fenced counter with the lease's token, log every access and loss.
 * A test runs it on threads; the multi-process harness would run it as a process's main.
 */
final class ExampleWorker {

    private final String process;
    private final LockClient locks;
    private final FencedResource counter;
    private final HistoryWriter history;

    ExampleWorker(String process, LockClient locks, FencedResource counter, HistoryWriter history) {
        this.process = process;
        this.locks = locks;
        this.counter = counter;
        this.history = history;
    }

    void run(String lockName, int sections, Duration wait) {
        history.processStarted();
        DistributedLock lock = locks.lock(lockName);
        for (int i = 0; i < sections; i++) {
            long start = HistoryClock.nowMicros();
            Lease lease;
            try {
                lease = lock.acquire(wait);
            } catch (LockTimeoutException | LockBackendException e) {
                AcquireOutcome outcome =
                        e instanceof LockTimeoutException ? AcquireOutcome.TIMEOUT : AcquireOutcome.ERROR;
                history.write(AcquireAttempt.failed(
                        process, lockName, start, HistoryClock.nowMicros(), outcome, e.toString()));
                continue;
            }
            long token = lease.fencingToken();
            history.write(AcquireAttempt.acquired(process, lockName, start, HistoryClock.nowMicros(), token));
            lease.lost().thenAccept(history::loss);
            history.sectionStarted(lockName, token);
            FencedAccess read = access(lockName, AccessOp.READ, token, 0);
            if (read != null && read.accepted()) {
                access(lockName, AccessOp.WRITE, token, read.value() + 1);
            }
            long end = HistoryClock.nowMicros();
            SectionEnding ending;
            try {
                ending = lease.release() ? SectionEnding.RELEASED : SectionEnding.NOT_HELD;
            } catch (LockBackendException e) {
                ending = SectionEnding.RELEASE_FAILED;
            }
            history.sectionEnded(lockName, token, end, ending);
        }
        history.processEnded();
    }

    /** One fenced access, logged; {@code null} when its outcome is unknown (logged as such). */
    private FencedAccess access(String lockName, AccessOp op, long token, long value) {
        long start = HistoryClock.nowMicros();
        try {
            FencedAccess access = op == AccessOp.READ ? counter.read(token) : counter.write(token, value);
            history.write(access.toHistory(process, lockName, start, HistoryClock.nowMicros()));
            return access;
        } catch (FencedResourceException e) {
            history.write(new ResourceAccess(
                    process,
                    lockName,
                    counter.name(),
                    op,
                    token,
                    AccessOutcome.UNKNOWN,
                    op == AccessOp.WRITE ? value : null,
                    null,
                    start,
                    HistoryClock.nowMicros(),
                    e.toString()));
            return null;
        }
    }
}
