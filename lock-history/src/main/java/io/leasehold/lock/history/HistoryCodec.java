package io.leasehold.lock.history;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * Turns a {@link HistoryEvent} into one line of JSON and back; the field names are listed in the
 * package documentation. Tokens are written as decimal strings (as Leasehold passes them, and so
 * that no JSON reader rounds them), times and values as integers; absent optional fields are left
 * out. Reading is strict JSON, ignores fields it does not know (a run may add its own), and fails
 * on an unknown {@code type}.
 *
 * <p>This class is threadsafe.
 */
public final class HistoryCodec {

    private static final Gson GSON = new Gson();

    private HistoryCodec() {}

    /** One line of JSON for {@code event}, without the line break. */
    public static String encode(HistoryEvent event) {
        StringWriter text = new StringWriter();
        try (JsonWriter json = new JsonWriter(text)) {
            json.setHtmlSafe(false);
            json.setSerializeNulls(false);
            json.beginObject();
            json.name("type").value(event.type());
            json.name("process").value(event.process());
            writeFields(json, event);
            json.endObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot happen: writing JSON to a string failed", e);
        }
        return text.toString();
    }

    /**
     * The record on {@code line}.
     *
     * @throws HistoryFormatException when the line is not one JSON object of a known type with valid fields
     */
    public static HistoryEvent decode(String line) {
        JsonObject object = parseObject(line);
        JsonElement typeElement = object.get("type");
        if (typeElement == null
                || !typeElement.isJsonPrimitive()
                || !typeElement.getAsJsonPrimitive().isString()) {
            throw new HistoryFormatException("a record must have a string field 'type', but this one has "
                    + (typeElement == null ? "none" : typeElement.toString()));
        }
        String type = typeElement.getAsString();
        JsonFields f = new JsonFields(object, type);
        try {
            return switch (type) {
                case ProcessStarted.TYPE -> new ProcessStarted(f.string("process"), f.integer("time"));
                case ProcessEnded.TYPE -> new ProcessEnded(f.string("process"), f.integer("time"));
                case AcquireAttempt.TYPE ->
                    new AcquireAttempt(
                            f.string("process"),
                            f.string("lock"),
                            f.integer("start"),
                            f.integer("end"),
                            f.enumValue("outcome", AcquireOutcome.class),
                            f.optionalToken("token"),
                            f.optionalString("error"));
                case SectionStarted.TYPE ->
                    new SectionStarted(f.string("process"), f.string("lock"), f.token("token"), f.integer("time"));
                case SectionEnded.TYPE ->
                    new SectionEnded(
                            f.string("process"),
                            f.string("lock"),
                            f.token("token"),
                            f.integer("time"),
                            f.enumValue("ending", SectionEnding.class));
                case ResourceAccess.TYPE ->
                    new ResourceAccess(
                            f.string("process"),
                            f.string("lock"),
                            f.string("resource"),
                            f.enumValue("op", AccessOp.class),
                            f.token("token"),
                            f.enumValue("outcome", AccessOutcome.class),
                            f.optionalInteger("value"),
                            f.optionalInteger("seq"),
                            f.integer("start"),
                            f.integer("end"),
                            f.optionalString("error"));
                case LossSignal.TYPE ->
                    new LossSignal(
                            f.string("process"),
                            f.string("lock"),
                            f.token("token"),
                            f.string("reason"),
                            f.integer("time"),
                            f.integer("seen"));
                case FaultWindow.TYPE ->
                    new FaultWindow(
                            f.string("process"),
                            f.string("kind"),
                            f.enumValue("effect", FaultEffect.class),
                            f.optionalString("target"),
                            f.integer("start"),
                            f.integer("end"));
                case ResourceState.TYPE ->
                    new ResourceState(
                            f.string("process"),
                            f.string("resource"),
                            f.integer("value"),
                            f.optionalToken("highest"),
                            f.integer("seq"),
                            f.integer("time"));
                case ResourceUpdate.TYPE ->
                    new ResourceUpdate(
                            f.string("process"),
                            f.string("resource"),
                            f.integer("seq"),
                            f.token("token"),
                            f.integer("previous"),
                            f.integer("value"),
                            f.integer("time"));
                default ->
                    throw new HistoryFormatException("unknown record type '" + type + "'; known types: "
                            + String.join(
                                    ", ",
                                    ProcessStarted.TYPE,
                                    ProcessEnded.TYPE,
                                    AcquireAttempt.TYPE,
                                    SectionStarted.TYPE,
                                    ResourceAccess.TYPE,
                                    LossSignal.TYPE,
                                    SectionEnded.TYPE,
                                    FaultWindow.TYPE,
                                    ResourceState.TYPE,
                                    ResourceUpdate.TYPE));
            };
        } catch (IllegalArgumentException | NullPointerException e) {
            // A record's own checks (blank name, end before start, ...) reject the values.
            throw new HistoryFormatException("invalid '" + type + "' record: " + e.getMessage(), e);
        }
    }

