package io.leasehold.lock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LockGroupsTest {

    @Test
    void shouldGroupByThePartBeforeTheFirstColonByDefault() {
        LockGroups groups = new LockGroups(LockGroups::prefixBeforeColon, 10);

        assertThat(groups.groupOf("order:123")).isEqualTo("order");
        assertThat(groups.groupOf("order:123:line:4")).isEqualTo("order");
        assertThat(groups.groupOf("nightly-report")).isEqualTo("nightly-report");
        assertThat(groups.groupOf(":odd")).isEqualTo(LeaseholdMeters.OTHER_GROUP);
    }

    @Test
    void shouldSendGroupsBeyondTheCapToOtherAndKeepAdmittedOnes() {
        LockGroups groups = new LockGroups(name -> name, 2);

        assertThat(groups.groupOf("a")).isEqualTo("a");
        assertThat(groups.groupOf("b")).isEqualTo("b");
        assertThat(groups.groupOf("c")).isEqualTo(LeaseholdMeters.OTHER_GROUP);
        assertThat(groups.groupOf("a")).isEqualTo("a");
    }

    @Test
    void shouldSendNullEmptyOrFailingGroupsToOther() {
        assertThat(new LockGroups(name -> null, 5).groupOf("x")).isEqualTo(LeaseholdMeters.OTHER_GROUP);
        assertThat(new LockGroups(name -> "", 5).groupOf("x")).isEqualTo(LeaseholdMeters.OTHER_GROUP);
        assertThat(new LockGroups(
                                name -> {
                                    throw new IllegalStateException("broken");
                                },
                                5)
                        .groupOf("x"))
                .isEqualTo(LeaseholdMeters.OTHER_GROUP);
    }

    @Test
    void shouldRefuseACapBelowOne() {
        assertThatThrownBy(() -> LeaseholdMetrics.builder().maxLockGroups(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxLockGroups must be at least 1, but was 0");
    }

    @Test
    void shouldRefuseASecondRegistry() {
        LeaseholdMetrics metrics = LeaseholdMetrics.of(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());

        assertThatThrownBy(() -> metrics.bindTo(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("must be bound to one registry");
    }
}
