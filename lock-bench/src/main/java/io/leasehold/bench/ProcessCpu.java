package io.leasehold.bench;

import java.lang.management.ManagementFactory;

/** The CPU time this JVM has used, all its threads (JIT and GC too) and kernel time included. */
final class ProcessCpu {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ProcessCpu() {}

    /** CPU nanoseconds used so far; fails if the platform cannot tell (it answers -1). */
    static long nanos() {
        long used = OS.getProcessCpuTime();
        if (used < 0) {
            throw new IllegalStateException("this JVM cannot tell its process CPU time (getProcessCpuTime() = -1)");
        }
        return used;
    }
}
