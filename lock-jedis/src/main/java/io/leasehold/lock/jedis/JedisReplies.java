package io.leasehold.lock.jedis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Maps what Jedis returns for a script to the SPI's reply shapes: integer to {@link Long}, bulk or
 * status string to {@link String}, array to {@link List}, nil to {@code null}. Jedis's string
 * {@code eval} already decodes most replies; this catches the raw {@code byte[]} it may leave (status
 * replies, nested arrays, RESP3 clients). This class is threadsafe (stateless).
 */
final class JedisReplies {

    private JedisReplies() {}

    static @Nullable Object normalize(@Nullable Object reply) {
        if (reply instanceof byte[]) {
            return new String((byte[]) reply, StandardCharsets.UTF_8);
        }
        if (reply instanceof List) {
            List<?> elements = (List<?>) reply;
            List<@Nullable Object> mapped = new ArrayList<>(elements.size());
            for (Object element : elements) {
                mapped.add(normalize(element));
            }
            return mapped;
        }
        return reply;
    }
}
