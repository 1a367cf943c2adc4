package io.leasehold.lock.safety;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Runs every scenario with both drivers as many times as the settings say, {@code parallel} runs at
 * a time, all fencing against one resource server that no fault touches; returns each run's result.
 */
final class SafetySuite {

    private SafetySuite() {}

    static List<RunResult> run(SuiteSettings settings, List<Supplier<Scenario>> scenarios) throws Exception {
        try (StandaloneRedis resourceServer = RedisFixtures.startStandalone()) {
            ExecutorService pool = Executors.newFixedThreadPool(settings.parallel(), runnable -> {
                Thread thread = new Thread(runnable, "safety-run");
                thread.setDaemon(true);
                return thread;
            });
            try {
                List<Future<RunResult>> runs = new ArrayList<>();
                for (int n = 1; n <= settings.runs(); n++) {
                    for (Supplier<Scenario> scenario : scenarios) {
                        for (Driver driver : Driver.values()) {
                            int number = n;
                            runs.add(pool.submit(() -> {
                                RunResult result = new ScenarioRun(
                                                scenario.get(), driver, number, settings, resourceServer.endpoint())
                                        .run();
                                System.out.printf(
                                        "safety: %s / %s run %d: %s in %.1f s %s%n",
                                        result.scenario(),
                                        driver.label(),
                                        number,
                                        result.passed() ? "passed" : "FAILED",
                                        result.seconds(),
                                        result.figures());
                                return result;
                            }));
                        }
                    }
                }
                List<RunResult> results = new ArrayList<>();
                for (Future<RunResult> run : runs) {
                    results.add(run.get());
                }
                return results;
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
