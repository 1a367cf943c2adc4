package io.leasehold.lock.internal;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run settings every engine microbenchmark shares (JMH reads these annotations from the superclass):
 * average time per operation, one fork with a fixed heap, 4 warm-up iterations of 2 seconds and 5
 * measured iterations of 1 second. With them the {@code -Pjmh} run takes about 3 minutes of JMH on the
 * 2-core build machine. The warm-up is that long because on this shared machine the heavier benchmarks
 * (a wake-up's attempt, a new acquisition) were still getting faster after 3 seconds of it. JMH options
 * given on the command line ({@code -f}, {@code -wi}, {@code -i}, {@code -r}...) override these.
 *
 * <p>The benchmarks sit in the engine's package to reach its package-private classes, in lock-engine's
 * test sources, so they are never published. They measure the engine's local work on its hot paths; Redis
 * round trips are measured by the side-by-side bench ({@code -Pbench}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 1)
abstract class EngineBenchmark {}
