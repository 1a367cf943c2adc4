package io.leasehold.lock.safety;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The runner's handle on one {@link SafetyWorker} process: started with the current {@code java} and
 * classpath, its stdout lines kept for {@link #awaitLine}, its stderr in a file beside its history.
 *
 * <p>This class is threadsafe.
 */
final class WorkerProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final List<String> lines = new ArrayList<>();

    private WorkerProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread reader = new Thread(this::readStdout, "safety-runner-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static WorkerProcess start(WorkerArgs args, Path stderr) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Small, quick-starting JVMs: six of them may start at once on two cores.
        command.addAll(
                List.of("-Xmx96m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SafetyWorker.class.getName()));
        command.addAll(args.toArgs());
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.to(stderr.toFile()))
                .start();
        return new WorkerProcess(args.process(), process);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for a line from index {@code from} on that matches, and returns its index; -1 when the
     * time ran out or the process ended first.
     */
    int awaitLine(int from, Predicate<String> matches, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            for (int i = from; ; i++) {
                while (i >= lines.size()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || (!process.isAlive() && i >= lines.size())) {
                        return -1;
                    }
                    TimeUnit.NANOSECONDS.timedWait(lines, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
                }
                if (matches.test(lines.get(i))) {
                    return i;
                }
            }
        }
    }

    /** The line at {@code index}. */
    String line(int index) {
        synchronized (lines) {
            return lines.get(index);
        }
    }

    /** How many lines it has printed so far. */
    int lineCount() {
        synchronized (lines) {
            return lines.size();
        }
    }

    /** Asks it to stop after its current section (it writes {@code process-end}). */
    void stop() {
        try {
            OutputStream in = process.getOutputStream();
            in.write("STOP\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
        } catch (IOException e) {
            // Already gone (killed by the scenario): nothing to stop.
        }
    }

    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** {@code kill -9}: no shutdown hook, no release, nothing more written. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Freezes the process ({@code kill -STOP}): no thread runs until {@link #resume()}. */
    void pause() {
        Unix.signal("STOP", pid());
    }

    /** Ends {@link #pause()} ({@code kill -CONT}). */
    void resume() {
        Unix.signal("CONT", pid());
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            Unix.signal("CONT", pid());
            kill();
        }
    }

    private void readStdout() {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // The process ended.
        } finally {
            synchronized (lines) {
                lines.notifyAll();
            }
        }
    }
}
