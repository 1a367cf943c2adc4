package io.leasehold.lock.testkit.redis;

import org.opentest4j.TestAbortedException;

/**
 * Decides where a topology's Redis comes from, in this order: {@code REDIS_URL} (an external
 * standalone server); a local {@code redis-server} ({@value RedisServerBinary#ENV_VARIABLE}, else
 * {@code PATH}); Docker through Testcontainers (standalone only; an optional dependency of lock-testkit,
 * so only when the user's tests have it). Sentinel and cluster need the
 * local binary. With none available it fails with a message saying how to get Redis, or, when the
 * user opted out with {@code -D}{@value RedisEnvironment#SKIP_PROPERTY}{@code =true}, aborts the
 * test (JUnit reports it as skipped, with the reason).
 */
final class RedisSource {

    static final String HOW_TO_GET_REDIS = String.join(
            "\n",
            "Get Redis one of these ways:",
            "  - install redis-server 7+ so that it is on PATH (Debian/Ubuntu: sudo apt-get install redis-server;"
                    + " macOS: brew install redis);",
            "  - or set " + RedisServerBinary.ENV_VARIABLE + "=/path/to/redis-server;",
            "  - or set " + RedisEnvironment.REDIS_URL + "=redis://host:port to use a running throwaway server"
                    + " (standalone only; the tests flush it);",
            "  - or start a Docker engine and add org.testcontainers:testcontainers to your test dependencies"
                    + " (lock-testkit declares it optional; Testcontainers then runs " + ContainerRedisNode.IMAGE
                    + "; standalone only).",
            "Sentinel and cluster topologies need a local redis-server binary.",
            "To skip the tests that need Redis instead, run with -D" + RedisEnvironment.SKIP_PROPERTY + "=true.");

    private RedisSource() {}

    static StandaloneRedis standalone(RedisEnvironment env) {
        if (env.redisUrl().isPresent()) {
            String url = env.redisUrl().get();
            ExternalRedisNode node = ExternalRedisNode.fromUrl(url);
            return new StandaloneRedis(node, url, () -> {});
        }
        RedisServerBinary binary = locate(env, "a standalone Redis");
        if (binary != null) {
            return StandaloneRedis.start(binary);
        }
        if (env.dockerAvailable()) {
            ContainerRedisNode node = ContainerRedisNode.start();
            return new StandaloneRedis(node, node.endpoint().uri(), node);
        }
        throw unavailable(
                env,
                "No Redis for a standalone topology: " + RedisEnvironment.REDIS_URL
                        + " is not set, no redis-server is on PATH, " + RedisServerBinary.ENV_VARIABLE
                        + " is not set, and Docker is not available.");
    }

    /** The local binary a Sentinel or cluster topology needs. */
    static RedisServerBinary binaryFor(RedisEnvironment env, String topology) {
        RedisServerBinary binary = locate(env, "a " + topology + " topology");
        if (binary == null) {
            throw unavailable(
                    env,
                    "No redis-server binary for a " + topology + " topology (which needs a local"
                            + " binary; " + RedisEnvironment.REDIS_URL + " and Docker give only a standalone server):"
                            + " none is on PATH and " + RedisServerBinary.ENV_VARIABLE + " is not set.");
        }
        return binary;
    }

    private static RedisServerBinary locate(RedisEnvironment env, String purpose) {
        try {
            return RedisServerBinary.locate(env.variables()).orElse(null);
        } catch (RedisFixtureException e) {
            throw unavailable(env, "Cannot start " + purpose + ": " + e.getMessage() + ".");
        }
    }

    private static RuntimeException unavailable(RedisEnvironment env, String problem) {
        String message = problem + "\n" + HOW_TO_GET_REDIS;
        if (env.skipRequested()) {
            return new TestAbortedException(
                    "skipped because -D" + RedisEnvironment.SKIP_PROPERTY + "=true: " + message);
        }
        return new RedisFixtureException(message);
    }
}
