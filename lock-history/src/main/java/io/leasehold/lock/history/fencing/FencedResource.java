package io.leasehold.lock.history.fencing;

import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RespClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A counter that protects itself with fencing tokens, kept on a Redis server of its own (one that a
 * safety test's faults never touch), as the README says a protected resource must: it checks the
 * token on <b>every</b> access, reads included; it records the highest token it has seen atomically
 * with the check; it refuses any access with a smaller token. It also numbers every access (its own
 * order, for the checker) and keeps an append-only log of accepted writes, so that a lost update
 * shows as a counter that disagrees with its log.
 *
 * <p>A critical section does a read-modify-write with its lease's token:
 * <pre>{@code
 * FencedAccess read = stock.read(lease.fencingToken());
 * if (read.accepted()) {
 *     FencedAccess write = stock.write(lease.fencingToken(), read.value() + 1);
 * }
 * }</pre>
 * The logic is two Lua scripts ({@code fenced-access.lua}, {@code fenced-snapshot.lua}, next to this
 * class) on keys {@code leasehold-resource:{<name>}} (hash: value, highest, seq) and
 * {@code leasehold-resource:{<name>}:log} (list of {@code "seq token previous value time"}).
 *
 * <p>An access that gets no answer throws {@link FencedResourceException}: its outcome is unknown,
 * and it is never retried here (a write whose reply was lost may have been applied).
 *
 * <p>This class is threadsafe: accesses through one instance go one at a time over one connection.
 */
public final class FencedResource implements AutoCloseable {

    /** The prefix of the resource's keys. */
    public static final String KEY_PREFIX = "leasehold-resource:";
    /** How long an access waits for its connection and reply unless told otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private static final ResourceScript ACCESS = ResourceScript.load("fenced-access.lua");
    private static final ResourceScript SNAPSHOT = ResourceScript.load("fenced-snapshot.lua");

    private final RedisEndpoint server;
    private final String name;
    private final Duration timeout;
    private final List<String> keys;
    private RespClient connection;
    private boolean closed;

    private FencedResource(RedisEndpoint server, String name, Duration timeout) {
        this.server = server;
        this.name = name;
        this.timeout = timeout;
        String hash = KEY_PREFIX + "{" + name + "}";
        this.keys = List.of(hash, hash + ":log");
    }

    /** The resource {@code name} on {@code server}, with {@link #DEFAULT_TIMEOUT}; connects on first use. */
    public static FencedResource on(RedisEndpoint server, String name) {
        return on(server, name, DEFAULT_TIMEOUT);
    }

    /**
     * The resource {@code name} on {@code server}; {@code timeout} bounds the connect and each reply.
     * Connects on first use.
     *
     * @throws IllegalArgumentException when {@code name} is blank or {@code timeout} is not positive
     */
    public static FencedResource on(RedisEndpoint server, String name, Duration timeout) {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(timeout, "timeout");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank, but was '" + name + "'");
        }
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException(
                    "timeout must be greater than 0, but was " + timeout + " (resource '" + name + "')");
        }
        return new FencedResource(server, name, timeout);
    }

    /** The resource's name. */
    public String name() {
        return name;
    }

    /**
     * Reads the counter with {@code token}: accepted when {@code token} is at least the highest token
     * seen, which it then becomes.
     *
     * @throws FencedResourceException when no answer came: the outcome is unknown
     */
    public FencedAccess read(long token) {
        checkToken(token);
        List<?> reply = (List<?>) run(ACCESS, List.of("read", Long.toString(token)));
        boolean accepted = (Long) reply.get(0) == 1L;
        Long value = accepted ? Long.valueOf((String) reply.get(3)) : null;
        return new FencedAccess(
                name,
                AccessOp.READ,
                token,
                accepted,
                (Long) reply.get(1),
                Long.parseLong((String) reply.get(2)),
                value,
                null);
    }

    /**
     * Writes {@code value} with {@code token}: accepted when {@code token} is at least the highest
     * token seen; then the value is set and the write appended to the log.
     *
     * @throws FencedResourceException when no answer came: the write may or may not have been applied
     */
    public FencedAccess write(long token, long value) {
        checkToken(token);
        List<?> reply = (List<?>) run(ACCESS, List.of("write", Long.toString(token), Long.toString(value)));
        boolean accepted = (Long) reply.get(0) == 1L;
        return new FencedAccess(
                name,
                AccessOp.WRITE,
                token,
                accepted,
                (Long) reply.get(1),
                Long.parseLong((String) reply.get(2)),
                accepted ? value : null,
                accepted ? Long.valueOf((String) reply.get(3)) : null);
    }

    /**
     * The resource's whole state, read atomically: write it into the history after the run
     * ({@link ResourceSnapshot#toHistory(String)}) for the checker.
     *
     * @throws FencedResourceException when no answer came
     */
    public ResourceSnapshot snapshot() {
        List<?> reply = (List<?>) run(SNAPSHOT, List.of());
        String highest = (String) reply.get(1);
        List<ResourceSnapshot.Update> updates = new ArrayList<>();
        for (Object entry : (List<?>) reply.get(4)) {
            String[] fields = ((String) entry).split(" ");
            updates.add(new ResourceSnapshot.Update(
                    Long.parseLong(fields[0]),
                    Long.parseLong(fields[1]),
                    Long.parseLong(fields[2]),
                    Long.parseLong(fields[3]),
                    Long.parseLong(fields[4])));
        }
        return new ResourceSnapshot(
                name,
                Long.parseLong((String) reply.get(0)),
                highest == null ? null : Long.valueOf(highest),
                Long.parseLong((String) reply.get(2)),
                Long.parseLong((String) reply.get(3)),
                updates);
    }

    /** Deletes the resource's state (counter, highest token, numbering and log): for a run's setup. */
    public void reset() {
        call(List.of("DEL", keys.get(0), keys.get(1)));
    }

    /** Closes the connection. Idempotent; later accesses throw {@link IllegalStateException}. */
    @Override
    public synchronized void close() {
        closed = true;
        disconnect();
    }

    @Override
    public String toString() {
        return "FencedResource '" + name + "' on " + server;
    }

    private synchronized Object run(ResourceScript script, List<String> args) {
        RespClient client = connection();
        try {
            return script.run(client, keys, args);
        } catch (IOException e) {
            disconnect();
            throw unknown(e);
        }
    }

    private synchronized Object call(List<String> command) {
        RespClient client = connection();
        try {
            return client.call(command);
        } catch (IOException e) {
            disconnect();
            throw unknown(e);
        }
    }

    private RespClient connection() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (connection == null) {
            try {
                connection = RespClient.connect(server, timeout);
            } catch (IOException e) {
                throw unknown(e);
            }
        }
        return connection;
    }

    private void disconnect() {
        if (connection != null) {
            try {
                connection.close();
            } catch (IOException e) {
                // Dropping it is all we wanted.
            }
            connection = null;
        }
    }

    private FencedResourceException unknown(IOException e) {
        return new FencedResourceException(
                this + ": no answer within " + timeout + ", the access may or may not have taken effect: " + e, e);
    }

    private void checkToken(long token) {
        if (token < 0) {
            throw new IllegalArgumentException("token must be >= 0, but was " + token + " (resource '" + name + "')");
        }
    }
}
