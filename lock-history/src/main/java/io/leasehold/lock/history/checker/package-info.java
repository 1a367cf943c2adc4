/**
 * The checker of safety-run histories: {@link io.leasehold.lock.history.checker.HistoryChecker}
 * (an API returning a {@link io.leasehold.lock.history.checker.CheckReport}, and a {@code main} for
 * log files and directories) verifies token order, fencing at the resource, lost updates, overlapping
 * sections and each worker's progress, and measures how promptly losses were signalled. Run it on
 * your own histories as well as ours: the format is in {@link io.leasehold.lock.history}.
 */
package io.leasehold.lock.history.checker;
