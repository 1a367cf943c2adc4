package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.LuaScript;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs a script by {@code EVALSHA}; when Redis answers {@code NOSCRIPT} (its script cache was
 * emptied by a restart, a failover or {@code SCRIPT FLUSH}) it retries once with {@code EVAL},
 * which runs the source and caches it again. In a cluster Lettuce routes both by the first key,
 * so the retry reaches the node that lacked the script.
 *
 * <p>This class is threadsafe.
 */
final class ScriptExecutor {

    private final LongAdder fallbacks = new LongAdder();

    /** Runs {@code script}; the future fails with Lettuce's exception, unwrapped. */
    CompletableFuture<Object> run(BaseRedisAsyncCommands<String, String> redis, LuaScript script, List<String> keys,
            List<String> args) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        send(redis, CommandType.EVALSHA, script.sha1(), keys, args).whenComplete((reply, failure) -> {
            if (failure == null) {
                result.complete(reply);
            } else if (unwrap(failure) instanceof RedisNoScriptException) {
                fallbacks.increment();
                send(redis, CommandType.EVAL, script.source(), keys, args).whenComplete((retried, again) -> {
                    if (again == null) {
                        result.complete(retried);
                    } else {
                        result.completeExceptionally(unwrap(again));
                    }
                });
            } else {
                result.completeExceptionally(unwrap(failure));
            }
        });
        return result;
    }

    /** How many calls fell back from {@code EVALSHA} to {@code EVAL}. */
    long fallbacks() {
        return fallbacks.sum();
    }

    private static CompletableFuture<Object> send(BaseRedisAsyncCommands<String, String> redis, CommandType type,
            String shaOrSource, List<String> keys, List<String> args) {
        CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8).add(shaOrSource).add(keys.size());
        for (String key : keys) {
            commandArgs.addKey(key);
        }
        for (String arg : args) {
            commandArgs.addValue(arg);
        }
        return redis.dispatch(type, new ReplyOutput(), commandArgs).toCompletableFuture();
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
