package io.leasehold.lock.testkit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} (or Sentinel) process this fixture started on a free loopback port, in its
 * own temp directory, with persistence off ({@code save ""}, {@code appendonly no}). Supports every
 * {@link RedisNode.Control}. {@link #close()} kills it and deletes its directory; a JVM shutdown
 * hook does the same for servers nobody closed.
 *
 * <p>Startup polls {@code PING} until a deadline ({@value #STARTUP_SECONDS} s), retries on another
 * port when the chosen one was taken meanwhile, and puts the tail of the server's log into any
 * startup failure.
 *
 * <p>This class is threadsafe.
 */
public final class RedisServerProcess implements RedisNode, AutoCloseable {

    private static final int STARTUP_SECONDS = 20;
    private static final int PORT_ATTEMPTS = 5;
    private static final Duration PING_TIMEOUT = Duration.ofSeconds(1);

    private final RedisServerBinary binary;
    private final String label;
    private final boolean sentinel;
    private final int port;
    private final Path dir;
    private final Path config;
    private final Path log;
    private final Path stdout;
    private final Object lifecycle = new Object();
    private volatile Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    private RedisServerProcess(
            RedisServerBinary binary, String label, boolean sentinel, int port, Path dir, List<String> extraConfig)
            throws IOException {
        this.binary = binary;
        this.label = label;
        this.sentinel = sentinel;
        this.port = port;
        this.dir = dir;
        this.config = dir.resolve(sentinel ? "sentinel.conf" : "redis.conf");
        this.log = dir.resolve("redis.log");
        this.stdout = dir.resolve("stdout.log");
        List<String> lines = new ArrayList<>();
        lines.add("port " + port);
        lines.add("bind 127.0.0.1");
        lines.add("daemonize no");
        lines.add("dir " + quote(dir.toString()));
        lines.add("logfile " + quote(log.toString()));
        lines.add("save \"\"");
        lines.add("appendonly no");
        lines.addAll(extraConfig);
        Files.write(config, lines);
    }

    /** Starts a plain server; {@code extraConfig} lines are appended to its config file (e.g. {@code replicaof ...}). */
    public static RedisServerProcess startServer(RedisServerBinary binary, String label, List<String> extraConfig) {
        return start(binary, label, false, false, extraConfig);
    }

    /** Starts a Sentinel ({@code redis-server sentinel.conf --sentinel}) with the given {@code sentinel ...} lines. */
    public static RedisServerProcess startSentinel(
            RedisServerBinary binary, String label, List<String> sentinelConfig) {
        return start(binary, label, true, false, sentinelConfig);
    }

    /** Starts a cluster-enabled server whose cluster bus port ({@code port + 10000}) is free too. */
    public static RedisServerProcess startClusterNode(
            RedisServerBinary binary, String label, List<String> extraConfig) {
        List<String> lines = new ArrayList<>(List.of("cluster-enabled yes", "cluster-config-file nodes.conf"));
        lines.addAll(extraConfig);
        return start(binary, label, false, true, lines);
    }

    private static RedisServerProcess start(
            RedisServerBinary binary, String label, boolean sentinel, boolean clusterBus, List<String> extraConfig) {
        String lastTaken = "";
        for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
            int port = FreePorts.reserve(clusterBus);
            RedisServerProcess server;
            try {
                Path dir = Files.createTempDirectory("leasehold-redis-" + label + "-");
                server = new RedisServerProcess(binary, label, sentinel, port, dir, extraConfig);
            } catch (IOException e) {
                FreePorts.release(port);
                throw new RedisFixtureException("cannot prepare a temp directory for redis-server " + label, e);
            }
            ProcessReaper.register(server);
            try {
                server.launchAndAwait();
                return server;
            } catch (PortTaken e) {
                lastTaken = e.getMessage();
                server.close();
            } catch (RuntimeException | Error e) {
                server.close();
                throw e;
            }
        }
        throw new RedisFixtureException("redis-server " + label + " found its port taken " + PORT_ATTEMPTS
                + " times in a row; last attempt: " + lastTaken);
    }

    private void launchAndAwait() {
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("redis-server " + label + " on port " + port + " is closed");
            }
            List<String> command = new ArrayList<>(List.of(binary.path().toString(), config.toString()));
            if (sentinel) {
                command.add("--sentinel");
            }
            try {
                process = new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(stdout.toFile()))
                        .start();
            } catch (IOException e) {
                throw new RedisFixtureException("cannot run " + String.join(" ", command) + ": " + e, e);
            }
            paused = false;
            awaitReady(process);
        }
    }

    private void awaitReady(Process started) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_SECONDS);
        while (true) {
            if (!started.isAlive()) {
                String tail = logTail();
                if (tail.contains("Address already in use")) {
                    throw new PortTaken(
                            describe() + " could not bind: " + firstLineWith(tail, "Address already in use"));
                }
                throw new RedisFixtureException(describe() + " exited with code " + started.exitValue()
                        + " during startup. Log tail:\n" + tail);
            }
            if (ping(PING_TIMEOUT)) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                started.destroyForcibly();
                throw new RedisFixtureException(
                        describe() + " did not answer PING within " + STARTUP_SECONDS + " s. Log tail:\n" + logTail());
            }
            sleepQuietly(50);
        }
    }

    @Override
    public RedisEndpoint endpoint() {
        return new RedisEndpoint("127.0.0.1", port);
    }

    public int port() {
        return port;
    }

    /** The label given at start, e.g. {@code master} or {@code sentinel-2}. */
    public String label() {
        return label;
    }

    /** The process id of the running server. */
    public long pid() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException(describe() + " is not running");
        }
        return current.pid();
    }

    /** The server's working directory (config, log, cluster state). */
    public Path directory() {
        return dir;
    }

    @Override
    public Object command(Duration timeout, String... args) {
        return Admin.call(endpoint(), List.of(), timeout, args);
    }

    @Override
    public void kill() {
        synchronized (lifecycle) {
            Process current = process;
            if (current != null) {
                destroy(current);
            }
            paused = false;
        }
    }

    @Override
    public void restart() {
        synchronized (lifecycle) {
            kill();
            try {
                launchAndAwait();
            } catch (PortTaken e) {
                throw new RedisFixtureException(
                        describe() + " cannot restart on its port, which another process" + " took while it was down: "
                                + e.getMessage(),
                        e);
            }
        }
    }

    @Override
    public void pause() {
        pauseAll(List.of(this));
    }

    @Override
    public void resume() {
        resumeAll(List.of(this));
    }

    /** Pauses several servers with one {@code kill -STOP}, so that they stop at (nearly) the same instant. */
    public static void pauseAll(List<RedisServerProcess> servers) {
        List<Long> pids = new ArrayList<>();
        for (RedisServerProcess server : servers) {
            pids.add(server.pid());
        }
        Signals.send("STOP", pids);
        servers.forEach(server -> server.paused = true);
    }

    /** Resumes several servers with one {@code kill -CONT}. */
    public static void resumeAll(List<RedisServerProcess> servers) {
        List<Long> pids = new ArrayList<>();
        for (RedisServerProcess server : servers) {
            Process current = server.process;
            if (current != null && current.isAlive()) {
                pids.add(current.pid());
            }
        }
        Signals.send("CONT", pids);
        servers.forEach(server -> server.paused = false);
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    @Override
    public Map<Control, String> unsupportedControls() {
        return Map.of();
    }

    /** The last lines of the server's log file and of its captured stdout/stderr. */
    public String logTail() {
        return tail(log, "redis.log") + tail(stdout, "stdout");
    }

    /** Kills the server (SIGKILL, also when paused) and deletes its directory. Idempotent. */
    @Override
    public void close() {
        closed = true;
        Process current = process;
        if (current != null) {
            destroy(current);
        }
        synchronized (lifecycle) {
            deleteRecursively(dir);
            FreePorts.release(port);
            ProcessReaper.unregister(this);
        }
    }

    @Override
    public String toString() {
        return describe();
    }

    private String describe() {
        return (sentinel ? "redis-sentinel " : "redis-server ") + label + " on 127.0.0.1:" + port;
    }

    private static void destroy(Process current) {
        current.destroyForcibly();
        try {
            if (!current.waitFor(10, TimeUnit.SECONDS)) {
                throw new RedisFixtureException("redis-server pid " + current.pid() + " survived SIGKILL for 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(Path file, String title) {
        if (!Files.exists(file)) {
            return "";
        }
        try {
            List<String> lines = Files.readAllLines(file);
            List<String> last = lines.subList(Math.max(0, lines.size() - 30), lines.size());
            return "--- " + title + " (" + file + ") ---\n" + String.join("\n", last) + "\n";
        } catch (IOException | UncheckedIOException e) {
            return "--- " + title + " unreadable: " + e + "\n";
        }
    }

    private static String firstLineWith(String text, String needle) {
        return text.lines().filter(line -> line.contains(needle)).findFirst().orElse(needle);
    }

    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // A file the dying server still writes; the rest is deleted, the temp dir is cleaned by the OS.
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // Same as above: best effort.
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisFixtureException("interrupted while waiting for redis-server to start", e);
        }
    }

    /** The chosen port was taken between the check and the server's bind; start() retries elsewhere. */
    private static final class PortTaken extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PortTaken(String message) {
            super(message);
        }
    }
}
