package io.leasehold.lock.testkit.faults;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One client connection through a {@link FaultProxy} and its connection to the target: two
 * {@link Pump}s, four threads. It ends normally when both directions have passed on their end of
 * stream, or is aborted (both sockets reset) on an I/O error, a cut, or the proxy's close.
 *
 * <p>This class is threadsafe.
 */
final class ProxiedConnection {

    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private final String name;
    private final Socket client;
    private final Socket target = new Socket();
    private final InetSocketAddress targetAddress;
    private final FaultBoard board;
    private final Threads threads;
    private final Consumer<ProxiedConnection> onEnd;
    private final AtomicLong droppedBytes;
    private final AtomicBoolean damaged = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final Set<Direction> halfClosed = EnumSet.noneOf(Direction.class);
    private final List<Thread> own = new CopyOnWriteArrayList<>();

    /**
     * @param name the prefix of this connection's thread names
     * @param droppedBytes the proxy's count of bytes discarded by {@link Silence#DROP}
     * @param onEnd told once, with this connection, when it has ended, however it ended
     */
    ProxiedConnection(
            String name,
            Socket client,
            InetSocketAddress targetAddress,
            FaultBoard board,
            Threads threads,
            AtomicLong droppedBytes,
            Consumer<ProxiedConnection> onEnd) {
        this.droppedBytes = droppedBytes;
        this.name = name;
        this.client = client;
        this.targetAddress = targetAddress;
        this.board = board;
        this.threads = threads;
        this.onEnd = onEnd;
    }

    /**
     * Starts the connection: its first thread connects to the target (off the acceptor thread, so a
     * slow target never delays other clients), then starts the other three and reads the client.
     */
    void start() {
        Pump toTarget = new Pump(Direction.CLIENT_TO_TARGET, client, target, board, this, droppedBytes);
        Pump toClient = new Pump(Direction.TARGET_TO_CLIENT, target, client, board, this, droppedBytes);
        spawn(toTarget, "reader", () -> {
            try {
                target.setTcpNoDelay(true);
                target.connect(targetAddress, CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                // The target is down: the client sees its connection reset, as if it had reached the target.
                abort();
                return;
            }
            spawn(toTarget, "writer", toTarget::writeLoop);
            spawn(toClient, "reader", toClient::readLoop);
            spawn(toClient, "writer", toClient::writeLoop);
            toTarget.readLoop();
        });
    }

    /** Set when a dropping direction discarded bytes of this connection: it must be reset when drops end. */
    AtomicBoolean damaged() {
        return damaged;
    }

    boolean isDamaged() {
        return damaged.get();
    }

    /** Called by a writer that passed on the end of stream; after both directions, closes normally. */
    void halfClosed(Direction direction) {
        boolean both;
        synchronized (halfClosed) {
            halfClosed.add(direction);
            both = halfClosed.size() == 2;
        }
        if (both && ended.compareAndSet(false, true)) {
            closeQuietly(client);
            closeQuietly(target);
            onEnd.accept(this);
        }
    }

    /** Resets both sockets (RST, not FIN) and stops the threads. Idempotent. */
    void abort() {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        reset(client);
        reset(target);
        for (Thread thread : own) {
            if (thread != Thread.currentThread()) {
                thread.interrupt();
            }
        }
        onEnd.accept(this);
    }

    private void spawn(Pump pump, String role, Runnable body) {
        Thread thread = threads.start(name + "-" + pump.direction().shortName() + "-" + role, body);
        own.add(thread);
        if (ended.get()) {
            // Aborted while we were starting it: abort() may have interrupted the others before this one existed.
            thread.interrupt();
        }
    }

    /** Closes with SO_LINGER 0, so that the peer gets a reset: what it sees when a connection is cut. */
    static void reset(Socket socket) {
        try {
            if (!socket.isClosed()) {
                socket.setSoLinger(true, 0);
            }
        } catch (IOException e) {
            // Not connected (yet): plain close below is all there is.
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing is all we wanted; a socket that fails to close is already unusable.
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
