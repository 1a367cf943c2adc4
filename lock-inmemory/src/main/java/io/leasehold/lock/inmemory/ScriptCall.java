package io.leasehold.lock.inmemory;

import java.util.List;
import java.util.regex.Pattern;

/**
 * One emulated script execution: its KEYS and ARGV (1-based, as in Lua), the time it runs at, and
 * the errors Redis would raise for missing or malformed arguments.
 *
 * <p>Redis freezes time for the duration of a script, so one instant serves the whole call.
 */
final class ScriptCall {

    /** Redis's integer syntax (string2ll): no sign but '-', no leading zeros, no spaces. */
    private static final Pattern REDIS_INTEGER = Pattern.compile("0|-?[1-9][0-9]*");

    private final String script;
    private final List<String> keys;
    private final List<String> args;
    private final long nowMillis;
    private final long clockMicros;

    ScriptCall(String script, List<String> keys, List<String> args, long nowMillis, long clockMicros) {
        this.script = script;
        this.keys = keys;
        this.args = args;
        this.nowMillis = nowMillis;
        this.clockMicros = clockMicros;
    }

    long nowMillis() {
        return nowMillis;
    }

    long clockMicros() {
        return clockMicros;
    }

    int keyCount() {
        return keys.size();
    }

    /** KEYS[i], which the script passes to redis.call, so it must be present. */
    String key(int i) {
        if (i > keys.size()) {
            throw error(
                    "ERR Lua redis lib command arguments must be strings or integers",
                    "KEYS[" + i + "] is missing: " + keys.size() + " keys were given");
        }
        return keys.get(i - 1);
    }

    /** ARGV[i], or null (Lua's nil) when absent; for comparisons, which Lua allows with nil. */
    String arg(int i) {
        return i <= args.size() ? args.get(i - 1) : null;
    }

    /** ARGV[i] where the script passes it to redis.call or concatenates it, so it must be present. */
    String requiredArg(int i) {
        String value = arg(i);
        if (value == null) {
            throw error(
                    "ERR Lua redis lib command arguments must be strings or integers",
                    "ARGV[" + i + "] is missing: " + args.size() + " args were given");
        }
        return value;
    }

    /** ARGV[i] as the integer a Redis command such as PEXPIRE requires. */
    long integerArg(int i, String command) {
        String value = requiredArg(i);
        if (REDIS_INTEGER.matcher(value).matches()) {
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException tooLarge) {
                // falls through to Redis's error
            }
        }
        throw error(
                "ERR value is not an integer or out of range",
                "ARGV[" + i + "] for " + command + " must be an integer, but was '" + value + "'");
    }

    /** A script error as Redis reports it, followed by what this call did wrong. */
    InMemoryScriptException error(String redisError, String detail) {
        // (Redis replaces CR and LF in an error reply with spaces, so that it stays one line.)
        return new InMemoryScriptException(redisError.replace('\r', ' ').replace('\n', ' ')
                + " (in-memory backend, script '" + script + "': " + detail + ")");
    }
}
