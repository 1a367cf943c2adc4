package io.leasehold.lock.internal;

import java.util.concurrent.ThreadFactory;

/** Thread factories for the tests' own executors: daemon threads, so that a failed test leaves no JVM hanging. */
final class TestThreads {

    private TestThreads() {}

    /** Daemon threads, all named {@code name} (the tests tell threads apart by name). */
    static ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
