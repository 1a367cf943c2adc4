package io.leasehold.bench;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisErrorReply;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches one fair lock in Redis during a measured window, on two connections of its own, and
 * hands what it saw to {@link FifoCheck}: a subscriber to the lock's release channel records the
 * grant messages ({@code granted <owner> <token>}) in the order published, and a sampler reads,
 * every {@link #SAMPLE_EVERY} in one {@code MULTI ... EXEC}, the wait queue with its tickets, the
 * lock's holder and the last fencing token handed out (which puts the samples among the grants).
 *
 * <p>The subscriber takes both kinds of pub/sub: Leasehold publishes with {@code SPUBLISH} on a
 * server that has it (Redis 7 and later, standalone too) and with {@code PUBLISH} otherwise.
 *
 * <p>Its cost to the server: per sample, a {@code ZRANGE ... WITHSCORES} of the queue (one place
 * per waiting worker; formatting the scores is most of it) and an {@code MGET} of two strings, in
 * one round trip; and one more subscriber for every grant message to be written to. The samples'
 * commands are taken out of the run's command counts ({@link Outcome#load}); the server's CPU
 * cannot be told apart, so the samples' server time is reported beside it
 * ({@link Outcome#sampleMicros}). Its cost to this machine, which the workers (and the server)
 * share: the CPU of its two threads ({@link Outcome#threadCpuMicros}), mostly their wake-ups, kept
 * to about one per sample period each (the sampler reads a reply a period after sending it, the
 * subscriber lets messages gather for a period when it has read them all).
 *
 * <p>Not threadsafe: one thread opens, starts and stops it.
 */
final class FifoAudit implements AutoCloseable {

    static final Duration SAMPLE_EVERY = Duration.ofMillis(2);
    /** Redis commands of one sample as INFO commandstats counts them: MULTI, ZRANGE, MGET and EXEC. */
    static final int COMMANDS_PER_SAMPLE = 4;

    private static final String GRANTED = "granted ";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How long the subscriber may take to hear the reply to the PING that stop() sends after the last sample. */
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);

    /** Where a fair lock's queue lives in Redis: what the audit reads and listens to. */
    record Keys(String lock, String fence, String queue, String channel) {
        /** Leasehold's layout (see {@link LockKeys}) of lock {@code name} under key prefix {@code prefix}. */
        static Keys leasehold(String prefix, String name) {
            return new Keys(
                    LockKeys.lockKey(prefix, name),
                    LockKeys.fenceKey(prefix, name),
                    LockKeys.queueKey(prefix, name),
                    LockKeys.releaseChannel(prefix, name));
        }
    }

    /**
     * What the audit saw: its samples, the grant messages in the order heard, the server time of its
     * samples (INFO commandstats' time of its EXECs: the commands alone, not the reading and writing
     * of the sockets), and the CPU time its two threads took on this machine (which the run's
     * workers and, on one machine, the server share).
     */
    record Outcome(
            List<FifoCheck.Sample> samples,
            List<FifoCheck.Grant> grantMessages,
            long sampleMicros,
            long threadCpuMicros) {
        /** What the audit's samples added to the server's counters (CPU not told apart), to be taken out of the run's. */
        RedisProbe.Snapshot load() {
            return new RedisProbe.Snapshot((long) COMMANDS_PER_SAMPLE * samples.size(), 0, 0, 0);
        }

        /** The FIFO check of what was seen: after the window, so that its work does not compete with the run's. */
        FifoCheck.Result check() {
            return FifoCheck.check(samples, grantMessages);
        }
    }

    private final Keys keys;
    /** One sample: the same four commands every time, encoded once. */
    private final byte[] sampleRequest;

    private final RespPipeline sampler;
    private final RespPipeline subscriber;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Written by the sampler thread alone, read after it ended. */
    private final List<FifoCheck.Sample> samples = new ArrayList<>();
    /** Written by the subscriber thread alone, read after it ended. */
    private final List<FifoCheck.Grant> grants = new ArrayList<>();

    private volatile boolean stopping;
    /** CPU time of the sampler and subscriber threads, each added as its thread ends (read after both ended). */
    private final AtomicLong threadCpuNanos = new AtomicLong();

    private Thread samplerThread;
    private Thread subscriberThread;
    private long sampleMicrosAtStart;

    private FifoAudit(Keys keys, RespPipeline sampler, RespPipeline subscriber) {
        this.keys = keys;
        this.sampleRequest = RespPipeline.encode(
                List.of("MULTI"),
                List.of("ZRANGE", keys.queue(), "0", "-1", "WITHSCORES"),
                List.of("MGET", keys.lock(), keys.fence()),
                List.of("EXEC"));
        this.sampler = sampler;
        this.subscriber = subscriber;
    }

    /**
     * Connects and subscribes to the release channel, before the measured window (the subscribes
     * are then not counted as the contender's); records grant messages from now on.
     */
    static FifoAudit open(RedisEndpoint endpoint, Keys keys) throws IOException {
        RespPipeline sampler = RespPipeline.connect(endpoint, CONNECT_TIMEOUT, CONNECT_TIMEOUT);
        RespPipeline subscriber;
        try {
            // reads wait as long as it takes: a quiet channel is no failure (stop() bounds the last wait)
            subscriber = RespPipeline.connect(endpoint, CONNECT_TIMEOUT, Duration.ZERO);
        } catch (IOException | RuntimeException e) {
            sampler.close();
            throw e;
        }
        FifoAudit audit = new FifoAudit(keys, sampler, subscriber);
        try {
            audit.subscribe();
            return audit;
        } catch (IOException | RuntimeException e) {
            audit.close();
            throw e;
        }
    }

    private void subscribe() throws IOException {
        subscriber.send(List.of("SUBSCRIBE", keys.channel()));
        expectConfirmation("subscribe", subscriber.read()); // no message comes before it
        subscriber.send(List.of("SSUBSCRIBE", keys.channel()));
        Object sharded = subscriber.read();
        if (!(sharded instanceof RedisErrorReply)) { // (refused by a server without sharded pub/sub)
            expectConfirmation("ssubscribe", sharded);
        }
        subscriberThread = daemon("bench-fifo-subscriber", this::listen);
    }

    private void expectConfirmation(String kind, Object reply) throws IOException {
        if (!(reply instanceof List<?> confirmation) || !kind.equals(String.valueOf(confirmation.get(0)))) {
            throw new IOException(kind.toUpperCase() + " " + keys.channel() + " was answered " + reply);
        }
    }

    /** Starts sampling the queue (at the start of the measured window). */
    void start() throws IOException {
        sampleMicrosAtStart = sampleMicros();
        samplerThread = daemon("bench-fifo-sampler", this::sampleUntilStopped);
    }

    /**
     * Stops sampling and waits for every grant message published before the last sample (a PING on
     * the subscriber's connection is answered after them). Throws if the audit could not watch the
     * whole window: a check of part of it must not read as a pass.
     */
    Outcome stop() throws IOException, InterruptedException {
        stopping = true;
        samplerThread.join();
        if (failure.get() != null) {
            throw new IllegalStateException("FIFO audit of " + keys.lock() + " failed", failure.get());
        }
        long sampleMicros = sampleMicros() - sampleMicrosAtStart;
        subscriber.send(List.of("PING"));
        subscriberThread.join(DRAIN_TIMEOUT.toMillis());
        if (subscriberThread.isAlive()) {
            close();
            throw new IllegalStateException("FIFO audit of " + keys.lock() + ": the grant messages published before its"
                    + " last sample did not all arrive within " + DRAIN_TIMEOUT.toSeconds() + " s");
        }
        if (failure.get() != null) {
            throw new IllegalStateException("FIFO audit of " + keys.lock() + " failed", failure.get());
        }
        return new Outcome(List.copyOf(samples), List.copyOf(grants), sampleMicros, threadCpuNanos.get() / 1_000);
    }

    /**
     * Sends a sample, sleeps a period, reads its reply (there by then) and sends the next: one
     * wake-up per sample, not two (the timer's and the reply's). When a sample is read does not
     * matter: its last token places it among the grants.
     */
    private void sampleUntilStopped() {
        long period = SAMPLE_EVERY.toNanos();
        long next = System.nanoTime();
        try {
            sampler.send(sampleRequest);
            while (true) {
                next += period;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                } else {
                    next = System.nanoTime(); // behind (the machine is busy): no burst of samples to catch up
                }
                samples.add(readSample());
                if (stopping) {
                    return;
                }
                sampler.send(sampleRequest);
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        } finally {
            addThreadCpu();
        }
    }

    private FifoCheck.Sample readSample() throws IOException {
        for (int queued = 0; queued < 3; queued++) {
            answered(sampler.read()); // +OK, +QUEUED, +QUEUED
        }
        List<?> reply = (List<?>) answered(sampler.read());
        List<?> queue = (List<?>) reply.get(0); // owner, ticket, owner, ticket, ...
        List<?> strings = (List<?>) reply.get(1); // the lock's value and the last token, each perhaps nil
        List<FifoCheck.Place> places = new ArrayList<>(queue.size() / 2);
        for (int i = 0; i + 1 < queue.size(); i += 2) {
            // tickets are integers below 2^53 (server time in µs), exact as the double a score is
            places.add(new FifoCheck.Place(
                    String.valueOf(queue.get(i)), (long) Double.parseDouble(String.valueOf(queue.get(i + 1)))));
        }
        Object lastToken = strings.get(1);
        return new FifoCheck.Sample(
                lastToken == null ? 0 : Long.parseLong(String.valueOf(lastToken)), holder(strings.get(0)), places);
    }

    private static Object answered(Object reply) throws IOException {
        if (reply instanceof RedisErrorReply error) {
            throw new IOException("the FIFO audit's sample was refused: " + error.getMessage());
        }
        return reply;
    }

    /** The holder in a lock value "{@code <owner>:<token>}" or "{@code <owner>:<token>:<seq>}"; null for none. */
    private static FifoCheck.Grant holder(Object value) {
        if (value == null) {
            return null;
        }
        String[] parts = String.valueOf(value).split(":", -1);
        return new FifoCheck.Grant(parts[0], Long.parseLong(parts[1]));
    }

    private void listen() {
        try {
            while (true) {
                if (!subscriber.hasBuffered()) {
                    // let messages gather: one wake-up then reads a batch, not one message each (on a
                    // busy machine a wake-up per message cost more CPU than all the rest of the audit)
                    LockSupport.parkNanos(SAMPLE_EVERY.toNanos());
                }
                List<?> push = (List<?>) subscriber.read();
                String kind = String.valueOf(push.get(0));
                if (kind.equals("pong")) {
                    return; // stop()'s PING: every message published before it has been read
                }
                String payload = String.valueOf(push.get(2));
                if ((kind.equals("message") || kind.equals("smessage")) && payload.startsWith(GRANTED)) {
                    String[] parts = payload.substring(GRANTED.length()).split(" ", -1);
                    if (parts.length == 2) { // (a grant without a token: a foreign counter, never in the bench)
                        grants.add(new FifoCheck.Grant(parts[0], Long.parseLong(parts[1])));
                    }
                }
            }
        } catch (Throwable e) {
            if (!subscriber.isClosed()) {
                failure.compareAndSet(null, e);
            }
        } finally {
            addThreadCpu();
        }
    }

    private void addThreadCpu() {
        long nanos = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        threadCpuNanos.addAndGet(Math.max(nanos, 0)); // -1 where the JVM cannot tell
    }

    /**
     * The server time the samples' EXECs have taken so far (their queued commands included; nothing
     * else in a run sends MULTI, and INFO is not counted among the run's commands).
     */
    private long sampleMicros() throws IOException {
        sampler.send(List.of("INFO", "commandstats"));
        for (String line : String.valueOf(answered(sampler.read())).split("\r?\n")) {
            if (line.startsWith("cmdstat_exec:")) {
                int at = line.indexOf("usec=") + "usec=".length();
                return Long.parseLong(line.substring(at, line.indexOf(',', at)));
            }
        }
        return 0;
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    @Override
    public void close() {
        stopping = true;
        closeQuietly(subscriber);
        closeQuietly(sampler);
    }

    private static void closeQuietly(RespPipeline connection) {
        try {
            connection.close();
        } catch (IOException ignored) {
            // the audit's own connection: nothing to recover
        }
    }
}
