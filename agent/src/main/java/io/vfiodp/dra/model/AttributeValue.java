package io.vfiodp.dra.model;

import java.util.List;
import java.util.Objects;

/**
 * A device attribute's value as {@code resource.k8s.io/v1} carries it: exactly one of a string, an
 * integer, a boolean or a non-empty list of integers (KEP-5491's {@code ints}, only for the list
 * form of {@code resource.kubernetes.io/numaNode}; versions are not used here).
 */
public sealed interface AttributeValue {

    /** The API's JSON field for this type: {@code string}, {@code int} or {@code bool}. */
    String field();

    record Text(String value) implements AttributeValue {
        /** The API's limit on a string attribute's length. */
        public static final int MAX_LENGTH = 64;

        public Text {
            Objects.requireNonNull(value, "value");
            if (value.length() > MAX_LENGTH) throw new IllegalArgumentException("attribute value longer than 64 characters: " + value);
        }

        @Override public String field() { return "string"; }
    }

    record Int(long value) implements AttributeValue {
        @Override public String field() { return "int"; }
    }

    record Bool(boolean value) implements AttributeValue {
        @Override public String field() { return "bool"; }
    }

    record Ints(List<Long> values) implements AttributeValue {
        public Ints {
            values = List.copyOf(values);
            if (values.isEmpty()) throw new IllegalArgumentException("a list attribute holds at least one value");
        }

        @Override public String field() { return "ints"; }
    }

    static AttributeValue of(String s) {
        return new Text(s);
    }

    static AttributeValue of(long n) {
        return new Int(n);
    }
}
