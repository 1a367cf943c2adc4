package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Script replies reach the engine exactly as the SPI states (Long, String, List, null), over RESP2 and RESP3. */
class LettuceReplyMappingTest {

    private static final Map<ProtocolVersion, RedisClient> clients = new EnumMap<>(ProtocolVersion.class);
    private static final Map<ProtocolVersion, LettuceLockBackend> backends = new EnumMap<>(ProtocolVersion.class);

    @BeforeAll
    static void start() {
        StandaloneRedis redis = RedisFixtures.sharedStandalone();
        for (ProtocolVersion protocol : ProtocolVersion.values()) {
            RedisClient client = RedisClient.create(redis.uri());
            client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
            clients.put(protocol, client);
            backends.put(protocol, LettuceLockBackend.create(client));
        }
    }

    @AfterAll
    static void stop() {
        backends.values().forEach(LettuceLockBackend::close);
        clients.values().forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void shouldMapTopLevelIntegerToLongNotToAList(ProtocolVersion protocol) throws Exception {
        assertThat(run(protocol, "return 1")).isEqualTo(1L);
        assertThat(run(protocol, "return -1")).isEqualTo(-1L);
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void shouldMapOneElementArrayToAList(ProtocolVersion protocol) throws Exception {
        assertThat(run(protocol, "return {1}")).isEqualTo(List.of(1L));
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void shouldMapBulkAndStatusRepliesToStrings(ProtocolVersion protocol) throws Exception {
        assertThat(run(protocol, "return 'héllo'")).isEqualTo("héllo");
        assertThat(run(protocol, "return redis.call('SET', KEYS[1], 'v')", "reply-mapping:status"))
                .isEqualTo("OK");
        assertThat(run(protocol, "return redis.status_reply('FINE')")).isEqualTo("FINE");
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void shouldMapNilToNull(ProtocolVersion protocol) throws Exception {
        assertThat(run(protocol, "return redis.call('GET', KEYS[1])", "reply-mapping:absent"))
                .isNull();
        assertThat(run(protocol, "return false")).isNull();
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void shouldMapNestedAndEmptyArrays(ProtocolVersion protocol) throws Exception {
        assertThat(run(protocol, "return {}")).isEqualTo(List.of());
        assertThat(run(protocol, "return {1, {'a', {2, {}}}, 'b', 3}"))
                .isEqualTo(List.of(1L, List.of("a", List.of(2L, List.of())), "b", 3L));
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void shouldKeepTokenStringsThatLuaNumbersWouldRound(ProtocolVersion protocol) throws Exception {
        assertThat(run(protocol, "return {1, '1800000000000001', 30000}"))
                .isEqualTo(Arrays.asList(1L, "1800000000000001", 30000L));
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void shouldMapTheBundledAcquireReply(ProtocolVersion protocol) throws Exception {
        Object reply = backends.get(protocol)
                .eval(
                        LuaScript.bundled(ScriptNames.ACQUIRE),
                        List.of(
                                "reply-mapping:{acq}",
                                "reply-mapping:{acq}:fence",
                                "reply-mapping:{acq}:queue",
                                "reply-mapping:{acq}:waiters",
                                "reply-mapping:{acq}:released"),
                        List.of("0123456789abcdef0123456789abcdef", "10000", "60000", "1500", "PUBLISH", "1"))
                .get(10, TimeUnit.SECONDS);
        assertThat(reply).asList().hasSize(3);
        List<?> list = (List<?>) reply;
        assertThat(list.get(0)).isEqualTo(1L);
        assertThat(list.get(1)).isInstanceOf(String.class);
        assertThat(list.get(2)).isEqualTo(10000L);
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void shouldFailTheFutureWithTheRedisErrorWhenTheScriptFails(ProtocolVersion protocol) {
        assertThatThrownBy(() -> run(protocol, "return redis.error_reply('boom')"))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("boom");
    }

    private static Object run(ProtocolVersion protocol, String source, String... keys) throws Exception {
        return backends.get(protocol)
                .eval(LuaScript.of("test", source), List.of(keys), List.of())
                .get(10, TimeUnit.SECONDS);
    }
}
