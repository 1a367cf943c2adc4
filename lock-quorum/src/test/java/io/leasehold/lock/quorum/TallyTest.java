package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Tally: decided at M successes or N - M + 1 others, late answers handed over. */
class TallyTest {

    private final List<CompletableFuture<Object>> calls =
            List.of(new CompletableFuture<>(), new CompletableFuture<>(), new CompletableFuture<>());
    private final List<Tally.Answer> late = new CopyOnWriteArrayList<>();
    private final QuorumTimer timer = new QuorumTimer();

    @AfterEach
    void closeTimer() {
        timer.close();
    }

    @Test
    void shouldCancelItsGraceAndPatienceOnceDecidedSoThatNoTimerKeepsItReachable() throws Exception {
        Tally tally = Tally.fanOut(
                timer,
                3,
                2,
                calls::get,
                a -> "yes".equals(a.reply()),
                Duration.ofMinutes(1),
                Duration.ofMinutes(1),
                2,
                member -> {},
                late::add);
        calls.get(0).complete("yes");
        calls.get(1).complete("yes");
        assertEquals(2, timer.pending(), "a majority granted: the grace and the patience run");
        calls.get(2).complete("yes");
        assertEquals(3, tally.outcome().get(5, TimeUnit.SECONDS).size());
        assertEquals(0, timer.pending(), "decided by every answer: neither timer is left to fire a minute later");
    }

    private Tally tally(Duration grace) {
        return Tally.fanOut(timer, 3, 2, calls::get, a -> !a.failed() && "yes".equals(a.reply()), grace, late::add);
    }

    @Test
    void shouldDecideAtAMajorityOfSuccessesAndHandTheLateAnswerOver() throws Exception {
        Tally tally = tally(Duration.ZERO);
        calls.get(2).complete("yes");
        assertFalse(tally.outcome().isDone(), "one success of the two needed");
        calls.get(0).complete("yes");
        List<Tally.Answer> answers = tally.outcome().get(5, TimeUnit.SECONDS);
        assertEquals(List.of(2, 0), answers.stream().map(Tally.Answer::member).toList());
        calls.get(1).complete("yes");
        assertEquals(1, late.size());
        assertEquals(1, late.get(0).member());
        assertEquals("yes", late.get(0).reply());
    }

    @Test
    void shouldDecideAtTooManyFailuresForAMajority() throws Exception {
        Tally tally = tally(Duration.ofSeconds(30));
        calls.get(0).completeExceptionally(new IOException("refused"));
        assertFalse(tally.outcome().isDone(), "one failure: a majority of successes is still possible");
        calls.get(1).complete("no");
        List<Tally.Answer> answers = tally.outcome().get(5, TimeUnit.SECONDS);
        assertEquals(2, answers.size());
        assertTrue(answers.get(0).failed());
        assertEquals(IOException.class, answers.get(0).failure().getClass(), "unwrapped");
        calls.get(2).complete("yes");
        assertEquals(List.of(2), late.stream().map(Tally.Answer::member).toList());
    }

    @Test
    void shouldWaitWithinTheGraceForTheLastMemberOnceAMajoritySucceeded() throws Exception {
        Tally tally = tally(Duration.ofSeconds(30));
        calls.get(0).complete("yes");
        calls.get(1).complete("yes");
        assertFalse(tally.outcome().isDone(), "the grace keeps it open for the third");
        calls.get(2).complete("yes");
        assertEquals(3, tally.outcome().get(5, TimeUnit.SECONDS).size());
        assertTrue(late.isEmpty());
    }

    @Test
    void shouldDecideWhenTheGraceRunsOut() throws Exception {
        Tally tally = tally(Duration.ofMillis(20));
        calls.get(0).complete("yes");
        calls.get(1).complete("yes");
        assertEquals(2, tally.outcome().get(5, TimeUnit.SECONDS).size());
        calls.get(2).complete("yes");
        assertEquals(1, late.size());
    }

    @Test
    void shouldAskEveryMemberBeforeTakingAnyAnswer() throws Exception {
        List<Integer> asked = new CopyOnWriteArrayList<>();
        Tally tally = Tally.fanOut(
                timer,
                3,
                2,
                i -> {
                    asked.add(i);
                    return CompletableFuture.completedFuture("yes");
                },
                a -> "yes".equals(a.reply()),
                Duration.ofSeconds(30),
                late::add);
        assertEquals(3, tally.outcome().get(5, TimeUnit.SECONDS).size(), "all three answered at once, none late");
        assertEquals(List.of(0, 1, 2), asked);
        assertTrue(late.isEmpty());
    }

    @Test
    void shouldCountACallThatThrowsAsThatMembersFailure() throws Exception {
        Tally tally = Tally.fanOut(
                timer,
                3,
                2,
                i -> {
                    if (i == 1) {
                        throw new IllegalStateException("member 1 closed");
                    }
                    return CompletableFuture.completedFuture("yes");
                },
                a -> "yes".equals(a.reply()),
                Duration.ZERO,
                late::add);
        List<Tally.Answer> answers = tally.outcome().get(5, TimeUnit.SECONDS);
        assertEquals(3, answers.size());
        assertEquals(
                "member 1 closed",
                answers.stream()
                        .filter(Tally.Answer::failed)
                        .findFirst()
                        .orElseThrow()
                        .failure()
                        .getMessage());
    }

    @Test
    void shouldDecideWithTheAnswersItHasOncePatienceRanOut() throws Exception {
        CompletableFuture<Object> silent = new CompletableFuture<>();
        List<Tally.Answer> late = new CopyOnWriteArrayList<>();
        List<Integer> silentOnes = new CopyOnWriteArrayList<>();
        Tally tally = Tally.fanOut(
                timer,
                3,
                2,
                i -> i == 0
                        ? CompletableFuture.completedFuture("yes")
                        : i == 1 ? CompletableFuture.completedFuture("no") : silent,
                a -> "yes".equals(a.reply()),
                Duration.ofMillis(50),
                Duration.ofMillis(100),
                2,
                silentOnes::add,
                late::add);

        List<Tally.Answer> decided = tally.outcome().get(10, TimeUnit.SECONDS);

        assertEquals(
                List.of(0, 1), decided.stream().map(Tally.Answer::member).toList(), "the silent member is left out");
        silent.complete("yes");
        assertEquals(List.of(2), late.stream().map(Tally.Answer::member).toList(), "its answer comes late");
    }
}
