package io.vfiodp.state;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/** What reading a state file gave: see {@link StateEnvelope#read}. */
public sealed interface StateReading {

    /** There is no file by that name: whether one should be there is the caller's to say. */
    record Missing() implements StateReading {}

    /** The file passed its checks: {@code content} is what was written, at {@code version}. */
    record Found(int version, JsonNode content) implements StateReading {
        public Found {
            Objects.requireNonNull(content, "content");
        }
    }

    /**
     * A JSON object without the envelope, as versions that wrote no checksum left it: the caller
     * takes it only in the exact shape those versions wrote, else counts it as lost.
     */
    record Legacy(JsonNode root) implements StateReading {
        public Legacy {
            Objects.requireNonNull(root, "root");
        }
    }

    /**
     * The file cannot be trusted: unreadable, empty, not what the agent writes, of another kind or
     * version, or its checksum does not match. Never read as empty.
     *
     * @param reason what is wrong, naming the file ("/var/lib/…/checkpoint.json is empty")
     */
    record Lost(String reason) implements StateReading {
        public Lost {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
