package io.leasehold.lock

import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

class LockOptionsDslTest {

    @Test
    fun shouldBuildTheDefaultsFromAnEmptyBlock() {
        assertThat(LockOptions { }).isEqualTo(LockOptions.defaults())
    }

    @Test
    fun shouldBuildWhatTheJavaBuilderBuilds() {
        val options = LockOptions {
            leaseTime = 10.seconds
            autoRenew = false
            maxHoldTime = 2.minutes
            defaultWait = 500.milliseconds
        }

        assertThat(options).isEqualTo(
            LockOptions.builder()
                .leaseTime(java.time.Duration.ofSeconds(10))
                .autoRenew(false)
                .maxHoldTime(java.time.Duration.ofMinutes(2))
                .defaultWait(java.time.Duration.ofMillis(500))
                .build(),
        )
    }

    @Test
    fun shouldStartFromTheCurrentValues() {
        LockOptions {
            assertThat(leaseTime).isEqualTo(30.seconds)
            assertThat(autoRenew).isTrue()
            assertThat(maxHoldTime).isNull()
            assertThat(defaultWait).isEqualTo(30.seconds)
        }
    }

    @Test
    fun shouldCopyKeepingWhatIsNotChanged() {
        val base = LockOptions { leaseTime = 5.seconds; maxHoldTime = 1.minutes }

        val copy = base.copy { autoRenew = false; maxHoldTime = null }

        assertThat(copy.leaseTime()).isEqualTo(java.time.Duration.ofSeconds(5))
        assertThat(copy.autoRenew()).isFalse()
        assertThat(copy.maxHoldTime()).isEmpty()
        assertThat(base.autoRenew()).isTrue()
    }

    @Test
    fun shouldRejectAZeroLeaseTimeWithTheJavaMessage() {
        assertThatThrownBy { LockOptions { leaseTime = Duration.ZERO } }
            .isInstanceOf(IllegalArgumentException::class.java)
            .hasMessage("leaseTime must be greater than 0, but was PT0S")
    }

    @Test
    fun shouldRejectANegativeDefaultWaitWithTheJavaMessage() {
        assertThatThrownBy { LockOptions { defaultWait = (-1).seconds } }
            .isInstanceOf(IllegalArgumentException::class.java)
            .hasMessage("defaultWait must not be negative, but was PT-1S")
    }

    @Test
    fun shouldRejectAMaxHoldTimeShorterThanTheLeaseTimeWithTheJavaMessage() {
        assertThatThrownBy { LockOptions { leaseTime = 10.seconds; maxHoldTime = 5.seconds } }
            .isInstanceOf(IllegalArgumentException::class.java)
            .hasMessage("maxHoldTime must be at least leaseTime (PT10S), but was PT5S")
    }

    @Test
    fun shouldNameTheLockInEveryMessageWhenTheOptionsAreForAKnownLock() {
        assertThatThrownBy { LockOptions(forLock = "orders:42") { leaseTime = Duration.ZERO } }
            .isInstanceOf(IllegalArgumentException::class.java)
            .hasMessage("leaseTime must be greater than 0, but was PT0S (lock 'orders:42')")
        assertThatThrownBy {
            LockOptions(forLock = "orders:42") {
                leaseTime = 10.seconds
                maxHoldTime = 5.seconds
            }
        }.hasMessage("maxHoldTime must be at least leaseTime (PT10S), but was PT5S (lock 'orders:42')")
    }
}
