package io.leasehold.bench;

import io.leasehold.lock.testkit.redis.RedisServerBinary;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs every scenario for every contender on one {@code redis-server} it starts itself, interleaved:
 * each round runs each scenario for all contenders (in an order that rotates from round to round),
 * so that a noisy moment of the machine hurts all of them alike. Then writes the Markdown table and
 * the charts. The command is in the README.
 */
public final class BenchMain {

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        BenchOptions options = BenchOptions.parse(args);
        RedisServerBinary binary = RedisServerBinary.locate()
                .orElseThrow(() -> new IllegalStateException("the bench needs redis-server on the PATH (or "
                        + RedisServerBinary.ENV_VARIABLE + "); install Redis 7"));
        long started = System.nanoTime();
        List<Measurement> results = new ArrayList<>();
        List<Measurement> quorum = new ArrayList<>();
        try (StandaloneRedis redis = StandaloneRedis.start(binary);
                RedisProbe probe = new RedisProbe(redis.endpoint())) {
            ClientResources resources = DefaultClientResources.create();
            try {
                say(
                        "redis-server on %s; scenarios %s; %d rounds of %s per throughput run; results to %s",
                        redis.endpoint(),
                        options.scenarios(),
                        options.rounds(),
                        options.window(),
                        options.out().toAbsolutePath());
                runAll(options, redis, probe, resources, results);
                if (options.runs(BenchOptions.QUORUM)) {
                    QuorumGroup.run(options, binary, resources, quorum);
                }
            } finally {
                resources.shutdown(0, 2, TimeUnit.SECONDS);
            }
            Environment environment = Environment.describe(probe, options);
            new Report(results, quorum, environment).write(options.out());
            Charts.write(results, options.out());
        }
        say(
                "done in %.0f s: %s",
                (System.nanoTime() - started) / 1e9,
                options.out().resolve(Report.FILE).toAbsolutePath());
        double fifoViolations = results.stream()
                .mapToDouble(run -> run.figures().getOrDefault(Figures.FIFO_VIOLATIONS, 0.0))
                .sum();
        if (fifoViolations > 0) {
            // the figures are written, but a bench that saw a fair lock break its order must not pass
            say(
                    "FIFO ORDER VIOLATED: %.0f violation(s) found by the FIFO audit (above, and in %s)",
                    fifoViolations, Report.FILE);
            System.exit(1);
        }
        System.exit(0); // clients' non-daemon threads (Redisson's) must not keep the JVM up
    }

    private static void runAll(
            BenchOptions options,
            StandaloneRedis redis,
            RedisProbe probe,
            ClientResources resources,
            List<Measurement> results)
            throws Exception {
        List<Scenario> throughput = new ArrayList<>();
        if (options.runs(BenchOptions.UNCONTENDED)) {
            throughput.add(ThroughputScenario.uncontended(1));
            throughput.add(ThroughputScenario.uncontended(32));
        }
        if (options.runs(BenchOptions.CONTENDED)) {
            throughput.add(ThroughputScenario.contended(8, 4, options.fifoAudit()));
            throughput.add(ThroughputScenario.contended(32, 4, options.fifoAudit()));
            throughput.add(ThroughputScenario.contended(8, 1, options.fifoAudit()));
            throughput.add(ThroughputScenario.contended(32, 1, options.fifoAudit()));
        }
        String sha = String.valueOf(probe.loadScript(RawScriptContender.ACQUIRE));
        ContenderKind[] kinds = ContenderKind.values();
        if (!throughput.isEmpty()) {
            // Not recorded: lets the JIT compile every contender's paths before the first measured run,
            // the contended ones too (waiting, release messages, grants), which an uncontended run
            // never takes; without it the first contended rows of round 1 measure the compiler.
            List<ThroughputScenario> warmUps = new ArrayList<>();
            warmUps.add(ThroughputScenario.uncontended(8));
            if (options.runs(BenchOptions.CONTENDED)) {
                warmUps.add(ThroughputScenario.contended(8, 4, false));
            }
            for (ThroughputScenario warmUp : warmUps) {
                for (ContenderKind kind : kinds) {
                    probe.flush();
                    try (Contender contender = kind.create(redis.uri(), warmUp.clients(), resources, null)) {
                        if (warmUp.appliesTo(contender)) {
                            warmUp.run(
                                    contender,
                                    probe,
                                    options.warmUp(),
                                    options.warmUp().multipliedBy(2));
                        }
                    }
                }
            }
            say("warmed up every contender (not recorded)");
        }
        for (int round = 0;
                round < options.rounds() && (!throughput.isEmpty() || options.runs(BenchOptions.LIMIT));
                round++) {
            for (Scenario scenario : throughput) {
                for (int k = 0; k < kinds.length; k++) {
                    ContenderKind kind = kinds[(k + round) % kinds.length];
                    run(scenario, kind, round, options, redis, probe, resources, options.window(), results);
                }
            }
            if (options.runs(BenchOptions.LIMIT)) {
                probe.flush();
                probe.loadScript(RawScriptContender.ACQUIRE);
                Measurement limit = ScriptLimit.run(redis.endpoint(), sha, options.limitRequests());
                results.add(limit);
                say(
                        "[round %d/%d] %s: %,.0f script calls/s",
                        round + 1,
                        options.rounds(),
                        limit.scenario(),
                        limit.figures().get(Figures.LIMIT_CALLS_PER_SECOND));
            }
            probe.flush();
        }
        List<Scenario> once = new ArrayList<>();
        if (options.runs(BenchOptions.WAITING)) {
            once.add(new WaitingScenario(8, 4));
        }
        if (options.runs(BenchOptions.DEAD_WAITER)) {
            once.add(new DeadWaiterScenario());
        }
        if (options.runs(BenchOptions.RENEWAL)) {
            for (int leases : options.renewedLeases()) {
                once.add(new RenewalScenario(leases));
            }
        }
        for (Scenario scenario : once) {
            for (ContenderKind kind : kinds) {
                Duration window = scenario instanceof WaitingScenario ? options.waitingWindow() : options.window();
                run(scenario, kind, 0, options, redis, probe, resources, window, results);
            }
        }
    }

    private static void run(
            Scenario scenario,
            ContenderKind kind,
            int round,
            BenchOptions options,
            StandaloneRedis redis,
            RedisProbe probe,
            ClientResources resources,
            Duration window,
            List<Measurement> results)
            throws Exception {
        probe.flush();
        try (Contender contender = kind.create(redis.uri(), scenario.clients(), resources, scenario.renewPeriod())) {
            if (!scenario.appliesTo(contender)) {
                return;
            }
            Measurement measured = scenario.run(contender, probe, options.warmUp(), window);
            results.add(measured);
            say(
                    "[round %d/%d] %s — %s: %s",
                    round + 1, options.rounds(), scenario.name(), contender.name(), headline(measured));
        }
    }

    private static String headline(Measurement measured) {
        StringBuilder line = new StringBuilder();
        measured.figures().forEach((figure, value) -> {
            if (line.length() > 0) {
                line.append(", ");
            }
            line.append(String.format(Locale.ROOT, "%s %,.1f", figure, value));
        });
        return line.toString();
    }

    static void say(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, format, args));
        System.out.flush();
    }
}
