package io.leasehold.examples.readme;

import static io.leasehold.examples.readme.QuickStartRun.LOCK_KEY;
import static io.leasehold.examples.readme.QuickStartRun.lockKeyExists;
import static io.leasehold.examples.readme.QuickStartRun.run;
import static io.leasehold.examples.readme.QuickStartRun.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.examples.readme.QuickStartRun.Output;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's Java and Kotlin quick starts (both on Lettuce), exactly as a user would (their
 * {@code main}, given the URI of a redis-server this test starts on a free port), and checks what they
 * did: the lock was taken, the fencing tokens grew, nothing was reported lost, and no lock is left
 * held in Redis. The Jedis quick start has {@link ReadmeJedisQuickStartTest}.
 */
class ReadmeQuickStartsTest {

    /** This JVM's shared redis-server (started on first use, stopped when the JVM exits). */
    private static final StandaloneRedis redis = RedisFixtures.sharedStandalone();

    @Test
    void shouldRunTheJavaQuickStartTakingTheLockFourTimesWithGrowingTokens() throws Exception {
        Output output = run(() -> JavaQuickStart.main(new String[] {redis.uri()}));

        assertThat(output.stdoutLines()).hasSize(4);
        assertThat(output.stdoutLines().get(0)).isEqualTo("shipped order 42");
        long first = token(output.stdoutLines().get(1));
        long second = token(output.stdoutLines().get(2));
        assertThat(second).isGreaterThan(first);
        assertThat(output.stdoutLines().get(3)).isEqualTo("shipped order 42");
        assertThat(output.stderr()).isEmpty();
        assertThat(lockKeyExists(redis.uri()))
                .as("lock %s left held in Redis", LOCK_KEY)
                .isFalse();
    }

    @Test
    void shouldRunTheKotlinQuickStartWithItsReentrantBlock() throws Exception {
        Output output = run(() -> KotlinQuickStartKt.main(new String[] {redis.uri()}));

        assertThat(output.stdoutLines()).hasSize(2);
        assertThat(token(output.stdoutLines().get(0))).isPositive();
        assertThat(output.stdoutLines().get(1)).isEqualTo("audited order 42");
        assertThat(output.stderr()).isEmpty();
        assertThat(lockKeyExists(redis.uri()))
                .as("lock %s left held in Redis", LOCK_KEY)
                .isFalse();
    }
}
