package io.leasehold.examples.readme;

import static io.leasehold.examples.readme.QuickStartRun.assertWroteOnceAndLeftNoLock;
import static io.leasehold.examples.readme.QuickStartRun.run;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's Jedis quick start (Jedis 8) as {@link ReadmeQuickStartsTest} runs the others. (A
 * class of its own: the consumer modules, on Jedis 6 and 7, run ReadmeJedisPooledQuickStartTest instead.)
 */
class ReadmeJedisQuickStartTest {

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
    void shouldRunJedisQuickStart() throws Exception {
        assertWroteOnceAndLeftNoLock(run(() -> JedisQuickStart.main(new String[] {redis.uri()})), redis.uri());
    }
}
