package io.leasehold.lock.testkit.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One direction of a proxied connection: a reader thread that reads chunks from one socket and a
 * writer thread that writes them, in order, to the other once the {@link FaultBoard} lets them go.
 * Two threads, so that latency delays each chunk by itself (as a slow link does) rather than adding
 * up chunk after chunk, and so that a held direction keeps reading until its queue is full.
 *
 * <p>This class is threadsafe: each loop runs on its own thread; the queue is the hand-off.
 */
final class Pump {

    private static final int CHUNK_BYTES = 16 * 1024;
    /** At most this many chunks (4 MB) wait per direction; then the reader blocks, as TCP flow control would. */
    private static final int QUEUED_CHUNKS = 256;

    private final Direction direction;
    private final Socket from;
    private final Socket to;
    private final FaultBoard board;
    private final ProxiedConnection connection;
    private final AtomicLong droppedBytes;
    private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUED_CHUNKS);

    Pump(
            Direction direction,
            Socket from,
            Socket to,
            FaultBoard board,
            ProxiedConnection connection,
            AtomicLong droppedBytes) {
        this.direction = direction;
        this.droppedBytes = droppedBytes;
        this.from = from;
        this.to = to;
        this.board = board;
        this.connection = connection;
    }

    Direction direction() {
        return direction;
    }

    /** Reads until end of stream; any I/O error (a reset, or our own close) aborts the connection. */
    void readLoop() {
        byte[] buffer = new byte[CHUNK_BYTES];
        try {
            InputStream in = from.getInputStream();
            while (true) {
                int read = in.read(buffer);
                // The latency in force when the bytes arrived is theirs, as on a link whose delay changes.
                long due = System.nanoTime() + board.current().latencyNanos(direction);
                if (read < 0) {
                    queue.put(new Chunk(null, due));
                    return;
                }
                queue.put(new Chunk(Arrays.copyOf(buffer, read), due));
            }
        } catch (IOException e) {
            connection.abort();
        } catch (InterruptedException e) {
            // The connection is being aborted; its sockets are closed by whoever interrupted us.
        }
    }

    /** Writes chunks in order as the board lets them go, until the end of stream has been passed on. */
    void writeLoop() {
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                Chunk chunk = queue.take();
                if (board.awaitTurn(direction, chunk.dueNanos(), connection.damaged()) == FaultBoard.Verdict.DROP) {
                    droppedBytes.addAndGet(chunk.isEndOfStream() ? 0 : chunk.bytes().length);
                    continue;
                }
                if (chunk.isEndOfStream()) {
                    to.shutdownOutput();
                    connection.halfClosed(direction);
                    return;
                }
                out.write(chunk.bytes());
                out.flush();
            }
        } catch (IOException e) {
            connection.abort();
        } catch (InterruptedException e) {
            // Aborted: see readLoop.
        }
    }
}
