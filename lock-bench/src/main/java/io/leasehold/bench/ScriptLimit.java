package io.leasehold.bench;

import io.leasehold.lock.testkit.redis.RedisEndpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's limit for this kind of work: {@code redis-benchmark} calling the raw baseline's
 * one-key {@code SET NX PX} script by {@code EVALSHA} from 32 connections on random keys. An
 * acquire + release pair needs two such calls, so half this rate bounds any lock's pairs/s.
 */
final class ScriptLimit {

    private static final Pattern RATE = Pattern.compile("([0-9.]+) requests per second");

    private ScriptLimit() {}

    static Measurement run(RedisEndpoint endpoint, String sha, int requests) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(
                        "redis-benchmark",
                        "-h",
                        endpoint.host(),
                        "-p",
                        Integer.toString(endpoint.port()),
                        "-c",
                        "32",
                        "-n",
                        Integer.toString(requests),
                        "-r",
                        "1000000",
                        "-q",
                        "EVALSHA",
                        sha,
                        "1",
                        "bench:limit:__rand_int__",
                        "owner",
                        "30000"))
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException("redis-benchmark failed: " + output);
        }
        Matcher rate = RATE.matcher(output.substring(Math.max(0, output.lastIndexOf("EVALSHA"))));
        if (!rate.find()) {
            throw new IllegalStateException("no rate in redis-benchmark's output: " + output);
        }
        return Measurement.of("limit: redis-benchmark EVALSHA SET NX PX, 32 connections", "redis-benchmark")
                .put(Figures.LIMIT_CALLS_PER_SECOND, Double.parseDouble(rate.group(1)))
                .build();
    }
}
