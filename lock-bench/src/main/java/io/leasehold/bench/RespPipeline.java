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
    private final InputStream in;
    private final OutputStream out;

    private RespPipeline(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
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

    /** Sends {@code commands} in one write, without reading anything. */
    @SafeVarargs
    final void send(List<String>... commands) throws IOException {
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (List<String> command : commands) {
            batch.writeBytes(RespClient.encode(command));
        }
        out.write(batch.toByteArray());
        out.flush();
    }

    /** The next reply or pushed message; an error reply is returned as a {@code RedisErrorReply}, not thrown. */
    Object read() throws IOException {
        return RespClient.read(in);
    }

    boolean isClosed() {
        return socket.isClosed();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
