package io.leasehold.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The example's run, as its one command runs it: the rush of orders sells each pair once. */
class FlashSaleRunTest {

    @Test
    void shouldSellEachPairOnceToARushOfOrdersOverHttp() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        FlashSaleRun.Outcome outcome = FlashSaleRun.run(new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertThat(outcome.accepted()).isEqualTo(FlashSaleRun.STOCK);
        assertThat(outcome.soldOut()).isEqualTo(FlashSaleRun.ORDERS - FlashSaleRun.STOCK);
        assertThat(outcome.left()).isZero();
        assertThat(outcome.tokens()).hasSize(FlashSaleRun.STOCK).isSorted().doesNotHaveDuplicates();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Each pair sold once");
    }
}
