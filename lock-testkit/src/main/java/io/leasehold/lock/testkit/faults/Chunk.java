package io.leasehold.lock.testkit.faults;

/**
 * Bytes read from one side of a connection, waiting to be written to the other: {@code bytes} is
 * {@code null} for the end of the stream (the sender half-closed), which travels in order behind
 * the data like any chunk.
 *
 * @param bytes the data, or {@code null} for end of stream
 * @param dueNanos the {@link System#nanoTime()} before which the chunk must not be written (its latency)
 */
record Chunk(byte[] bytes, long dueNanos) {

    boolean isEndOfStream() {
        return bytes == null;
    }
}
