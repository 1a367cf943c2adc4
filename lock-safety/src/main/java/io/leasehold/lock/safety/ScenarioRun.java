package io.leasehold.lock.safety;

import io.leasehold.lock.history.History;
import io.leasehold.lock.history.HistoryReader;
import io.leasehold.lock.history.HistoryWriter;
import io.leasehold.lock.history.checker.CheckOptions;
import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.history.checker.HistoryChecker;
import io.leasehold.lock.history.fencing.FencedResource;
import io.leasehold.lock.testkit.faults.FaultProxy;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs one scenario once with one driver: starts a lock server (standalone, Sentinel, or the members of
 * a quorum) and, if the scenario wants them, a fault proxy per worker (per member, in a quorum); starts the worker processes; waits until each has
 * finished a section; injects the fault; waits until every live worker has finished a section after
 * it, lets the run go on for the settings' steady time; stops the workers; copies the fenced resources'
 * state into the history; and has the {@link HistoryChecker} and the scenario judge it.
 */
final class ScenarioRun {

    private static final Duration WORKER_START = Duration.ofSeconds(90);
    private static final Duration PROGRESS_AFTER_FAULT = Duration.ofSeconds(45);
    private static final Duration WORKER_STOP = Duration.ofSeconds(30);

    private final Scenario scenario;
    private final Driver driver;
    private final int number;
    private final SuiteSettings settings;
    private final RedisEndpoint resourceServer;
    private final Path dir;

    ScenarioRun(Scenario scenario, Driver driver, int number, SuiteSettings settings, RedisEndpoint resourceServer) {
        this.scenario = scenario;
        this.driver = driver;
        this.number = number;
        this.settings = settings;
        this.resourceServer = resourceServer;
        this.dir = settings.dir().resolve(scenario.name() + "-" + driver.label() + "-" + number);
    }

    RunResult run() {
        long began = System.nanoTime();
        List<String> failures = new ArrayList<>();
        RunContext context = null;
        CheckReport report = null;
        try {
            clean(dir);
            String prefix = "safety-" + dir.getFileName() + "-" + System.currentTimeMillis();
            context = runWorkers(prefix, failures);
            History history = HistoryReader.read(dir);
            report = HistoryChecker.check(
                    history,
                    CheckOptions.builder().maxSilence(Duration.ofSeconds(40)).build());
            context.facts(new HistoryFacts(history));
            scenario.judge(context, report);
            failures.addAll(context.failures());
        } catch (Exception | AssertionError e) {
            failures.add("the run broke: " + e);
            e.printStackTrace();
        }
        return new RunResult(
                scenario.name(),
                scenario.losesData(),
                driver,
                number,
                dir,
                report,
                failures,
                context == null ? List.of() : context.figures(),
                (System.nanoTime() - began) / 1e9);
    }

