package io.leasehold.lock.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ChecksTest {

    @Test
    void shouldAcceptWellFormedNamesOfAnyScript() {
        for (String name : new String[] {"orders:42", "}x", "%7D", "🔒", "注文", "e\u0301\u0327", "x".repeat(512)}) {
            assertThat(Checks.lockName(name)).isSameAs(name);
        }
    }

    @Test
    void shouldRejectANameWithAnUnpairedHighSurrogateNamingItsIndexAndTheName() {
        assertThatThrownBy(() -> Checks.lockName("abc\uD800"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "name must be well-formed Unicode, but has an unpaired surrogate \\uD800 at index 3 ('abc\\uD800')");
    }

    @Test
    void shouldRejectAHighSurrogateFollowedByAnotherCharacter() {
        assertThatThrownBy(() -> Checks.lockName("a\uD83Db"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "name must be well-formed Unicode, but has an unpaired surrogate \\uD83D at index 1 ('a\\uD83Db')");
    }

    @Test
    void shouldRejectAnUnpairedLowSurrogate() {
        assertThatThrownBy(() -> Checks.lockName("\uDD12lock"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "name must be well-formed Unicode, but has an unpaired surrogate \\uDD12 at index 0 ('\\uDD12lock')");
    }

    @Test
    void shouldTellTwoNamesApartThatJavaWouldEncodeToTheSameBytes() {
        // Both encode to UTF-8 as "ab?": without the check they would share one lock.
        assertThatThrownBy(() -> Checks.lockName("ab\uD800")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Checks.lockName("ab\uDC00")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Checks.lockName("ab?")).isEqualTo("ab?");
    }

    @Test
    void shouldKeepTheOtherNameRules() {
        assertThatThrownBy(() -> Checks.lockName(null)).hasMessage("name must not be null");
        assertThatThrownBy(() -> Checks.lockName(" ")).hasMessage("name must not be blank, but was ' '");
        assertThatThrownBy(() -> Checks.lockName("x".repeat(513)))
                .hasMessageStartingWith("name must be at most 512 characters, but was 513 characters");
    }
}
