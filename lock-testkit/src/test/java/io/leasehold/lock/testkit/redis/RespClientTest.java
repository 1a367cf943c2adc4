package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RespClientTest {

    private static Object parse(String wire) throws IOException {
        return RespClient.read(new ByteArrayInputStream(wire.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldEncodeCommandsAsArraysOfBulkStrings() {
        byte[] encoded = RespClient.encode(List.of("SET", "k", "é", ""));
        assertArrayEquals(
                "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n$0\r\n\r\n".getBytes(StandardCharsets.UTF_8), encoded);
    }

    @Test
    void shouldParseStatusReplyAsString() throws IOException {
        assertEquals("OK", parse("+OK\r\n"));
    }

    @Test
    void shouldParseErrorReplyAsRedisErrorReplyWithItsCode() throws IOException {
        RedisErrorReply error = assertInstanceOf(RedisErrorReply.class, parse("-MOVED 3999 127.0.0.1:6381\r\n"));
        assertEquals("MOVED 3999 127.0.0.1:6381", error.getMessage());
        assertEquals("MOVED", error.code());
    }

    @Test
    void shouldParseIntegerReplyAsLong() throws IOException {
        assertEquals(-42L, parse(":-42\r\n"));
        assertEquals(Long.MAX_VALUE, parse(":" + Long.MAX_VALUE + "\r\n"));
    }

    @Test
    void shouldParseBulkStringsIncludingEmptyUtf8AndEmbeddedCrLf() throws IOException {
        assertEquals("hello", parse("$5\r\nhello\r\n"));
        assertEquals("", parse("$0\r\n\r\n"));
        assertEquals("é", parse("$2\r\né\r\n"));
        assertEquals("a\r\nb", parse("$4\r\na\r\nb\r\n"));
    }

    @Test
    void shouldParseNilBulkAndNilArrayAsNull() throws IOException {
        assertNull(parse("$-1\r\n"));
        assertNull(parse("*-1\r\n"));
    }

    @Test
    void shouldParseNestedArraysWithEveryElementType() throws IOException {
        Object reply = parse("*6\r\n:1\r\n$3\r\nfoo\r\n+OK\r\n$-1\r\n*2\r\n:2\r\n*0\r\n-ERR inner\r\n");
        List<?> items = assertInstanceOf(List.class, reply);
        assertEquals(6, items.size());
        assertEquals(Arrays.asList(1L, "foo", "OK", null, List.of(2L, List.of())), items.subList(0, 5));
        assertEquals(
                "ERR inner",
                assertInstanceOf(RedisErrorReply.class, items.get(5)).getMessage());
    }

    @Test
    void shouldRejectUnknownTypeBytesAndTruncatedReplies() {
        IOException unknown = assertThrows(IOException.class, () -> parse("%2\r\n"));
        assertEquals("RESP protocol error: unexpected type byte '%' before '2'", unknown.getMessage());
        assertThrows(EOFException.class, () -> parse("$5\r\nhel"));
        assertThrows(EOFException.class, () -> parse(""));
    }
}
