package io.leasehold.lock.lettuce;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Runs one of Lettuce's blocking connect methods on a short-lived daemon thread, for the one case
 * that has no asynchronous form: a {@code RedisClient} that carries its own default URI
 * ({@code RedisClient.create(uri)}) offers {@code connect(codec)} but no {@code connectAsync(codec)}.
 * The thread ends when the connect does, so nothing lingers.
 */
final class BlockingConnect {

    private BlockingConnect() {}

    static <T> CompletableFuture<T> onOwnThread(String purpose, Supplier<T> connect) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        result.complete(connect.get());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                },
                "leasehold-lettuce-connect-" + purpose);
        thread.setDaemon(true);
        thread.start();
        return result;
    }
}
