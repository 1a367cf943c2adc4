package io.leasehold.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LockKeys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one of the README's quick starts as a user would (its {@code main}) and reads what it did: its
 * output, the fencing tokens it printed, and whether it left its lock in Redis. Shared by the quick
 * start tests here and by the modules that run them again on older client and Kotlin versions.
 */
final class QuickStartRun {

    private static final Pattern WRITE = Pattern.compile("wrote order 42 with fencing token (\\d+)");
    static final String LOCK_KEY = LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, "orders:42");

    /** What a quick start printed. */
    record Output(List<String> stdoutLines, String stderr) {}

    interface QuickStart {
        void run() throws Exception;
    }

    private QuickStartRun() {}

    /** Runs {@code quickStart} with System.out and System.err captured (the tests that call this run one at a time). */
    static Output run(QuickStart quickStart) throws Exception {
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

    /** The fencing token of a "wrote order 42 with fencing token N" line. */
    static long token(String line) {
        Matcher matcher = WRITE.matcher(line);
        assertThat(matcher.matches()).as("a write line, but was '%s'", line).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    /**
     * Checks what a Jedis quick start did: one write with its fencing token, nothing on stderr, and
     * no lock left held in the Redis at {@code uri}.
     */
    static void assertWroteOnceAndLeftNoLock(Output output, String uri) {
        assertThat(output.stdoutLines()).hasSize(1);
        assertThat(token(output.stdoutLines().get(0))).isPositive();
        assertThat(output.stderr()).isEmpty();
        assertThat(lockKeyExists(uri))
                .as("lock %s left held in Redis", LOCK_KEY)
                .isFalse();
    }

    /** Whether the quick starts' lock is still held in the Redis at {@code uri}. */
    static boolean lockKeyExists(String uri) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().exists(LOCK_KEY) > 0;
        } finally {
            client.shutdown();
        }
    }
}
