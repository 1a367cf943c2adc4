package io.leasehold.lock.testkit.faults;

import io.leasehold.lock.testkit.redis.RespClient;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;

/**
 * A RESP connection through a proxy whose sends and reads are separate steps, so that a test can send
 * a command, see that no reply comes while a fault holds it, and read the late reply after resume.
 * (RespClient sends and reads in one call.)
 */
final class RawConnection implements AutoCloseable {

    static final Duration REPLY_TIMEOUT = Duration.ofSeconds(20);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    static RawConnection open(FaultProxy proxy) throws IOException {
        Socket socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(proxy.host(), proxy.port()), (int) REPLY_TIMEOUT.toMillis());
        return new RawConnection(socket);
    }

    void send(String... command) throws IOException {
        out.write(RespClient.encode(List.of(command)));
        out.flush();
    }

    /** Reads one reply, waiting up to {@link #REPLY_TIMEOUT}. */
    Object read() throws IOException {
        return readWithin(REPLY_TIMEOUT);
    }

    Object readWithin(Duration timeout) throws IOException {
        socket.setSoTimeout((int) timeout.toMillis());
        return RespClient.read(in);
    }

    Object call(String... command) throws IOException {
        send(command);
        return read();
    }

    /**
     * True when no byte arrives for {@code window}, the connection staying open (a timeout, not end
     * of stream or a reset). A timeout before the first byte of a reply leaves the stream intact.
     */
    boolean staysSilentFor(Duration window) throws IOException {
        try {
            Object reply = readWithin(window);
            throw new AssertionError("expected silence for " + window + ", but got the reply " + reply);
        } catch (SocketTimeoutException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
