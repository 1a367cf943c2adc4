package io.leasehold.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's quick starts, exactly as a user would (their {@code main}, given the URI of a
 * redis-server this test starts on a free port), and checks what they did: the lock was taken, the
 * fencing tokens grew, nothing was reported lost, and no lock is left held in Redis.
 */
class ReadmeQuickStartsTest {

    private static final Pattern WRITE = Pattern.compile("wrote order 42 with fencing token (\\d+)");
    private static final String LOCK_KEY = LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, "orders:42");

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
    void shouldRunTheJavaQuickStartTakingTheLockFourTimesWithGrowingTokens() throws Exception {
        Output output = run(() -> JavaQuickStart.main(new String[] {redis.uri()}));

        assertThat(output.stdoutLines()).hasSize(4);
        assertThat(output.stdoutLines().get(0)).isEqualTo("shipped order 42");
        long first = token(output.stdoutLines().get(1));
        long second = token(output.stdoutLines().get(2));
        assertThat(second).isGreaterThan(first);
        assertThat(output.stdoutLines().get(3)).isEqualTo("shipped order 42");
        assertThat(output.stderr()).isEmpty();
        assertThat(lockKeyExists()).as("lock %s left held in Redis", LOCK_KEY).isFalse();
    }

    @Test
    void shouldRunTheJedisQuickStart() throws Exception {
        Output output = run(() -> JedisQuickStart.main(new String[] {redis.uri()}));

        assertThat(output.stdoutLines()).hasSize(1);
        assertThat(token(output.stdoutLines().get(0))).isPositive();
        assertThat(output.stderr()).isEmpty();
        assertThat(lockKeyExists()).as("lock %s left held in Redis", LOCK_KEY).isFalse();
    }

    @Test
    void shouldRunTheKotlinQuickStartWithItsReentrantBlock() throws Exception {
        Output output = run(() -> KotlinQuickStartKt.main(new String[] {redis.uri()}));

        assertThat(output.stdoutLines()).hasSize(2);
        assertThat(token(output.stdoutLines().get(0))).isPositive();
        assertThat(output.stdoutLines().get(1)).isEqualTo("audited order 42");
        assertThat(output.stderr()).isEmpty();
        assertThat(lockKeyExists()).as("lock %s left held in Redis", LOCK_KEY).isFalse();
    }

    private static long token(String line) {
        Matcher matcher = WRITE.matcher(line);
        assertThat(matcher.matches()).as("a write line, but was '%s'", line).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    private static boolean lockKeyExists() {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().exists(LOCK_KEY) > 0;
        } finally {
            client.shutdown();
        }
    }

    /** What a quick start printed. */
    private record Output(List<String> stdoutLines, String stderr) {}

    private interface QuickStart {
        void run() throws Exception;
    }

    /** Runs {@code quickStart} with System.out and System.err captured (the tests of this class run one at a time). */
    private static Output run(QuickStart quickStart) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
        try {
            quickStart.run();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return new Output(
                stdout.toString(StandardCharsets.UTF_8).lines().toList(), stderr.toString(StandardCharsets.UTF_8));
    }
}
