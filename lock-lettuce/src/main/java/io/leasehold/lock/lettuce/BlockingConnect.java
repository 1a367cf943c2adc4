package io.leasehold.lock.lettuce;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs Lettuce's blocking connect methods on short-lived daemon threads, for the one case that has no
 * asynchronous form: a {@code RedisClient} that carries its own default URI
 * ({@code RedisClient.create(uri)}) offers {@code connect(codec)} but no {@code connectAsync(codec)}.
 * A thread ends when its connect does, or at once when the backend closes ({@link #abandonAll()}):
 * a server that accepts the connection and never answers would otherwise keep it waiting for
 * Lettuce's own timeout (a minute by default) after {@code close()} returned (G12).
 *
 * <p>Abandoning interrupts the thread, which ends Lettuce's wait for the connect; a connection that
 * arrives anyway is closed. What cannot be reached is Lettuce's own connect attempt: it goes on in
 * the client's event loop until it fails, or until the application shuts the client down, which
 * closes it (Lettuce registers every connection with its client).
 *
 * <p>This class is threadsafe.
 */
final class BlockingConnect {

    private final Set<Thread> connecting = ConcurrentHashMap.newKeySet();
    private volatile boolean abandoned;

    /**
     * Runs {@code connect} on a thread of its own; {@code discard} closes a connection that arrives
     * after {@link #abandonAll()}.
     */
    <T> CompletableFuture<T> onOwnThread(String purpose, Supplier<T> connect, Consumer<T> discard) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (abandoned) {
            result.completeExceptionally(closed(purpose));
            return result;
        }
        Thread thread = new Thread(
                () -> {
                    try {
                        T connection = connect.get();
                        if (abandoned) {
                            discard.accept(connection); // the backend closed while it connected
                            result.completeExceptionally(closed(purpose));
                        } else {
                            result.complete(connection);
                        }
                    } catch (Throwable e) {
                        result.completeExceptionally(abandoned ? closed(purpose) : e);
                    } finally {
                        connecting.remove(Thread.currentThread());
                    }
                },
                "leasehold-lettuce-connect-" + purpose);
        thread.setDaemon(true);
        connecting.add(thread);
        thread.start();
        if (abandoned) {
            thread.interrupt(); // raced with abandonAll(), which may have missed it
        }
        return result;
    }

    /** Ends every connect under way at once, and refuses later ones: the backend is closing. */
    void abandonAll() {
        abandoned = true;
        for (Thread thread : connecting) {
            thread.interrupt();
        }
    }

    private static IllegalStateException closed(String purpose) {
        return new IllegalStateException("LettuceLockBackend closed while connecting (" + purpose + ")");
    }
}
