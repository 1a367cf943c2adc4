package io.leasehold.lock.testkit.redis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Parsers for the admin replies the fixtures read: {@code INFO} text and flat field/value arrays. */
final class Replies {

    private Replies() {}

    /** {@code INFO} (or {@code CLUSTER INFO}) text as a map of {@code field:value} lines. */
    static Map<String, String> info(Object reply) {
        Map<String, String> fields = new HashMap<>();
        for (String line : String.valueOf(reply).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (!line.startsWith("#") && colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /** A flat {@code [field, value, field, value, ...]} array (e.g. {@code SENTINEL MASTER}) as a map. */
    static Map<String, String> fieldMap(Object reply) {
        Map<String, String> fields = new HashMap<>();
        List<?> items = (List<?>) reply;
        for (int i = 0; i + 1 < items.size(); i += 2) {
            fields.put(String.valueOf(items.get(i)), String.valueOf(items.get(i + 1)));
        }
        return fields;
    }
}
