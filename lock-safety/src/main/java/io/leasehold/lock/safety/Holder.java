package io.leasehold.lock.safety;

/**
 * A worker caught inside a section: it printed {@code IN <lock> <token>} after its read and is in
 * the pause before its write.
 *
 * @param worker the worker process
 * @param lock the lock it holds
 * @param token its lease's fencing token
 * @param seenAt when the runner read the line, in history-clock microseconds
 */
record Holder(WorkerProcess worker, String lock, long token, long seenAt) {}
