package io.leasehold.lock.lettuce;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Maps any script reply exactly as {@link io.leasehold.lock.spi.LockBackend} promises: integer →
 * {@link Long}, bulk or status string → {@link String}, array → {@link List} (nested as sent),
 * nil → {@code null}.
 *
 * <p>Lettuce's own {@code ScriptOutputType.MULTI} and {@code OBJECT} wrap a top-level integer in a
 * one-element list, which makes {@code 1} indistinguishable from {@code {1}}; a driver that knows
 * nothing about its scripts cannot undo that, hence this output. RESP3 extras map to their RESP2
 * meaning: a boolean {@code true} is {@code 1L} and {@code false} is nil (as Lua's conversion does
 * over RESP2), a double is a {@link Double}, a big number is its decimal {@link String}.
 *
 * <p>One instance decodes one reply, on one I/O thread; it is not threadsafe and need not be.
 */
final class ReplyOutput extends CommandOutput<String, String, Object> {

    /** Open arrays, innermost first, each with the number of elements it still expects. */
    private final Deque<OpenArray> open = new ArrayDeque<>();

    ReplyOutput() {
        super(StringCodec.UTF8, null);
    }

    @Override
    public void set(@Nullable ByteBuffer bytes) {
        add(bytes == null ? null : StandardCharsets.UTF_8.decode(bytes).toString());
    }

    @Override
    public void setSingle(@Nullable ByteBuffer bytes) {
        set(bytes);
    }

    @Override
    public void setBigNumber(@Nullable ByteBuffer bytes) {
        set(bytes);
    }

    @Override
    public void set(long integer) {
        add(integer);
    }

    @Override
    public void set(double number) {
        add(number);
    }

    @Override
    public void set(boolean value) {
        add(value ? Long.valueOf(1L) : null);
    }

    @Override
    public void multi(int count) {
        if (count < 0) {
            // RESP2 null array ("*-1"): nil.
            add(null);
            return;
        }
        List<Object> list = new ArrayList<>(count);
        add(list);
        if (count > 0) {
            open.push(new OpenArray(list, count));
        }
    }

    private void add(@Nullable Object value) {
        OpenArray parent = open.peek();
        if (parent == null) {
            output = value;
            return;
        }
        parent.list.add(value);
        parent.remaining--;
        // Close every array that is now full; a nested array that just opened is not full yet.
        while (!open.isEmpty() && open.peek().remaining == 0) {
            open.pop();
        }
    }

    private static final class OpenArray {
        final List<Object> list;
        int remaining;

        OpenArray(List<Object> list, int remaining) {
            this.list = list;
            this.remaining = remaining;
        }
    }
}
