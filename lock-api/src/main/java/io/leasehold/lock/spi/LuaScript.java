package io.leasehold.lock.spi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A Lua script with its name, source and SHA-1 (for {@code EVALSHA}). The engine's scripts are
 * bundled with {@code lock-api} under {@code io/leasehold/lock/scripts/<name>.lua}; each starts
 * with a header stating KEYS, ARGV and the return shape.
 *
 * <p>This class is immutable and threadsafe.
 */
public final class LuaScript {

    private final String name;
    private final String source;
    private final String sha1;

    private LuaScript(String name, String source) {
        this.name = Objects.requireNonNull(name, "name");
        this.source = Objects.requireNonNull(source, "source");
        this.sha1 = sha1Hex(source);
    }

    public static LuaScript of(String name, String source) {
        return new LuaScript(name, source);
    }

    /** Loads the bundled script {@code io/leasehold/lock/scripts/<name>.lua}. */
    public static LuaScript bundled(String name) {
        String path = "/io/leasehold/lock/scripts/" + name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("bundled script " + path + " is missing from the classpath");
            }
            return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bundled script " + path, e);
        }
    }

    /** The script's name, e.g. {@code acquire}; backends that emulate scripts dispatch on it. */
    public String name() {
        return name;
    }

    public String source() {
        return source;
    }

    /** Lower-case hex SHA-1 of the source, as {@code SCRIPT LOAD} returns it. */
    public String sha1() {
        return sha1;
    }

    @Override
    public String toString() {
        return "LuaScript{" + name + ", sha1=" + sha1 + "}";
    }

    private static String sha1Hex(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
