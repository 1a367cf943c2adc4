package io.leasehold.lock.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.history.History;
import io.leasehold.lock.history.HistoryReader;
import io.leasehold.lock.history.HistoryWriter;
import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.history.checker.HistoryChecker;
import io.leasehold.lock.history.checker.ProcessProgress;
import io.leasehold.lock.history.fencing.FencedResource;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pieces of issue 10 used together as its workers will use them: workers (threads here, each
 * with its own LockClient on its own in-memory node) contend for one lock and increment a fenced
 * counter on a real redis-server, each writing its own history file; the runner copies the counter's
 * state; the checker reads the directory. A healthy run must pass, with every increment counted.
 */
class SafetyPiecesTogetherTest {

    private static final int WORKERS = 3;
    private static final int SECTIONS = 20;

    @TempDir
    Path dir;

    @Test
    void shouldPassTheHistoryOfAHealthyContendedRun() throws Exception {
        try (StandaloneRedis resourceServer = RedisFixtures.startStandalone();
                FencedResource runnerView = FencedResource.on(resourceServer.endpoint(), "counter")) {
            runnerView.reset();
            InMemoryLockBackend store = new InMemoryLockBackend();
            ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int w = 1; w <= WORKERS; w++) {
                    String process = "w" + w;
                    done.add(pool.submit(() -> {
                        try (HistoryWriter history = HistoryWriter.open(dir.resolve(process + ".jsonl"), process);
                                InMemoryLockBackend node = store.newNode();
                                LockClient locks = LockClient.create(node);
                                FencedResource counter = FencedResource.on(resourceServer.endpoint(), "counter")) {
                            new ExampleWorker(process, locks, counter, history)
                                    .run("L", SECTIONS, Duration.ofSeconds(30));
                        }
                        return null;
                    }));
                }
                for (Future<?> future : done) {
                    future.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
                store.close();
            }
            try (HistoryWriter runner = HistoryWriter.open(dir.resolve("runner.jsonl"), "runner")) {
                runnerView.snapshot().toHistory("runner").forEach(runner::write);
            }
        }

        History history = HistoryReader.read(dir);
        CheckReport report = HistoryChecker.check(history);

        assertTrue(report.passed(), report.summary());
        assertEquals(List.of(), report.overlaps(), report.summary());
        assertEquals(List.of(), report.notes(), report.summary());
        for (int w = 1; w <= WORKERS; w++) {
            ProcessProgress progress = report.progress().get("w" + w);
            assertEquals(SECTIONS, progress.acquired(), report.summary());
            assertEquals(2L * SECTIONS, progress.accepted(), report.summary());
        }
        assertEquals(
                0,
                HistoryChecker.run(
                        new String[] {dir.toString()},
                        new java.io.PrintStream(java.io.OutputStream.nullOutputStream()),
                        System.err),
                "the command line agrees");
    }
}