    private RunContext runWorkers(String prefix, List<String> failures) throws Exception {
        Map<WorkerProcess, List<FaultProxy>> proxies = new LinkedHashMap<>();
        List<FaultProxy> started = new ArrayList<>();
        List<WorkerProcess> workers = new ArrayList<>();
        boolean isQuorum = scenario.topology() == Scenario.Topology.QUORUM;
        try (QuorumServers quorum = isQuorum ? QuorumServers.start(scenario.quorumMembers()) : null;
                RedisTopology topology = isQuorum
                        ? null
                        : scenario.topology() == Scenario.Topology.SENTINEL
                                ? RedisFixtures.startSentinel()
                                : RedisFixtures.startStandalone();
                HistoryWriter nemesis = HistoryWriter.open(dir.resolve("nemesis.jsonl"), "nemesis")) {
            for (String lock : SuiteSettings.LOCKS) {
                try (FencedResource resource = FencedResource.on(resourceServer, prefix + ":" + lock)) {
                    resource.reset();
                }
            }
            try {
                for (int w = 1; w <= settings.workers(); w++) {
                    String name = "w" + w;
                    List<FaultProxy> workerProxies = new ArrayList<>();
                    String uri;
                    if (isQuorum) {
                        List<String> addresses = new ArrayList<>();
                        for (RedisEndpoint member : quorum.endpoints()) {
                            RedisEndpoint reached = member;
                            if (scenario.proxied()) {
                                FaultProxy proxy = FaultProxy.start(member);
                                started.add(proxy);
                                workerProxies.add(proxy);
                                reached = proxy.endpoint();
                            }
                            addresses.add(reached.host() + ":" + reached.port());
                        }
                        uri = LockClients.quorumUri(addresses);
                    } else {
                        uri = topology.uri();
                        if (scenario.proxied()) {
                            FaultProxy proxy =
                                    FaultProxy.start(topology.clientEndpoints().get(0));
                            started.add(proxy);
                            workerProxies.add(proxy);
                            uri = proxy.endpoint().uri();
                        }
                    }
                    WorkerArgs args = new WorkerArgs(
                            name,
                            driver,
                            uri,
                            resourceServer.host(),
                            resourceServer.port(),
                            prefix,
                            SuiteSettings.LOCKS,
                            Scenario.LEASE,
                            SuiteSettings.WAIT,
                            w == 1 ? scenario.targetHold().orElse(SuiteSettings.MIN_HOLD) : SuiteSettings.MIN_HOLD,
                            w == 1 ? scenario.targetHold().orElse(SuiteSettings.MAX_HOLD) : SuiteSettings.MAX_HOLD,
                            dir.resolve(name + ".jsonl"),
                            scenario.threadsPerWorker(),
                            scenario.fair());
                    WorkerProcess worker = WorkerProcess.start(args, dir.resolve(name + ".stderr.log"));
                    workers.add(worker);
                    if (!workerProxies.isEmpty()) {
                        proxies.put(worker, workerProxies);
                    }
                }
                RunContext context =
                        new RunContext(workers, proxies, topology, isQuorum ? quorum.servers() : List.of(), nemesis);
                awaitSectionEach(workers, new int[workers.size()], WORKER_START, "before the fault", failures);
                int[] marks =
                        workers.stream().mapToInt(WorkerProcess::lineCount).toArray();
                scenario.inject(context);
                awaitSectionEach(workers, marks, PROGRESS_AFTER_FAULT, "after the fault", failures);
                RunContext.sleep(settings.steady());
                stopAll(workers, failures);
                scenario.afterStop(context);
                copyResources(prefix);
                return context;
            } finally {
                for (WorkerProcess worker : workers) {
                    worker.close();
                }
                for (FaultProxy proxy : started) {
                    proxy.close();
                }
            }
        }
    }

    /** Waits until every live worker printed an {@code OUT} line after its mark. */
    private static void awaitSectionEach(
            List<WorkerProcess> workers, int[] marks, Duration timeout, String when, List<String> failures)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int i = 0; i < workers.size(); i++) {
            WorkerProcess worker = workers.get(i);
            if (!worker.isAlive() && marks[i] > 0) {
                continue; // killed by the scenario
            }
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (worker.awaitLine(marks[i], line -> line.startsWith("OUT "), left) < 0) {
                failures.add(worker.name() + " finished no section " + when + " within " + timeout
                        + (worker.isAlive() ? "" : " (it exited; see its stderr log)"));
            }
        }
    }

    private static void stopAll(List<WorkerProcess> workers, List<String> failures) throws InterruptedException {
        workers.forEach(WorkerProcess::stop);
        for (WorkerProcess worker : workers) {
            if (!worker.awaitExit(WORKER_STOP)) {
                failures.add(worker.name() + " did not stop within " + WORKER_STOP + " of being asked");
            }
        }
    }

    private void copyResources(String prefix) throws IOException {
        try (HistoryWriter runner = HistoryWriter.open(dir.resolve("runner.jsonl"), "runner")) {
            for (String lock : SuiteSettings.LOCKS) {
                try (FencedResource resource = FencedResource.on(resourceServer, prefix + ":" + lock)) {
                    resource.snapshot().toHistory("runner").forEach(runner::write);
                }
            }
        }
    }

    private static void clean(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
        Files.createDirectories(dir);
    }
}
