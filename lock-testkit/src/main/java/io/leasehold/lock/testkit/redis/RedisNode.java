package io.leasehold.lock.testkit.redis;

import java.time.Duration;
import java.util.Map;

/**
 * One Redis server (or Sentinel) of a topology: where it listens, an admin channel to it, and the
 * process controls a fault test needs. Servers the fixtures started ({@link RedisServerProcess})
 * support every control; an external server ({@code REDIS_URL}) or a container supports fewer and
 * says why in {@link #unsupportedControls()}; an unsupported control throws
 * {@link UnsupportedOperationException} with that reason.
 *
 * <p>Implementations are threadsafe.
 */
public interface RedisNode {

    /** How long an admin command waits for its reply unless told otherwise. */
    Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

    /** Process controls a node may lack. */
    enum Control {
        /** {@link #kill()} and {@link #restart()}. */
        KILL_AND_RESTART,
        /** {@link #pause()} and {@link #resume()}. */
        PAUSE
    }

    /** Where the node listens. */
    RedisEndpoint endpoint();

    /**
     * Runs an admin command over a fresh connection (e.g. {@code "CLIENT", "KILL", "TYPE", "pubsub"})
     * and returns its reply mapped as {@link RespClient} maps it.
     *
     * @throws RedisErrorReply when Redis answers with an error
     * @throws RedisFixtureException when the node cannot be reached or does not answer within
     *     {@link #DEFAULT_COMMAND_TIMEOUT} (the cause tells which)
     */
    default Object command(String... args) {
        return command(DEFAULT_COMMAND_TIMEOUT, args);
    }

    /** {@link #command(String...)} with an explicit connect and reply timeout. */
    Object command(Duration timeout, String... args);

    /** True when the node answers {@code PING} within {@code timeout}. */
    default boolean ping(Duration timeout) {
        try {
            return "PONG".equals(command(timeout, "PING"));
        } catch (RedisFixtureException | RedisErrorReply e) {
            return false;
        }
    }

    /** Kills the server with SIGKILL (no shutdown, no save); {@link #restart()} brings it back. */
    void kill();

    /** Starts the server again on the same port with the same configuration, and waits until it answers. */
    void restart();

    /** Freezes the server (SIGSTOP): connections stay open, but nothing answers until {@link #resume()}. */
    void pause();

    /** Ends {@link #pause()} (SIGCONT). */
    void resume();

    /** True between {@link #pause()} and {@link #resume()}. */
    boolean isPaused();

    /** False after {@link #kill()} until {@link #restart()}. */
    boolean isRunning();

    /** Controls this node cannot perform, each with the reason; empty when it supports them all. */
    Map<Control, String> unsupportedControls();
}
