package io.leasehold.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An engine handler that throws (a bug) is logged, never swallowed by the future nobody reads. */
class EngineHandlerFailureTest {

    @RegisterExtension
    final CapturedEngineLog log = new CapturedEngineLog();

    @Test
    void shouldLogAHandlerThatThrowsInsteadOfSwallowingIt() {
        CompletableFuture<String> reply = new CompletableFuture<>();
        IllegalStateException bug = new IllegalStateException("a state the machine never expected");
        Futures.whenDone(reply, "the reply of an acquire", "orders:42", (value, error) -> {
            throw bug;
        });

        reply.complete("OK");

        List<LogRecord> failures = log.records().stream()
                .filter(record -> record.getMessage().contains("Leasehold's engine failed while"))
                .toList();
        assertThat(failures).hasSize(1);
        assertThat(failures.get(0).getMessage())
                .contains("handling the reply of an acquire of lock 'orders:42'")
                .contains("a bug in Leasehold");
        assertThat(failures.get(0).getLevel()).isEqualTo(Level.SEVERE);
        assertThat(failures.get(0).getThrown()).isSameAs(bug);
    }

    @Test
    void shouldHandTheHandlerTheValueOrTheFailureAndLogNothingWhenItReturns() {
        CompletableFuture<String> answered = new CompletableFuture<>();
        CompletableFuture<String> failed = new CompletableFuture<>();
        AtomicReference<Object> seen = new AtomicReference<>();
        AtomicReference<Object> seenFailure = new AtomicReference<>();
        Futures.whenDone(answered, "a reply", "orders:42", (value, error) -> seen.set(value));
        Futures.whenDone(failed, "a reply", null, (value, error) -> seenFailure.set(error));
        RuntimeException timeout = new RuntimeException("no reply within the command timeout");

        answered.complete("OK");
        failed.completeExceptionally(timeout);

        assertThat(seen.get()).isEqualTo("OK");
        assertThat(seenFailure.get()).isSameAs(timeout);
        assertThat(log.messagesContaining("Leasehold's engine failed")).isEmpty();
    }
}
