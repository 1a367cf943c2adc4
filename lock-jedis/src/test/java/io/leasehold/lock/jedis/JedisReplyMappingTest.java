package io.leasehold.lock.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;

/** Script replies reach the engine exactly as the SPI states (Long, String, List, null), over RESP2 and RESP3. */
class JedisReplyMappingTest {

    private static final Map<RedisProtocol, RedisClient> clients = new EnumMap<>(RedisProtocol.class);
    private static final Map<RedisProtocol, JedisLockBackend> backends = new EnumMap<>(RedisProtocol.class);

    @BeforeAll
    static void start() {
        StandaloneRedis redis = RedisFixtures.sharedStandalone();
        for (RedisProtocol protocol : RedisProtocol.values()) {
            RedisClient client = RedisClient.builder()
                    .hostAndPort(redis.host(), redis.port())
                    .clientConfig(DefaultJedisClientConfig.builder()
                            .protocol(protocol)
                            .build())
                    .build();
            clients.put(protocol, client);
            backends.put(protocol, JedisLockBackend.create(client));
        }
    }

    @AfterAll
    static void stop() {
        backends.values().forEach(JedisLockBackend::close);
        clients.values().forEach(RedisClient::close);
    }

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void shouldMapTopLevelIntegerToLongNotToAList(RedisProtocol protocol) throws Exception {
        assertThat(run(protocol, "return 1")).isEqualTo(1L);
        assertThat(run(protocol, "return -1")).isEqualTo(-1L);
    }

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void shouldMapOneElementArrayToAList(RedisProtocol protocol) throws Exception {
        assertThat(run(protocol, "return {1}")).isEqualTo(List.of(1L));
    }

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void shouldMapBulkAndStatusRepliesToStrings(RedisProtocol protocol) throws Exception {
        assertThat(run(protocol, "return 'héllo'")).isEqualTo("héllo");
        assertThat(run(protocol, "return redis.call('SET', KEYS[1], 'v')", "reply-mapping:status"))
                .isEqualTo("OK");
        assertThat(run(protocol, "return redis.status_reply('FINE')")).isEqualTo("FINE");
    }

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void shouldMapNilToNull(RedisProtocol protocol) throws Exception {
        assertThat(run(protocol, "return redis.call('GET', KEYS[1])", "reply-mapping:absent"))
                .isNull();
        assertThat(run(protocol, "return false")).isNull();
    }

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void shouldMapNestedAndEmptyArrays(RedisProtocol protocol) throws Exception {
        assertThat(run(protocol, "return {}")).isEqualTo(List.of());
        assertThat(run(protocol, "return {1, {'a', {2, {}}}, 'b', 3}"))
                .isEqualTo(List.of(1L, List.of("a", List.of(2L, List.of())), "b", 3L));
    }

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void shouldKeepTokenStringsThatLuaNumbersWouldRound(RedisProtocol protocol) throws Exception {
        assertThat(run(protocol, "return {1, '1800000000000001', 30000}"))
                .isEqualTo(Arrays.asList(1L, "1800000000000001", 30000L));
    }

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void shouldMapTheBundledAcquireReply(RedisProtocol protocol) throws Exception {
        Object reply = backends.get(protocol)
                .eval(
                        LuaScript.bundled(ScriptNames.ACQUIRE),
                        List.of(
                                "reply-mapping:{acq-" + protocol + "}",
                                "reply-mapping:{acq-" + protocol + "}:fence",
                                "reply-mapping:{acq-" + protocol + "}:queue",
                                "reply-mapping:{acq-" + protocol + "}:waiters",
                                "reply-mapping:{acq-" + protocol + "}:released"),
                        List.of("0123456789abcdef0123456789abcdef", "10000", "60000", "1500", "PUBLISH", "1"))
                .get(10, TimeUnit.SECONDS);
        assertThat(reply).asList().hasSize(3);
        List<?> list = (List<?>) reply;
        assertThat(list.get(0)).isEqualTo(1L);
        assertThat(list.get(1)).isInstanceOf(String.class);
        assertThat(list.get(2)).isEqualTo(10000L);
    }

    private static Object run(RedisProtocol protocol, String source, String... keys) throws Exception {
        return backends.get(protocol)
                .eval(
                        LuaScript.of("reply-mapping", source),
                        List.of(keys.length == 0 ? "reply-mapping:k" : keys[0]),
                        List.of())
                .get(10, TimeUnit.SECONDS);
    }
}
