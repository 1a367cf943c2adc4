package io.leasehold.lock.history.checker;

/**
 * What one worker achieved.
 *
 * @param process the worker
 * @param attempts acquire attempts
 * @param acquired attempts that got a lease
 * @param timeouts attempts that timed out (contended)
 * @param errors attempts that failed (Redis)
 * @param cancelled attempts given up
 * @param sections sections started
 * @param accepted accesses the resource accepted
 * @param rejected accesses it rejected
 * @param unknown accesses without an answer
 * @param losses leases it was told it lost
 * @param longestSilenceMicros the longest stretch without any record from it (up to the end of the run
 *     when it never finished and was not killed)
 * @param finished whether it wrote {@code process-end}
 */
public record ProcessProgress(
        String process,
        long attempts,
        long acquired,
        long timeouts,
        long errors,
        long cancelled,
        long sections,
        long accepted,
        long rejected,
        long unknown,
        long losses,
        long longestSilenceMicros,
        boolean finished) {}
