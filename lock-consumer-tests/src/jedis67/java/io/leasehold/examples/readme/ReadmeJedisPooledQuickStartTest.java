package io.leasehold.examples.readme;

import static io.leasehold.examples.readme.QuickStartRun.assertWroteOnceAndLeftNoLock;
import static io.leasehold.examples.readme.QuickStartRun.run;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's Jedis quick start for Jedis 6 and 7 as {@code ReadmeQuickStartsTest} runs the
 * others, with the consumer module's Jedis.
 */
class ReadmeJedisPooledQuickStartTest {

    private static StandaloneRedis redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisFixtures.startStandalone();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void shouldRunJedisPooledQuickStart() throws Exception {
        assertWroteOnceAndLeftNoLock(run(() -> JedisPooledQuickStart.main(new String[] {redis.uri()})), redis.uri());
    }
}
