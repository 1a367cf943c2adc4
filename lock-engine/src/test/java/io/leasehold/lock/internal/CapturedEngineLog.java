package io.leasehold.lock.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the engine logs during each test, through {@code System.Logger} (JUL, its default backend, in
 * these tests). Register it as a field: {@code @RegisterExtension final CapturedEngineLog log = new
 * CapturedEngineLog();}. The records are kept from before each test to after it.
 */
public final class CapturedEngineLog implements BeforeEachCallback, AfterEachCallback {

    /** The logger the engine's loggers sit under. */
    private final Logger engineLogger = Logger.getLogger("io.leasehold.lock");

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @Override
    public void beforeEach(ExtensionContext context) {
        engineLogger.addHandler(capture);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        engineLogger.removeHandler(capture);
    }

    /** Every record so far, in the order logged. */
    public List<LogRecord> records() {
        return records;
    }

    /** The messages of every record so far, in the order logged. */
    public List<String> messages() {
        return records.stream().map(LogRecord::getMessage).collect(Collectors.toList());
    }

    /** The messages that contain {@code part}. */
    public List<String> messagesContaining(String part) {
        return messages().stream().filter(message -> message.contains(part)).collect(Collectors.toList());
    }
}
