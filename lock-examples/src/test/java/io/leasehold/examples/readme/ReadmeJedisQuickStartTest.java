package io.leasehold.examples.readme;

import static io.leasehold.examples.readme.QuickStartRun.LOCK_KEY;
import static io.leasehold.examples.readme.QuickStartRun.lockKeyExists;
import static io.leasehold.examples.readme.QuickStartRun.run;
import static io.leasehold.examples.readme.QuickStartRun.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.examples.readme.QuickStartRun.Output;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's Jedis quick start as {@link ReadmeQuickStartsTest} runs the others: its fencing
 * token printed, nothing on stderr, no lock left held in Redis. (A class of its own, so that a build
 * on a Jedis that cannot compile it can still run the others.)
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
    void shouldRunTheJedisQuickStart() throws Exception {
        Output output = run(() -> JedisQuickStart.main(new String[] {redis.uri()}));

        assertThat(output.stdoutLines()).hasSize(1);
        assertThat(token(output.stdoutLines().get(0))).isPositive();
        assertThat(output.stderr()).isEmpty();
        assertThat(lockKeyExists(redis.uri()))
                .as("lock %s left held in Redis", LOCK_KEY)
                .isFalse();
    }
}
