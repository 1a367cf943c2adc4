package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link Roster#enlistAnew}: a caller that found the standings out of date waits for an enlistment that
 * starts after its call, never for one already running (which may have probed before what it found).
 */
class RosterEnlistAnewTest {

    /** Enlistments this test ends by hand, in the order they were started. */
    private final List<CompletableFuture<Void>> started = new ArrayList<>();

    private final Supplier<CompletableFuture<Void>> enlist = () -> {
        CompletableFuture<Void> enlistment = new CompletableFuture<>();
        started.add(enlistment);
        return enlistment;
    };

    @Test
    void shouldStartAnEnlistmentAtOnceWhenNoneRuns() {
        Roster roster = new Roster(3);

        CompletableFuture<Void> anew = roster.enlistAnew(enlist);

        assertEquals(1, started.size(), "one enlistment started");
        assertFalse(anew.isDone(), "waits for it");
        started.get(0).complete(null);
        assertTrue(anew.isDone(), "done when it ended");
    }

    @Test
    void shouldWaitForAnEnlistmentStartedAfterTheOneRunning() {
        Roster roster = new Roster(3);
        CompletableFuture<Void> running = roster.ready(2, System.nanoTime(), enlist);
        assertEquals(1, started.size(), "the running enlistment");

        CompletableFuture<Void> anew = roster.enlistAnew(enlist);
        CompletableFuture<Void> alsoAnew = roster.enlistAnew(enlist);

        assertSame(anew, alsoAnew, "callers meanwhile share the next enlistment");
        assertEquals(1, started.size(), "nothing more runs beside the running one");
        started.get(0).complete(null);
        assertTrue(running.isDone(), "the running one ended");
        assertFalse(anew.isDone(), "not answered by the enlistment that was running at the call");
        assertEquals(2, started.size(), "the next one started as the running one ended");
        started.get(1).complete(null);
        assertTrue(anew.isDone(), "answered by the next one");
        assertEquals(2, started.size(), "and nothing more started");
    }

    @Test
    void shouldStartTheNextEnlistmentEvenWhenTheRunningOneFailed() {
        Roster roster = new Roster(3);
        roster.ready(2, System.nanoTime(), enlist);
        CompletableFuture<Void> anew = roster.enlistAnew(enlist);

        started.get(0).completeExceptionally(new IllegalStateException("a member's probe failed oddly"));

        assertEquals(2, started.size(), "the next one started");
        started.get(1).complete(null);
        assertTrue(anew.isDone() && !anew.isCompletedExceptionally(), "and answered, never failing");
    }
}
