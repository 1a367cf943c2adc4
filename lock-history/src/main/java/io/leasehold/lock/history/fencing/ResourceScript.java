package io.leasehold.lock.history.fencing;

import io.leasehold.lock.testkit.redis.RedisErrorReply;
import io.leasehold.lock.testkit.redis.RespClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One of the fenced resource's Lua scripts, loaded from the classpath and run by SHA
 * ({@code EVALSHA}), falling back to {@code EVAL} when the server's script cache lacks it (a restart
 * or {@code SCRIPT FLUSH} empties it).
 *
 * <p>This class is immutable and threadsafe.
 */
final class ResourceScript {

    private final String name;
    private final String text;
    private final String sha;

    private ResourceScript(String name, String text) {
        this.name = name;
        this.text = text;
        this.sha = sha1(text);
    }

    static ResourceScript load(String file) {
        try (InputStream in = ResourceScript.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("the Lua script " + file + " is missing from the classpath next to "
                        + ResourceScript.class.getName());
            }
            return new ResourceScript(file, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Lua script " + file, e);
        }
    }

    /** Runs the script on {@code client}; an error reply other than NOSCRIPT is thrown as {@link RedisErrorReply}. */
    Object run(RespClient client, List<String> keys, List<String> args) throws IOException {
        try {
            return client.call(command("EVALSHA", sha, keys, args));
        } catch (RedisErrorReply e) {
            if (!"NOSCRIPT".equals(e.code())) {
                throw e;
            }
            return client.call(command("EVAL", text, keys, args));
        }
    }

    private static List<String> command(String verb, String script, List<String> keys, List<String> args) {
        List<String> command = new ArrayList<>(3 + keys.size() + args.size());
        command.add(verb);
        command.add(script);
        command.add(Integer.toString(keys.size()));
        command.addAll(keys);
        command.addAll(args);
        return command;
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-1", e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
