package io.leasehold.lock.testkit.redis;

/**
 * Entry points for driver tests that need a real Redis: fresh topologies the caller closes, and
 * per-JVM shared ones (started lazily, stopped by a shutdown hook) so that many test classes can
 * use one Sentinel group or cluster without paying its startup each time.
 *
 * <p><b>Where Redis comes from</b>, in order: env {@code REDIS_URL} (an external standalone server,
 * flushed by the tests, never stopped; process faults are then unsupported, with the reason); a
 * local {@code redis-server} from env {@value RedisServerBinary#ENV_VARIABLE} or {@code PATH};
 * Docker via Testcontainers ({@code redis:7}, standalone only). Sentinel and cluster need the local
 * binary. When none is available the call throws {@link RedisFixtureException} with a message
 * that says how to get Redis, unless the system property
 * {@code -D}{@value RedisEnvironment#SKIP_PROPERTY}{@code =true} is set: then it throws JUnit's
 * {@link org.opentest4j.TestAbortedException}, and the test is reported as skipped with the reason.
 * Local servers never use ports 6379, 16379 or 26379.
 *
 * <p>This class is threadsafe.
 */
public final class RedisFixtures {

    private static StandaloneRedis sharedStandalone;
    private static SentinelRedis sharedSentinel;
    private static ClusterRedis sharedCluster;

    private RedisFixtures() {}

    /** Starts a standalone Redis for the caller, who closes it. */
    public static StandaloneRedis startStandalone() {
        return startStandalone(RedisEnvironment.current());
    }

    /** {@link #startStandalone()} with an explicit environment. */
    public static StandaloneRedis startStandalone(RedisEnvironment env) {
        return RedisSource.standalone(env);
    }

    /**
     * The JVM-wide shared standalone Redis, started on first use and stopped when the JVM exits.
     * Do not close it; flush it instead (a {@link RedisLockBackendFixture} over it does).
     */
    public static synchronized StandaloneRedis sharedStandalone() {
        if (sharedStandalone == null) {
            sharedStandalone = startStandalone();
            ProcessReaper.register(sharedStandalone);
        }
        return sharedStandalone;
    }

    /** Starts a Sentinel group (master, replica, three Sentinels) for the caller, who closes it; needs a local redis-server. */
    public static SentinelRedis startSentinel() {
        return startSentinel(RedisEnvironment.current());
    }

    /** {@link #startSentinel()} with an explicit environment. */
    public static SentinelRedis startSentinel(RedisEnvironment env) {
        return SentinelRedis.start(RedisSource.binaryFor(env, "Sentinel"));
    }

    /** The JVM-wide shared Sentinel group; see {@link #sharedStandalone()}. */
    public static synchronized SentinelRedis sharedSentinel() {
        if (sharedSentinel == null) {
            sharedSentinel = startSentinel();
            ProcessReaper.register(sharedSentinel);
        }
        return sharedSentinel;
    }

    /** Starts a three-master cluster for the caller, who closes it; needs a local redis-server. */
    public static ClusterRedis startCluster() {
        return startCluster(RedisEnvironment.current());
    }

    /** {@link #startCluster()} with an explicit environment. */
    public static ClusterRedis startCluster(RedisEnvironment env) {
        return ClusterRedis.start(RedisSource.binaryFor(env, "cluster"));
    }

    /** The JVM-wide shared three-master cluster; see {@link #sharedStandalone()}. */
    public static synchronized ClusterRedis sharedCluster() {
        if (sharedCluster == null) {
            sharedCluster = startCluster();
            ProcessReaper.register(sharedCluster);
        }
        return sharedCluster;
    }
}
