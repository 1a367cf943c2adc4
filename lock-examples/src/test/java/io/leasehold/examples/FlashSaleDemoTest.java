package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The demo's core: the locked sale is exact and the report says so; a user's Redis is left as it was. */
class FlashSaleDemoTest {

    private static final DemoOptions SMALL_SALE = new DemoOptions(Optional.empty(), true, 40, 150, 3, 3);

    @Test
    void shouldSellExactlyTheStockUnderTheLockAndRefuseTheStaleWrite() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        FlashSaleDemo.Outcome outcome =
                FlashSaleDemo.run(SMALL_SALE, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        SaleResult locked = outcome.withLock();
        assertThat(locked.failures()).isEmpty();
        assertThat(locked.stockLeft()).isZero();
        assertThat(locked.confirmed()).isEqualTo(40);
        assertThat(locked.soldOut()).isEqualTo(110);
        assertThat(locked.acquisitions()).hasSize(150);
        assertThat(locked.tokensDistinct()).isTrue();
        assertThat(locked.staleRejected()).isZero();
        assertThat(outcome.fencing().lateWriteAccepted()).isFalse();
        assertThat(outcome.fencing().newToken()).isGreaterThan(outcome.fencing().staleToken());
        assertThat(outcome.fencing().loss().reason()).isEqualTo(LeaseLoss.Reason.EXPIRED);
        assertThat(outcome.lockedSaleExact()).isTrue();

        // Without the lock, every shopper was served and no sale vanished without a trace: each
        // confirmed order either lowered the stock or was overwritten (the oversell itself depends
        // on timing, so it is shown, not asserted).
        SaleResult unlocked = outcome.withoutLock();
        assertThat(unlocked.requests()).isEqualTo(150);
        assertThat(unlocked.confirmed() + unlocked.soldOut()).isEqualTo(150);
        assertThat(unlocked.confirmed()).isGreaterThanOrEqualTo(40 - unlocked.stockLeft());

        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(output)
                .contains("backend: --in-memory: using InMemoryLockBackend")
                .contains("[1/3] without a lock")
                .contains("[2/3] with Leasehold")
                .contains("orders confirmed:    40 for a stock of 40  -> exact")
                .contains("stock left in store: 0\n")
                .contains("acquisitions:        150 (")
                .contains("highest fencing token: " + locked.highestFencingToken())
                .contains("acquire wait:        p50 ")
                .contains("requests/s")
                .contains("[3/3] fencing")
                .contains("its lease.lost() had completed: EXPIRED")
                .contains("REJECTED by the store, which has seen token "
                        + outcome.fencing().newToken() + " on node-2's read")
                .contains("accepted: the last item is sold once")
                .contains("Meters recorded by lock-micrometer")
                .containsPattern("leasehold\\.lock\\.acquire\\{acquired\\} +152, mean")
                .containsPattern("leasehold\\.lock\\.lost\\{EXPIRED\\} +1\n")
                .containsPattern("leasehold\\.lock\\.hold\\{lost\\} +1, mean")
                .containsPattern("leasehold\\.lock\\.held +0 now")
                .containsPattern("leasehold\\.lock\\.waiters +0 now")
                .contains("Done in ");
    }

    @Test
    void shouldLeaveNoKeyBehindInARedisTheUserNamed() throws Exception {
        try (StandaloneRedis redis = RedisFixtures.startStandalone()) {
            DemoOptions options = new DemoOptions(Optional.of(redis.uri()), false, 20, 60, 2, 2);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();

            FlashSaleDemo.Outcome outcome =
                    FlashSaleDemo.run(options, new PrintStream(bytes, true, StandardCharsets.UTF_8));

            assertThat(outcome.lockedSaleExact()).isTrue();
            assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("deleted the demo's keys from " + redis.uri());
            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertThat(connection.sync().keys("*"))
                        .as("keys left in the user's Redis")
                        .isEmpty();
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void shouldRejectUnknownArgumentsWithTheUsage() {
        assertThatThrownBy(() -> DemoOptions.parse("--stok", "5"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown argument '--stok'")
                .hasMessageContaining("usage: FlashSaleDemo");
        assertThatThrownBy(() -> DemoOptions.parse("--nodes", "1"))
                .hasMessage("--nodes must be a whole number of at least 2, but was '1'");
    }

    @Test
    void shouldParseTheRedisUri() {
        assertThat(DemoOptions.parse("--redis", "redis://db:6380").redisUri()).contains("redis://db:6380");
    }

    @Test
    void shouldLockWithLettuceByDefaultAndWithJedisWhenAsked() {
        assertThat(DemoOptions.parse().driver()).isEqualTo(DemoOptions.Driver.LETTUCE);
        assertThat(DemoOptions.parse("--driver", "jedis").driver()).isEqualTo(DemoOptions.Driver.JEDIS);
        assertThatThrownBy(() -> DemoOptions.parse("--driver", "redisson"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--driver must be lettuce or jedis, but was 'redisson'");
    }
}
