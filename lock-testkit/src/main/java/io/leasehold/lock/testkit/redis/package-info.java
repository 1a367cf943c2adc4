/**
 * Real Redis for driver tests: {@code redis-server} processes started on free loopback ports
 * (never 6379), each in its own temp directory with persistence off, stopped and deleted on close
 * and by a JVM shutdown hook.
 *
 * <ul>
 *   <li>{@link io.leasehold.lock.testkit.redis.RedisFixtures} — entry points: {@code startStandalone()},
 *       {@code startSentinel()}, {@code startCluster()} (caller closes) and {@code sharedStandalone()},
 *       {@code sharedSentinel()}, {@code sharedCluster()} (one per JVM).</li>
 *   <li>{@link io.leasehold.lock.testkit.redis.StandaloneRedis},
 *       {@link io.leasehold.lock.testkit.redis.SentinelRedis},
 *       {@link io.leasehold.lock.testkit.redis.ClusterRedis} — the topologies, all
 *       {@link io.leasehold.lock.testkit.redis.RedisTopology}: client URI and endpoints, admin access,
 *       pause/resume/restore of the whole deployment.</li>
 *   <li>{@link io.leasehold.lock.testkit.redis.RedisNode} — one server: admin commands, kill,
 *       restart, pause (SIGSTOP), resume (SIGCONT).</li>
 *   <li>{@link io.leasehold.lock.testkit.redis.RedisLockBackendFixture} — the conformance suite's
 *       {@link io.leasehold.lock.testkit.LockBackendFixture} over a topology and a driver's backend
 *       factory.</li>
 *   <li>{@link io.leasehold.lock.testkit.redis.RespClient} — the minimal RESP2 admin client (no Redis
 *       client library in the testkit).</li>
 * </ul>
 *
 * <p><b>Where Redis comes from</b>: {@code REDIS_URL} (external standalone server), else a local
 * {@code redis-server} ({@code LEASEHOLD_REDIS_SERVER} or {@code PATH}), else Docker through
 * Testcontainers (standalone only). Without any, the fixtures fail with a message saying how to get
 * Redis — unless the tests run with {@code -Dleasehold.redis.skip=true}, which makes them skipped
 * (JUnit assumption aborted) with the reason instead.
 */
package io.leasehold.lock.testkit.redis;
