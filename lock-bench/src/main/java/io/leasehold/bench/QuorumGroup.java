package io.leasehold.bench;

import io.leasehold.lock.testkit.redis.RedisServerBinary;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The quorum group (issue 22): starts {@link #NODES} standalone {@code redis-server}s of its own, as
 * {@link BenchMain} starts its server (each on a free port of its own), and runs its scenarios for every
 * {@link QuorumContender.Kind}, interleaved over the rounds as the other groups are (the order of the
 * contenders rotates from round to round), after one unrecorded warm-up of each. The servers are
 * stopped at the end. The nodes are not flushed between runs: a quorum whose members all lost their
 * data at once is a new quorum, but nothing here needs that, and the keys each run leaves are few.
 */
final class QuorumGroup {

    static final int NODES = 5;

    private QuorumGroup() {}

    static void run(
            BenchOptions options, RedisServerBinary binary, ClientResources resources, List<Measurement> results)
            throws Exception {
        List<StandaloneRedis> servers = new ArrayList<>();
        List<RedisProbe> probes = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                StandaloneRedis server = StandaloneRedis.start(binary);
                servers.add(server);
                probes.add(new RedisProbe(server.endpoint()));
            }
            List<String> uris = servers.stream().map(StandaloneRedis::uri).toList();
            BenchMain.say(
                    "quorum group: %d redis-servers on %s",
                    NODES,
                    servers.stream().map(s -> String.valueOf(s.endpoint())).toList());
            List<QuorumScenario> scenarios = List.of(
                    QuorumScenario.uncontended(1), QuorumScenario.uncontended(8), QuorumScenario.contended(8, 4));
            QuorumContender.Kind[] kinds = QuorumContender.Kind.values();
            // Not recorded: the JIT compiles every contender's paths, uncontended and contended, first
            for (QuorumScenario warmUp : List.of(QuorumScenario.uncontended(8), QuorumScenario.contended(8, 4))) {
                for (QuorumContender.Kind kind : kinds) {
                    try (QuorumContender contender = new QuorumContender(kind, uris, warmUp.clients(), resources)) {
                        warmUp.run(
                                contender,
                                probes,
                                options.warmUp(),
                                options.warmUp().multipliedBy(2));
                    }
                }
            }
            BenchMain.say("quorum group: warmed up every contender (not recorded)");
            for (int round = 0; round < options.rounds(); round++) {
                for (QuorumScenario scenario : scenarios) {
                    for (int k = 0; k < kinds.length; k++) {
                        QuorumContender.Kind kind = kinds[(k + round) % kinds.length];
                        run(scenario, kind, round, options, uris, probes, resources, options.window(), results);
                    }
                }
            }
        } finally {
            probes.forEach(RedisProbe::close);
            servers.forEach(StandaloneRedis::close);
        }
    }

    private static void run(
            QuorumScenario scenario,
            QuorumContender.Kind kind,
            int round,
            BenchOptions options,
            List<String> uris,
            List<RedisProbe> probes,
            ClientResources resources,
            Duration window,
            List<Measurement> results)
            throws Exception {
        try (QuorumContender contender = new QuorumContender(kind, uris, scenario.clients(), resources)) {
            Measurement measured = scenario.run(contender, probes, options.warmUp(), window);
            results.add(measured);
            BenchMain.say(
                    "[round %d/%d] %s — %s: %,.0f pairs/s, %.1f round trips/pair, %.1f commands/pair, p99 %,.0f µs",
                    round + 1,
                    options.rounds(),
                    scenario.name(),
                    contender.name(),
                    measured.figures().get(Figures.OPS_PER_SECOND),
                    measured.figures().get(Figures.CALLS_PER_OP),
                    measured.figures().get(Figures.COMMANDS_PER_OP),
                    measured.figures().get(Figures.ACQUIRE_P99_MICROS));
        }
    }
}
