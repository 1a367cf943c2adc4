package io.leasehold.lock.safety;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How long and how often the suite runs: the fast version (each scenario once per driver, a few
 * seconds of steady run after each fault) inside {@code mvn verify}, or the soak
 * ({@code -Dsafety.soak=true}: each scenario {@value #SOAK_RUNS} times per driver, with a longer
 * steady run); {@code -Dsafety.runs=N} sets the runs of either.
 *
 * @param runs how many times each scenario runs per driver
 * @param steady how long a run goes on after every worker has made progress past the fault
 * @param workers worker processes per run
 * @param parallel how many runs go at once (each with its own lock server and workers)
 * @param dir where the runs' histories go
 */
record SuiteSettings(int runs, Duration steady, int workers, int parallel, Path dir) {

    /** The locks the workers contend for. */
    static final List<String> LOCKS = List.of("L1", "L2");
    /** An acquire's wait: far longer than any fault, so that a timeout means a lost wake-up or starvation. */
    static final Duration WAIT = Duration.ofSeconds(20);
    /** The shortest pause inside a section (between read and write). */
    static final Duration MIN_HOLD = Duration.ofMillis(200);
    /** The longest: past the renewal period, so that renewals run inside sections. */
    static final Duration MAX_HOLD = Duration.ofMillis(1200);

    static final int SOAK_RUNS = 5;

    /** From the system properties {@code safety.soak}, {@code safety.runs}, {@code safety.parallel}, {@code safety.dir}. */
    static SuiteSettings fromSystemProperties() {
        boolean soak = Boolean.parseBoolean(System.getProperty("safety.soak", "false"));
        String runs = System.getProperty("safety.runs", "");
        int parallel = Integer.parseInt(System.getProperty("safety.parallel", "3"));
        Path dir = Path.of(System.getProperty("safety.dir", "target/safety-runs"));
        return new SuiteSettings(
                runs.isBlank() ? (soak ? SOAK_RUNS : 1) : Integer.parseInt(runs.trim()),
                soak ? Duration.ofSeconds(10) : Duration.ofSeconds(1),
                3,
                parallel,
                dir);
    }
}
