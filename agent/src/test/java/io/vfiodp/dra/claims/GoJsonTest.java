package io.vfiodp.dra.claims;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Outputs of Go's {@code json.MarshalIndent(v, "", "  ")} for the same values. */
class GoJsonTest {

    @Test
    void indentsAsMarshalIndentDoes() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", 1L);
        m.put("b", List.of("x", true));
        m.put("c", Map.of());
        m.put("d", List.of());
        assertThat(GoJson.indented(m)).isEqualTo("""
                {
                  "a": 1,
                  "b": [
                    "x",
                    true
                  ],
                  "c": {},
                  "d": []
                }""");
    }

    @Test
    void escapesStringsAsGoDoes() {
        assertThat(GoJson.indented("AT&T <x> \"q\" \\ \n\t\r\b\f \u0001 \u2028\u2029 é 😀"))
                .isEqualTo("\"AT\\u0026T \\u003cx\\u003e \\\"q\\\" \\\\ \\n\\t\\r\\b\\f \\u0001 \\u2028\\u2029 é 😀\"");
    }

    @Test
    void aLoneSurrogateBecomesTheReplacementCharacter() {
        assertThat(GoJson.indented("a\ud800b")).isEqualTo("\"a\\ufffdb\"");
    }
}
