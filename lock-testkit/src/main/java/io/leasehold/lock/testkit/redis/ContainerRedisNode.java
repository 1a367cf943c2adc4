package io.leasehold.lock.testkit.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@code redis:7} container started with Testcontainers, used when no {@code redis-server}
 * binary is installed but a Docker engine runs. Pause and resume go through the Docker API
 * ({@code docker pause}/{@code unpause}, which freeze the container's processes like SIGSTOP).
 * Kill and restart are not supported: a restarted container gets a new host port, and a driver's
 * client could not follow it. {@link #close()} stops the container.
 *
 * <p>This class is threadsafe.
 */
public final class ContainerRedisNode implements RedisNode, AutoCloseable {

    /** The image used. */
    public static final String IMAGE = "redis:7";

    private static final String NO_RESTART = "a Testcontainers Redis gets a new host port when restarted, so a"
            + " client could not reconnect to it; install redis-server to inject kill/restart faults";

    private final GenericContainer<?> container;
    private volatile boolean paused;

    private ContainerRedisNode(GenericContainer<?> container) {
        this.container = container;
    }

    /** Starts a {@code redis:7} container with persistence off. */
    @SuppressWarnings("resource") // closed by close()
    public static ContainerRedisNode start() {
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withExposedPorts(6379)
                .withCommand("redis-server", "--save", "", "--appendonly", "no");
        container.start();
        ContainerRedisNode node = new ContainerRedisNode(container);
        ProcessReaper.register(node);
        return node;
    }

    @Override
    public RedisEndpoint endpoint() {
        return new RedisEndpoint(container.getHost(), container.getMappedPort(6379));
    }

    @Override
    public Object command(Duration timeout, String... args) {
        return Admin.call(endpoint(), List.of(), timeout, args);
    }

    @Override
    public void kill() {
        throw new UnsupportedOperationException(NO_RESTART);
    }

    @Override
    public void restart() {
        throw new UnsupportedOperationException(NO_RESTART);
    }

    @Override
    public void pause() {
        container
                .getDockerClient()
                .pauseContainerCmd(container.getContainerId())
                .exec();
        paused = true;
    }

    @Override
    public void resume() {
        container
                .getDockerClient()
                .unpauseContainerCmd(container.getContainerId())
                .exec();
        paused = false;
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public boolean isRunning() {
        return container.isRunning();
    }

    @Override
    public Map<Control, String> unsupportedControls() {
        return Map.of(Control.KILL_AND_RESTART, NO_RESTART);
    }

    @Override
    public void close() {
        container.stop();
        ProcessReaper.unregister(this);
    }

    @Override
    public String toString() {
        return "Testcontainers " + IMAGE + " at " + endpoint();
    }
}
