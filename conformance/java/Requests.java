/*
 * Part of paimon-kit's Java oracle harness (see PaimonHarness.java for the protocol).
 *
 * Typed access to the members of a JSON request, with messages that name the missing or
 * malformed member.
 */

import org.apache.paimon.utils.TimeUtils;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

final class Requests {

    private Requests() {}

    static boolean has(JsonNode request, String name) {
        JsonNode node = request.get(name);
        return node != null && !node.isNull();
    }

    static JsonNode node(JsonNode request, String name) {
        if (!has(request, name)) {
            throw new IllegalArgumentException("request has no '" + name + "'");
        }
        return request.get(name);
    }

    static String text(JsonNode request, String name) {
        JsonNode node = node(request, name);
        if (!node.isTextual()) {
            throw new IllegalArgumentException("'" + name + "' must be a string, got " + node);
        }
        return node.textValue();
    }

    static String optText(JsonNode request, String name) {
        return has(request, name) ? text(request, name) : null;
    }

    static long integer(JsonNode request, String name) {
        JsonNode node = node(request, name);
        if (!node.isIntegralNumber()) {
            throw new IllegalArgumentException("'" + name + "' must be an integer, got " + node);
        }
        return node.longValue();
    }

    static Long optInteger(JsonNode request, String name) {
        return has(request, name) ? integer(request, name) : null;
    }

    static boolean flag(JsonNode request, String name, boolean otherwise) {
        if (!has(request, name)) {
            return otherwise;
        }
        JsonNode node = request.get(name);
        if (!node.isBoolean()) {
            throw new IllegalArgumentException("'" + name + "' must be a boolean, got " + node);
        }
        return node.booleanValue();
    }

    static List<String> optTextList(JsonNode request, String name) {
        if (!has(request, name)) {
            return null;
        }
        JsonNode node = request.get(name);
        if (!node.isArray()) {
            throw new IllegalArgumentException("'" + name + "' must be a list of strings");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : node) {
            if (!item.isTextual()) {
                throw new IllegalArgumentException("'" + name + "' must hold strings, got " + item);
            }
            out.add(item.textValue());
        }
        return out;
    }

    /** A JSON object of options; values may be strings, numbers or booleans (sent as text). */
    static Map<String, String> stringMap(JsonNode request, String name) {
        Map<String, String> out = new LinkedHashMap<>();
        if (!has(request, name)) {
            return out;
        }
        JsonNode node = request.get(name);
        if (!node.isObject()) {
            throw new IllegalArgumentException("'" + name + "' must be a JSON object");
        }
        node.fields()
                .forEachRemaining(
                        entry -> {
                            JsonNode value = entry.getValue();
                            if (!value.isValueNode() || value.isNull()) {
                                throw new IllegalArgumentException(
                                        "'" + name + "." + entry.getKey() + "' must be a scalar");
                            }
                            out.put(entry.getKey(), value.asText());
                        });
        return out;
    }

    /** A duration given as a Paimon duration string ("1 h", "30 s") or as integer millis. */
    static Duration optDuration(JsonNode request, String name) {
        if (!has(request, name)) {
            return null;
        }
        JsonNode node = request.get(name);
        if (node.isIntegralNumber()) {
            return Duration.ofMillis(node.longValue());
        }
        return TimeUtils.parseDuration(text(request, name));
    }
}
