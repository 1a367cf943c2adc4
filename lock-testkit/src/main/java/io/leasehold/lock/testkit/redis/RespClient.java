package io.leasehold.lock.testkit.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for the fixtures' admin commands ({@code PING}, {@code FLUSHALL},
 * {@code CLIENT KILL}, {@code SENTINEL ...}, {@code CLUSTER ...}) over a plain {@link Socket}.
 * The testkit deliberately uses no Redis client library, so that testing a Lettuce driver never
 * depends on Jedis or the other way round, and so that a fault in the driver under test cannot
 * hide in the fixture.
 *
 * <p>Commands go out as arrays of bulk strings. Replies map as the driver SPI maps them: integer →
 * {@link Long}, bulk or status string → {@link String} (UTF-8), array → {@link List}, nil →
 * {@code null}; an error reply is thrown as {@link RedisErrorReply} at the top level and returned
 * as a {@code RedisErrorReply} element inside an array.
 *
 * <p>This class is <b>not</b> threadsafe: one command at a time per instance.
 */
public final class RespClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code endpoint}; {@code timeout} bounds the connect and every later read. */
    public static RespClient connect(RedisEndpoint endpoint, Duration timeout) throws IOException {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(millis);
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), millis);
            return new RespClient(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends one command and reads its reply; throws {@link RedisErrorReply} for an error reply. */
    public Object call(String... args) throws IOException {
        return call(List.of(args));
    }

    /** Sends one command and reads its reply; throws {@link RedisErrorReply} for an error reply. */
    public Object call(List<String> args) throws IOException {
        out.write(encode(args));
        out.flush();
        Object reply = read(in);
        if (reply instanceof RedisErrorReply error) {
            throw new RedisErrorReply(error.getMessage());
        }
        return reply;
    }

    /** Encodes a command as a RESP array of bulk strings. */
    public static byte[] encode(List<String> args) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        writeAscii(buffer, "*" + args.size() + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(buffer, "$" + bytes.length + "\r\n");
            buffer.writeBytes(bytes);
            writeAscii(buffer, "\r\n");
        }
        return buffer.toByteArray();
    }

    /** Reads one RESP2 reply; an error reply is returned (not thrown) as a {@link RedisErrorReply}. */
    public static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by the server before a reply");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new RedisErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("bulk string of " + length + " bytes was cut short");
                }
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException(
                        "RESP protocol error: unexpected type byte '" + (char) type + "' before '" + line + "'");
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed by the server in the middle of a reply");
            }
            if (b == '\r') {
                if (in.read() != '\n') {
                    throw new IOException("RESP protocol error: CR not followed by LF");
                }
                return line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
    }

    private static void writeAscii(ByteArrayOutputStream buffer, String text) {
        buffer.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
