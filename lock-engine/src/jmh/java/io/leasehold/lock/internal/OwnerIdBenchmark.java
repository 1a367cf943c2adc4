package io.leasehold.lock.internal;

import org.openjdk.jmh.annotations.Benchmark;

/**
 * Owner generation: 128 bits from the shared {@code SecureRandom}, hex-encoded ({@link OwnerIds#next()}).
 * Every acquisition round pays it once, before its first command is sent (G2).
 */
public class OwnerIdBenchmark extends EngineBenchmark {

    @Benchmark
    public String next() {
        return OwnerIds.next();
    }
}
