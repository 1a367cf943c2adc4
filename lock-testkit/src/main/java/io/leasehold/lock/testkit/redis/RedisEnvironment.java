package io.leasehold.lock.testkit.redis;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.testcontainers.DockerClientFactory;

/**
 * What decides where the fixtures get Redis from: the environment variables {@code REDIS_URL},
 * {@value RedisServerBinary#ENV_VARIABLE} and {@code PATH}, the opt-out system property
 * {@value #SKIP_PROPERTY}, and whether Docker is available. {@link #current()} reads the real
 * ones; tests pass their own to {@link #of}.
 *
 * <p>This class is immutable and threadsafe.
 *
 * @see RedisFixtures
 */
public final class RedisEnvironment {

    /**
     * System property: when {@code true}, tests that need Redis are skipped (aborted through JUnit's
     * assumptions, with the reason) instead of failing when no Redis can be had.
     */
    public static final String SKIP_PROPERTY = "leasehold.redis.skip";

    /** Environment variable naming an external standalone Redis, e.g. {@code redis://127.0.0.1:6380}. */
    public static final String REDIS_URL = "REDIS_URL";

    private final Map<String, String> env;
    private final boolean skipRequested;
    private final BooleanSupplier dockerAvailable;

    private RedisEnvironment(Map<String, String> env, boolean skipRequested, BooleanSupplier dockerAvailable) {
        this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
        this.skipRequested = skipRequested;
        this.dockerAvailable = Objects.requireNonNull(dockerAvailable, "dockerAvailable");
    }

    /** This JVM's environment, {@code -D}{@value #SKIP_PROPERTY} and Testcontainers' Docker probe. */
    public static RedisEnvironment current() {
        return new RedisEnvironment(System.getenv(), Boolean.getBoolean(SKIP_PROPERTY), RedisEnvironment::probeDocker);
    }

    /** An environment for tests: {@code env} stands for the environment variables. */
    public static RedisEnvironment of(Map<String, String> env, boolean skipRequested, BooleanSupplier dockerAvailable) {
        return new RedisEnvironment(env, skipRequested, dockerAvailable);
    }

    /** The environment variables. */
    public Map<String, String> variables() {
        return env;
    }

    /** {@code REDIS_URL}, when set and not blank. */
    public Optional<String> redisUrl() {
        return Optional.ofNullable(env.get(REDIS_URL)).filter(url -> !url.isBlank());
    }

    public boolean skipRequested() {
        return skipRequested;
    }

    /**
     * Asks Docker (only when called: the probe takes a moment); {@code false} also when Testcontainers
     * is not on the classpath.
     */
    public boolean dockerAvailable() {
        return dockerAvailable.getAsBoolean();
    }

    private static boolean probeDocker() {
        // Testcontainers is an optional dependency of lock-testkit: without it on the classpath the
        // first use of DockerClientFactory throws NoClassDefFoundError (a LinkageError), which means
        // "no Docker for us" just as an engine that is not running does.
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
