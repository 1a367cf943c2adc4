package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * QuorumTimer: close() fires the pending timers, so that closing a quorum while acquisitions are in
 * flight never leaves a future hanging; a cancelled timer never fires.
 */
class QuorumTimerTest {

    @Test
    void shouldFireAPendingTimerWhenTheTimerIsClosed() throws Exception {
        QuorumTimer timer = new QuorumTimer();
        CountDownLatch fired = new CountDownLatch(1);
        timer.after(Duration.ofHours(1), fired::countDown);
        assertEquals(1, timer.pending());
        timer.close();
        assertTrue(fired.await(10, TimeUnit.SECONDS), "close() fired the pending timer");
    }

    /**
     * A tally whose members never answer (a frozen member set; its drivers' futures stay open) is
     * decided only by its patience timer: closing the quorum's timer must decide it.
     */
    @Test
    void shouldDecideATallyWaitingOnItsPatienceWhenTheTimerIsClosed() throws Exception {
        QuorumTimer timer = new QuorumTimer();
        List<CompletableFuture<Object>> calls =
                List.of(new CompletableFuture<>(), new CompletableFuture<>(), new CompletableFuture<>());
        Tally tally = Tally.fanOut(
                timer,
                3,
                2,
                calls::get,
                a -> !a.failed() && "yes".equals(a.reply()),
                Duration.ofMinutes(10),
                Duration.ofMinutes(10),
                0,
                member -> {},
                a -> {});
        assertTrue(timer.pending() > 0, "the patience is pending");
        timer.close();
        tally.outcome().handle((r, f) -> null).get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldNeverFireACancelledTimerNorKeepIt() throws Exception {
        QuorumTimer timer = new QuorumTimer();
        CountDownLatch fired = new CountDownLatch(1);
        QuorumTimer.Timeout timeout = timer.after(Duration.ofMillis(50), fired::countDown);
        assertTrue(timeout.cancel());
        assertEquals(0, timer.pending());
        timer.close();
        assertTrue(!fired.await(300, TimeUnit.MILLISECONDS), "a cancelled timer fired");
        assertTrue(!timeout.cancel(), "cancelled once only");
    }
}
