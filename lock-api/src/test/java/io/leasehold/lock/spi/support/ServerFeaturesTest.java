package io.leasehold.lock.spi.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which pub/sub a server gets, from its {@code INFO server} text. */
class ServerFeaturesTest {

    @Test
    void shouldUseShardedPubSubFromRedis7On() {
        assertThat(ServerFeatures.supportsShardedPubSub(
                        "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n"))
                .isTrue();
        assertThat(ServerFeatures.supportsShardedPubSub("# Server\nredis_version:8.2.1\n"))
                .isTrue();
    }

    @Test
    void shouldUsePlainPubSubBeforeRedis7OrWhenTheVersionIsUnreadable() {
        assertThat(ServerFeatures.supportsShardedPubSub("# Server\r\nredis_version:6.2.14\r\n"))
                .isFalse();
        assertThat(ServerFeatures.supportsShardedPubSub("# Server\r\nredis_version:unknown\r\n"))
                .isFalse();
        assertThat(ServerFeatures.supportsShardedPubSub("# Server\r\n")).isFalse();
    }
}
