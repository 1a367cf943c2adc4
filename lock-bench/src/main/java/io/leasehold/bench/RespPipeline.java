package io.leasehold.bench;

import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RespClient;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

/**
 * A RESP2 connection that sends several commands in one write and reads replies one at a time, in
 * the testkit's encoding ({@link RespClient#encode}, {@link RespClient#read}): what
 * {@link RespClient}, one command and one reply per call, cannot do, and the {@link FifoAudit} needs
 * twice: a {@code MULTI ... EXEC} in one round trip, and a subscriber that reads pushed messages.
 *
 * <p>Sending and reading may happen on two threads (one each), as a subscriber's do.
 */
final class RespPipeline implements AutoCloseable {

    private final Socket socket;
    private final Input in;
    private final OutputStream out;

    private RespPipeline(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new Input(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** A buffered input that tells how much it holds already, without asking the socket. */
    private static final class Input extends BufferedInputStream {
        Input(InputStream socket) {
            super(socket);
        }

        /** Bytes read from the socket and not yet consumed (the reading thread's own view). */
        int buffered() {
            return count - pos;
        }
    }

    /** Connects to {@code endpoint}; {@code readTimeout} bounds every read (zero: a read waits as long as it takes). */
    static RespPipeline connect(RedisEndpoint endpoint, Duration connectTimeout, Duration readTimeout)
            throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout((int) readTimeout.toMillis());
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), (int) connectTimeout.toMillis());
            return new RespPipeline(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** {@code commands} encoded for one write (see {@link #send(byte[])}), for a batch sent again and again. */
    @SafeVarargs
    static byte[] encode(List<String>... commands) {
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (List<String> command : commands) {
            batch.writeBytes(RespClient.encode(command));
        }
        return batch.toByteArray();
    }

    /** Sends {@code commands} in one write, without reading anything. */
    @SafeVarargs
    final void send(List<String>... commands) throws IOException {
        send(encode(commands));
    }

    /** Sends commands {@link #encode}d already, in one write, without reading anything. */
    void send(byte[] encoded) throws IOException {
        out.write(encoded);
        out.flush();
    }

    /** The next reply or pushed message; an error reply is returned as a {@code RedisErrorReply}, not thrown. */
    Object read() throws IOException {
        return RespClient.read(in);
    }

    /** Whether a {@link #read} can be answered (at least in part) from bytes already read, without waiting. */
    boolean hasBuffered() {
        return in.buffered() > 0;
    }

    boolean isClosed() {
        return socket.isClosed();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
