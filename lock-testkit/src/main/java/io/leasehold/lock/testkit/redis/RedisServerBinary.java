package io.leasehold.lock.testkit.redis;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds the {@code redis-server} binary: the path in the environment variable
 * {@value #ENV_VARIABLE} when it is set, otherwise the first {@code redis-server} on {@code PATH}.
 *
 * <p>This class is immutable and threadsafe.
 */
public final class RedisServerBinary {

    /** Environment variable naming the {@code redis-server} binary to use instead of {@code PATH}'s. */
    public static final String ENV_VARIABLE = "LEASEHOLD_REDIS_SERVER";

    private static final String NAME = "redis-server";

    private final Path path;

    private RedisServerBinary(Path path) {
        this.path = Objects.requireNonNull(path, "path");
    }

    /** A binary at a known path, which must be an executable file. */
    public static RedisServerBinary at(Path path) {
        if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
            throw new RedisFixtureException("no executable redis-server at '" + path + "'");
        }
        return new RedisServerBinary(path);
    }

    /** Locates the binary from this process's environment; see {@link #locate(Map)}. */
    public static Optional<RedisServerBinary> locate() {
        return locate(System.getenv());
    }

    /**
     * Locates the binary from {@code env}: {@value #ENV_VARIABLE} when set (and then it must name an
     * executable file, or this throws, since a wrong explicit setting must not be silently ignored),
     * else a search of {@code PATH}; empty when neither yields one.
     */
    public static Optional<RedisServerBinary> locate(Map<String, String> env) {
        String explicit = env.get(ENV_VARIABLE);
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit.trim());
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new RedisFixtureException(
                        ENV_VARIABLE + " is set to '" + explicit + "', but no executable redis-server is there");
            }
            return Optional.of(new RedisServerBinary(path));
        }
        String searchPath = env.getOrDefault("PATH", "");
        for (String dir : searchPath.split(File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            Path candidate = Path.of(dir, NAME);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new RedisServerBinary(candidate));
            }
        }
        return Optional.empty();
    }

    public Path path() {
        return path;
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
