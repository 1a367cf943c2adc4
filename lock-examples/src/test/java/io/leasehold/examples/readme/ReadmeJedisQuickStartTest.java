package io.leasehold.examples.readme;

import static io.leasehold.examples.readme.QuickStartRun.assertWroteOnceAndLeftNoLock;
import static io.leasehold.examples.readme.QuickStartRun.run;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's Jedis quick start (Jedis 8) as {@link ReadmeQuickStartsTest} runs the others. (A
 * class of its own: the consumer modules, on Jedis 6 and 7, run ReadmeJedisPooledQuickStartTest instead.)
 */
class ReadmeJedisQuickStartTest {

    /** This JVM's shared redis-server (started on first use, stopped when the JVM exits). */
    private static final StandaloneRedis redis = RedisFixtures.sharedStandalone();

    @Test
    void shouldRunJedisQuickStart() throws Exception {
        assertWroteOnceAndLeftNoLock(run(() -> JedisQuickStart.main(new String[] {redis.uri()})), redis.uri());
    }
}
