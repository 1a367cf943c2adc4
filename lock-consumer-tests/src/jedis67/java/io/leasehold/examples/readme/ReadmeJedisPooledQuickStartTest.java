package io.leasehold.examples.readme;

import static io.leasehold.examples.readme.QuickStartRun.assertWroteOnceAndLeftNoLock;
import static io.leasehold.examples.readme.QuickStartRun.run;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's Jedis quick start for Jedis 6 and 7 as {@code ReadmeQuickStartsTest} runs the
 * others, with the consumer module's Jedis.
 */
class ReadmeJedisPooledQuickStartTest {

    /** This JVM's shared redis-server (started on first use, stopped when the JVM exits). */
    private static final StandaloneRedis redis = RedisFixtures.sharedStandalone();

    @Test
    void shouldRunJedisPooledQuickStart() throws Exception {
        assertWroteOnceAndLeftNoLock(run(() -> JedisPooledQuickStart.main(new String[] {redis.uri()})), redis.uri());
    }
}