    private static JsonObject parseObject(String line) {
        try {
            JsonReader reader = new JsonReader(new StringReader(line));
            reader.setStrictness(Strictness.STRICT);
            JsonElement element = GSON.getAdapter(JsonElement.class).read(reader);
            if (!atEnd(reader)) {
                throw new HistoryFormatException("a line must hold exactly one JSON object, but more follows it");
            }
            if (element == null || !element.isJsonObject()) {
                throw new HistoryFormatException("a line must hold one JSON object, but was " + element);
            }
            return element.getAsJsonObject();
        } catch (IOException | RuntimeException e) {
            if (e instanceof HistoryFormatException format) {
                throw format;
            }
            // Gson's advice to parse leniently is about its API, not about the line: keep only where it broke.
            String message = String.valueOf(e.getMessage())
                    .lines()
                    .findFirst()
                    .orElse("")
                    .replace("Use JsonReader.setStrictness(Strictness.LENIENT) to accept malformed JSON", "")
                    .trim();
            throw new HistoryFormatException("not valid JSON" + (message.startsWith("at ") ? " " : ": ") + message, e);
        }
    }

    /** Strict mode refuses a second value outright; either way, something follows the object. */
    private static boolean atEnd(JsonReader reader) {
        try {
            return reader.peek() == JsonToken.END_DOCUMENT;
        } catch (IOException e) {
            return false;
        }
    }

    private static void writeFields(JsonWriter json, HistoryEvent event) throws IOException {
        if (event instanceof ProcessStarted e) {
            json.name("time").value(e.time());
        } else if (event instanceof ProcessEnded e) {
            json.name("time").value(e.time());
        } else if (event instanceof AcquireAttempt e) {
            json.name("lock").value(e.lock());
            json.name("start").value(e.start());
            json.name("end").value(e.end());
            json.name("outcome").value(e.outcome().name());
            token(json, "token", e.token());
            json.name("error").value(e.error());
        } else if (event instanceof SectionStarted e) {
            json.name("lock").value(e.lock());
            token(json, "token", e.token());
            json.name("time").value(e.time());
        } else if (event instanceof SectionEnded e) {
            json.name("lock").value(e.lock());
            token(json, "token", e.token());
            json.name("time").value(e.time());
            json.name("ending").value(e.ending().name());
        } else if (event instanceof ResourceAccess e) {
            json.name("lock").value(e.lock());
            json.name("resource").value(e.resource());
            json.name("op").value(e.op().name());
            token(json, "token", e.token());
            json.name("outcome").value(e.outcome().name());
            json.name("value").value(e.value());
            json.name("seq").value(e.seq());
            json.name("start").value(e.start());
            json.name("end").value(e.end());
            json.name("error").value(e.error());
        } else if (event instanceof LossSignal e) {
            json.name("lock").value(e.lock());
            token(json, "token", e.token());
            json.name("reason").value(e.reason());
            json.name("time").value(e.time());
            json.name("seen").value(e.seen());
        } else if (event instanceof FaultWindow e) {
            json.name("kind").value(e.kind());
            json.name("effect").value(e.effect().name());
            json.name("target").value(e.target());
            json.name("start").value(e.start());
            json.name("end").value(e.end());
        } else if (event instanceof ResourceState e) {
            json.name("resource").value(e.resource());
            json.name("value").value(e.value());
            token(json, "highest", e.highest());
            json.name("seq").value(e.seq());
            json.name("time").value(e.time());
        } else if (event instanceof ResourceUpdate e) {
            json.name("resource").value(e.resource());
            json.name("seq").value(e.seq());
            token(json, "token", e.token());
            json.name("previous").value(e.previous());
            json.name("value").value(e.value());
            json.name("time").value(e.time());
        } else {
            throw new IllegalArgumentException(
                    "unknown history event " + event.getClass().getName());
        }
    }

    private static void token(JsonWriter json, String name, Long token) throws IOException {
        json.name(name).value(token == null ? null : Long.toString(token));
    }
}
