/*
 * Part of paimon-kit's Java oracle harness (see PaimonHarness.java for the protocol).
 *
 * Converts between the harness's JSON value encoding and Paimon's internal data objects. The
 * encoding is driven by the column's DataType, exact in both directions:
 *
 *   null                  -> null
 *   BOOLEAN               -> true / false
 *   TINYINT .. BIGINT     -> JSON integer
 *   FLOAT, DOUBLE         -> JSON number; "NaN", "Infinity", "-Infinity" as strings. A FLOAT is
 *                            sent as the double of the same value, so no digit is lost.
 *   DECIMAL(p, s)         -> string, plain notation with exactly s fractional digits
 *   CHAR, VARCHAR         -> string
 *   BINARY, VARBINARY     -> base64 string (standard alphabet, padded)
 *   DATE                  -> integer days since 1970-01-01
 *   TIME(p)               -> integer milliseconds of the day
 *   TIMESTAMP(p) [LTZ]    -> {"millisecond": epoch millis, "nano": nanos within the milli}
 *   ARRAY<T>              -> JSON array
 *   MAP<K, V>             -> JSON array of [key, value] pairs (keys need not be strings)
 *   MULTISET<T>           -> JSON array of [element, count] pairs
 *   ROW<...>              -> JSON array of the field values in field order
 */

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.IntType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

final class ValueCodec {

    static final String MILLISECOND = "millisecond";
    static final String NANO = "nano";
    static final int NANOS_PER_MILLI = 1_000_000;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final DataType MULTISET_COUNT_TYPE = new IntType(false);

    private ValueCodec() {}

    // ------------------------------------------------------------------------------------------
    // Paimon -> JSON
    // ------------------------------------------------------------------------------------------

    /** {"kind": "+I", "values": [...]} for one row of the given type. */
    static ObjectNode encodeRow(InternalRow row, RowType type) {
        ObjectNode out = NODES.objectNode();
        out.put("kind", row.getRowKind().shortString());
        out.set("values", encodeFields(row, type));
        return out;
    }

    static ArrayNode encodeFields(InternalRow row, RowType type) {
        ArrayNode values = NODES.arrayNode();
        for (int i = 0; i < type.getFieldCount(); i++) {
            DataType fieldType = type.getTypeAt(i);
            Object value = InternalRow.createFieldGetter(fieldType, i).getFieldOrNull(row);
            values.add(encode(value, fieldType));
        }
        return values;
    }

