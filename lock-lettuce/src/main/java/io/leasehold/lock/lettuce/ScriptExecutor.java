package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.support.ScriptFallback;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a script with Lettuce's {@code EVALSHA} and {@code EVAL} commands, falling back from one to the
 * other through {@link ScriptFallback}. In a cluster Lettuce routes both by the first key, so the
 * retry reaches the node that lacked the script.
 *
 * <p>This class is threadsafe.
 */
final class ScriptExecutor {

    private final ScriptFallback fallback = new ScriptFallback(failure -> failure instanceof RedisNoScriptException);

    /** Runs {@code script}; the future fails with Lettuce's exception, unwrapped. */
    CompletableFuture<Object> run(
            BaseRedisAsyncCommands<String, String> redis, LuaScript script, List<String> keys, List<String> args) {
        return fallback.run(
                script,
                sha -> send(redis, CommandType.EVALSHA, sha, keys, args),
                source -> send(redis, CommandType.EVAL, source, keys, args));
    }

    /** How many calls fell back from {@code EVALSHA} to {@code EVAL}. */
    long fallbacks() {
        return fallback.fallbacks();
    }

    private static CompletableFuture<Object> send(
            BaseRedisAsyncCommands<String, String> redis,
            CommandType type,
            String shaOrSource,
            List<String> keys,
            List<String> args) {
        CommandArgs<String, String> commandArgs =
                new CommandArgs<>(StringCodec.UTF8).add(shaOrSource).add(keys.size());
        for (String key : keys) {
            commandArgs.addKey(key);
        }
        for (String arg : args) {
            commandArgs.addValue(arg);
        }
        return redis.dispatch(type, new ReplyOutput(), commandArgs).toCompletableFuture();
    }
}
