package io.leasehold.lock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LockKeysTest {

    private static final String PREFIX = "leasehold:";

    /** Names that a naive {@code <prefix>{<name>}} gets wrong: braces, percent signs, their escapes. */
    private static final List<String> TRICKY = List.of(
            "}",
            "}x",
            "}}",
            "{",
            "{}",
            "}{",
            "a}b{c",
            "%",
            "%25",
            "%7D",
            "%257D",
            "}%7D",
            "%}",
            "%%7D",
            "x}",
            "orders:42",
            "🔒",
            "注文",
            "e\u0301",
            "}".repeat(512));

    /** The part of {@code key} Redis Cluster hashes when it is not empty: between the first '{' and the next '}'. */
    private static String hashTag(String key) {
        int open = key.indexOf('{');
        int close = key.indexOf('}', open + 1);
        return open < 0 || close < 0 ? "" : key.substring(open + 1, close);
    }

    @Test
    void shouldKeepReadableKeysForNamesWithoutPercentOrClosingBrace() {
        assertThat(LockKeys.lockKey(PREFIX, "orders:42")).isEqualTo("leasehold:{orders:42}");
        assertThat(LockKeys.fenceKey(PREFIX, "orders:42")).isEqualTo("leasehold:{orders:42}:fence");
        assertThat(LockKeys.releaseChannel(PREFIX, "orders:42")).isEqualTo("leasehold:{orders:42}:released");
        assertThat(LockKeys.queueKey(PREFIX, "orders:42")).isEqualTo("leasehold:{orders:42}:queue");
        assertThat(LockKeys.waitersKey(PREFIX, "orders:42")).isEqualTo("leasehold:{orders:42}:waiters");
        assertThat(LockKeys.lockKey(PREFIX, "a{b")).isEqualTo("leasehold:{a{b}");
        assertThat(LockKeys.lockKey(PREFIX, "注文 🔒")).isEqualTo("leasehold:{注文 🔒}");
    }

    @Test
    void shouldEscapePercentAndClosingBraceInsideTheBraces() {
        assertThat(LockKeys.lockKey(PREFIX, "}x")).isEqualTo("leasehold:{%7Dx}");
        assertThat(LockKeys.lockKey(PREFIX, "%")).isEqualTo("leasehold:{%25}");
        assertThat(LockKeys.lockKey(PREFIX, "%7D")).isEqualTo("leasehold:{%257D}");
        assertThat(LockKeys.lockKey(PREFIX, "}%7D")).isEqualTo("leasehold:{%7D%257D}");
        assertThat(LockKeys.fenceKey(PREFIX, "a}b")).isEqualTo("leasehold:{a%7Db}:fence");
        assertThat(LockKeys.releaseChannel(PREFIX, "a}b")).isEqualTo("leasehold:{a%7Db}:released");
    }

    @Test
    void shouldMapDistinctNamesToDistinctKeys() {
        Set<String> lockKeys = new HashSet<>();
        Set<String> allKeys = new HashSet<>();
        for (String name : TRICKY) {
            lockKeys.add(LockKeys.lockKey(PREFIX, name));
            allKeys.add(LockKeys.lockKey(PREFIX, name));
            allKeys.add(LockKeys.fenceKey(PREFIX, name));
            allKeys.add(LockKeys.releaseChannel(PREFIX, name));
        }

        assertThat(lockKeys).hasSize(TRICKY.size());
        assertThat(allKeys)
                .as("no lock key, fence key or channel of one name is a key of another")
                .hasSize(3 * TRICKY.size());
    }

    @Test
    void shouldGiveAllKeysOfALockOneNonEmptyHashTagWithoutClosingBrace() {
        for (String name : TRICKY) {
            String tag = hashTag(LockKeys.lockKey(PREFIX, name));

            assertThat(tag).as("hash tag of %s", name).isNotEmpty().doesNotContain("}");
            assertThat(hashTag(LockKeys.fenceKey(PREFIX, name)))
                    .as("fence key of %s", name)
                    .isEqualTo(tag);
            assertThat(hashTag(LockKeys.releaseChannel(PREFIX, name)))
                    .as("channel of %s", name)
                    .isEqualTo(tag);
            assertThat(hashTag(LockKeys.queueKey(PREFIX, name)))
                    .as("wait queue of %s", name)
                    .isEqualTo(tag);
            assertThat(hashTag(LockKeys.waitersKey(PREFIX, name)))
                    .as("waiter leases of %s", name)
                    .isEqualTo(tag);
        }
    }

    @Test
    void shouldRejectAnEmptyNameWhoseHashTagWouldBeEmpty() {
        assertThatThrownBy(() -> LockKeys.lockKey(PREFIX, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be empty: its hash tag {} would be empty, and Redis Cluster would hash"
                        + " each key of the lock on its own");
    }
}