    static JsonNode encode(Object value, DataType type) {
        if (value == null) {
            return NODES.nullNode();
        }
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return NODES.textNode(value.toString());
            case BOOLEAN:
                return NODES.booleanNode((Boolean) value);
            case BINARY:
            case VARBINARY:
                return NODES.textNode(Base64.getEncoder().encodeToString((byte[]) value));
            case DECIMAL:
                return NODES.textNode(((Decimal) value).toBigDecimal().toPlainString());
            case TINYINT:
                return NODES.numberNode((Byte) value);
            case SMALLINT:
                return NODES.numberNode((Short) value);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return NODES.numberNode((Integer) value);
            case BIGINT:
                return NODES.numberNode((Long) value);
            case FLOAT:
                return encodeFloating((double) (Float) value);
            case DOUBLE:
                return encodeFloating((Double) value);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return encodeTimestamp((Timestamp) value);
            case ARRAY:
                return encodeArray((InternalArray) value, ((ArrayType) type).getElementType());
            case MAP:
                MapType mapType = (MapType) type;
                return encodePairs(
                        (InternalMap) value, mapType.getKeyType(), mapType.getValueType());
            case MULTISET:
                return encodePairs(
                        (InternalMap) value,
                        ((MultisetType) type).getElementType(),
                        MULTISET_COUNT_TYPE);
            case ROW:
                return encodeFields((InternalRow) value, (RowType) type);
            default:
                throw new UnsupportedOperationException("cannot encode values of type " + type);
        }
    }

    private static JsonNode encodeFloating(double value) {
        if (Double.isNaN(value)) {
            return NODES.textNode("NaN");
        }
        if (Double.isInfinite(value)) {
            return NODES.textNode(value > 0 ? "Infinity" : "-Infinity");
        }
        return NODES.numberNode(value);
    }

    private static JsonNode encodeTimestamp(Timestamp value) {
        ObjectNode out = NODES.objectNode();
        out.put(MILLISECOND, value.getMillisecond());
        out.put(NANO, value.getNanoOfMillisecond());
        return out;
    }

    private static JsonNode encodeArray(InternalArray array, DataType elementType) {
        InternalArray.ElementGetter getter = InternalArray.createElementGetter(elementType);
        ArrayNode out = NODES.arrayNode();
        for (int i = 0; i < array.size(); i++) {
            out.add(encode(getter.getElementOrNull(array, i), elementType));
        }
        return out;
    }

    private static JsonNode encodePairs(InternalMap map, DataType keyType, DataType valueType) {
        InternalArray keys = map.keyArray();
        InternalArray values = map.valueArray();
        InternalArray.ElementGetter keyGetter = InternalArray.createElementGetter(keyType);
        InternalArray.ElementGetter valueGetter = InternalArray.createElementGetter(valueType);
        ArrayNode out = NODES.arrayNode();
        for (int i = 0; i < map.size(); i++) {
            ArrayNode pair = NODES.arrayNode();
            pair.add(encode(keyGetter.getElementOrNull(keys, i), keyType));
            pair.add(encode(valueGetter.getElementOrNull(values, i), valueType));
            out.add(pair);
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------
    // JSON -> Paimon
    // ------------------------------------------------------------------------------------------

    /** A row from {"kind": "+I", "values": [...]} (kind defaults to +I) or a bare value array. */
    static GenericRow decodeRow(JsonNode node, RowType type) {
        RowKind kind = RowKind.INSERT;
        JsonNode values = node;
        if (node.isObject()) {
            JsonNode kindNode = node.get("kind");
            if (kindNode != null && !kindNode.isNull()) {
                kind = RowKind.fromShortString(kindNode.asText());
            }
            values = node.get("values");
        }
        GenericRow row = decodeFields(values, type, "row");
        row.setRowKind(kind);
        return row;
    }

    static GenericRow decodeFields(JsonNode values, RowType type, String where) {
        if (values == null || !values.isArray()) {
            throw new IllegalArgumentException(where + " must be a JSON array of field values");
        }
        if (values.size() != type.getFieldCount()) {
            throw new IllegalArgumentException(
                    where
                            + " has "
                            + values.size()
                            + " values but the type has "
                            + type.getFieldCount()
                            + " fields: "
                            + type.getFieldNames());
        }
        GenericRow row = new GenericRow(type.getFieldCount());
        for (int i = 0; i < type.getFieldCount(); i++) {
            String name = where + "." + type.getFields().get(i).name();
            row.setField(i, decode(values.get(i), type.getTypeAt(i), name));
        }
        return row;
    }

    static Object decode(JsonNode node, DataType type, String where) {
        if (node == null || node.isNull()) {
            if (!type.isNullable()) {
                throw new IllegalArgumentException(where + ": null for NOT NULL type " + type);
            }
            return null;
        }
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(text(node, where));
            case BOOLEAN:
                if (!node.isBoolean()) {
                    throw invalid(where, "a boolean", node);
                }
                return node.booleanValue();
            case BINARY:
            case VARBINARY:
                return Base64.getDecoder().decode(text(node, where));
            case DECIMAL:
                return decodeDecimal(node, (DecimalType) type, where);
            case TINYINT:
                return (byte) integral(node, Byte.MIN_VALUE, Byte.MAX_VALUE, where);
            case SMALLINT:
                return (short) integral(node, Short.MIN_VALUE, Short.MAX_VALUE, where);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return (int) integral(node, Integer.MIN_VALUE, Integer.MAX_VALUE, where);
            case BIGINT:
                return integral(node, Long.MIN_VALUE, Long.MAX_VALUE, where);
            case FLOAT:
                return decodeFloat(node, where);
            case DOUBLE:
                return decodeFloating(node, where);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return decodeTimestamp(node, where);
            case ARRAY:
                return decodeArray(node, ((ArrayType) type).getElementType(), where);
            case MAP:
                MapType mapType = (MapType) type;
                return new GenericMap(
                        decodePairs(node, mapType.getKeyType(), mapType.getValueType(), where));
            case MULTISET:
                return new GenericMap(
                        decodePairs(
                                node,
                                ((MultisetType) type).getElementType(),
                                MULTISET_COUNT_TYPE,
                                where));
            case ROW:
                return decodeFields(node, (RowType) type, where);
            default:
                throw new UnsupportedOperationException(
                        where + ": cannot decode values of type " + type);
        }
    }

    private static IllegalArgumentException invalid(String where, String expected, JsonNode got) {
        return new IllegalArgumentException(where + ": expected " + expected + ", got " + got);
    }

    private static String text(JsonNode node, String where) {
        if (!node.isTextual()) {
            throw invalid(where, "a string", node);
        }
        return node.textValue();
    }

    private static long integral(JsonNode node, long min, long max, String where) {
        if (!node.isIntegralNumber()) {
            throw invalid(where, "an integer", node);
        }
        BigInteger value = node.bigIntegerValue();
        if (value.compareTo(BigInteger.valueOf(min)) < 0
                || value.compareTo(BigInteger.valueOf(max)) > 0) {
            throw invalid(where, "an integer in [" + min + ", " + max + "]", node);
        }
        return value.longValue();
    }

    private static Decimal decodeDecimal(JsonNode node, DecimalType type, String where) {
        BigDecimal exact;
        if (node.isTextual()) {
            exact = new BigDecimal(node.textValue());
        } else if (node.isIntegralNumber()) {
            exact = new BigDecimal(node.bigIntegerValue());
        } else {
            throw invalid(where, "a decimal string", node);
        }
        BigDecimal scaled;
        try {
            scaled = exact.setScale(type.getScale());
        } catch (ArithmeticException e) {
            throw invalid(where, "at most " + type.getScale() + " fractional digits", node);
        }
        Decimal decimal = Decimal.fromBigDecimal(scaled, type.getPrecision(), type.getScale());
        if (decimal == null) {
            throw invalid(where, "a value that fits " + type, node);
        }
        return decimal;
    }

    private static double decodeFloating(JsonNode node, String where) {
        if (node.isTextual()) {
            switch (node.textValue()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    throw invalid(where, "a number, \"NaN\", \"Infinity\" or \"-Infinity\"", node);
            }
        }
        if (!node.isNumber()) {
            throw invalid(where, "a number", node);
        }
        return node.doubleValue();
    }

    private static float decodeFloat(JsonNode node, String where) {
        double value = decodeFloating(node, where);
        float narrowed = (float) value;
        if (!Double.isNaN(value) && (double) narrowed != value) {
            throw invalid(where, "a value exactly representable as FLOAT", node);
        }
        return narrowed;
    }

    private static Timestamp decodeTimestamp(JsonNode node, String where) {
        if (!node.isObject() || !node.has(MILLISECOND)) {
            throw invalid(where, "{\"millisecond\": .., \"nano\": ..}", node);
        }
        long millis = integral(node.get(MILLISECOND), Long.MIN_VALUE, Long.MAX_VALUE, where);
        JsonNode nanoNode = node.get(NANO);
        long nanos =
                nanoNode == null || nanoNode.isNull()
                        ? 0
                        : integral(nanoNode, 0, NANOS_PER_MILLI - 1, where + ".nano");
        return Timestamp.fromEpochMillis(millis, (int) nanos);
    }

    private static GenericArray decodeArray(JsonNode node, DataType elementType, String where) {
        if (!node.isArray()) {
            throw invalid(where, "a JSON array", node);
        }
        Object[] elements = new Object[node.size()];
        for (int i = 0; i < node.size(); i++) {
            elements[i] = decode(node.get(i), elementType, where + "[" + i + "]");
        }
        return new GenericArray(elements);
    }

    private static Map<Object, Object> decodePairs(
            JsonNode node, DataType keyType, DataType valueType, String where) {
        if (!node.isArray()) {
            throw invalid(where, "a JSON array of [key, value] pairs", node);
        }
        Map<Object, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode pair = node.get(i);
            if (!pair.isArray() || pair.size() != 2) {
                throw invalid(where + "[" + i + "]", "a [key, value] pair", pair);
            }
            String at = where + "[" + i + "]";
            out.put(decode(pair.get(0), keyType, at), decode(pair.get(1), valueType, at));
        }
        return out;
    }
}
