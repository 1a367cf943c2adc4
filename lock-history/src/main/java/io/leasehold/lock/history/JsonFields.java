package io.leasehold.lock.history;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.util.Arrays;

/** Typed reads of one record's fields, each failing with the record type, the field and the rule. */
final class JsonFields {

    private final JsonObject object;
    private final String type;

    JsonFields(JsonObject object, String type) {
        this.object = object;
        this.type = type;
    }

    String string(String field) {
        String value = optionalString(field);
        if (value == null) {
            throw missing(field, "a string");
        }
        return value;
    }

    String optionalString(String field) {
        JsonPrimitive primitive = primitive(field);
        if (primitive == null) {
            return null;
        }
        if (!primitive.isString()) {
            throw wrong(field, "a string", primitive);
        }
        return primitive.getAsString();
    }

    long integer(String field) {
        Long value = optionalInteger(field);
        if (value == null) {
            throw missing(field, "an integer");
        }
        return value;
    }

    Long optionalInteger(String field) {
        JsonPrimitive primitive = primitive(field);
        if (primitive == null) {
            return null;
        }
        if (!primitive.isNumber()) {
            throw wrong(field, "an integer", primitive);
        }
        return exactLong(field, primitive.getAsBigDecimal(), primitive);
    }

    /** A fencing token: a decimal string (as tokens travel) or, accepted too, a JSON integer. */
    long token(String field) {
        Long value = optionalToken(field);
        if (value == null) {
            throw missing(field, "a token (decimal string)");
        }
        return value;
    }

    Long optionalToken(String field) {
        JsonPrimitive primitive = primitive(field);
        if (primitive == null) {
            return null;
        }
        if (primitive.isString()) {
            try {
                return exactLong(field, new BigDecimal(primitive.getAsString()), primitive);
            } catch (NumberFormatException e) {
                throw wrong(field, "a token (decimal string)", primitive);
            }
        }
        if (primitive.isNumber()) {
            return exactLong(field, primitive.getAsBigDecimal(), primitive);
        }
        throw wrong(field, "a token (decimal string)", primitive);
    }

    <E extends Enum<E>> E enumValue(String field, Class<E> kind) {
        String name = string(field);
        try {
            return Enum.valueOf(kind, name);
        } catch (IllegalArgumentException e) {
            throw new HistoryFormatException("field '" + field + "' of a '" + type + "' record must be one of "
                    + Arrays.toString(kind.getEnumConstants()) + ", but was '" + name + "'");
        }
    }

    private JsonPrimitive primitive(String field) {
        JsonElement element = object.get(field);
        if (element == null || element.isJsonNull()) {
            return null;
        }
        if (!element.isJsonPrimitive()) {
            throw new HistoryFormatException("field '" + field + "' of a '" + type
                    + "' record must be a string or a number, but was " + element);
        }
        return element.getAsJsonPrimitive();
    }

    private long exactLong(String field, BigDecimal number, JsonPrimitive raw) {
        try {
            return number.longValueExact();
        } catch (ArithmeticException e) {
            throw wrong(field, "an integer that fits in 64 bits", raw);
        }
    }

    private HistoryFormatException missing(String field, String what) {
        return new HistoryFormatException(
                "field '" + field + "' of a '" + type + "' record is required (" + what + "), but is missing");
    }

    private HistoryFormatException wrong(String field, String what, JsonPrimitive raw) {
        return new HistoryFormatException(
                "field '" + field + "' of a '" + type + "' record must be " + what + ", but was " + raw);
    }
}
