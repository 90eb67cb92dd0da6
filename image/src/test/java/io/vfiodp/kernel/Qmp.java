package io.vfiodp.kernel;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A client of QEMU's machine protocol (QMP, JSON lines): commands and their answers, and the
 * events QEMU sends in between, kept until asked for. Used to hot-plug devices into the guest's
 * PCIe root ports ({@code device_add}, {@code device_del}) and to stop QEMU.
 */
final class Qmp implements AutoCloseable {

    /** An answer's bound on a quiet machine; the guest paces it once its boot is measured ({@link #answerWithin}). */
    static final Duration ANSWER = Duration.ofSeconds(30);

    private final LineChannel channel;
    private final ObjectMapper json = new ObjectMapper();
    private final List<JsonNode> events = new ArrayList<>();
    private Duration answer = ANSWER;

    private Qmp(LineChannel channel) {
        this.channel = channel;
    }

    /** Reads QEMU's greeting and leaves capabilities negotiation mode. */
    static Qmp start(LineChannel channel) throws IOException, InterruptedException {
        Qmp qmp = new Qmp(channel);
        JsonNode greeting = qmp.json.readTree(channel.next(ANSWER));
        if (!greeting.has("QMP")) throw new IOException("not a QMP greeting: " + greeting);
        qmp.execute("qmp_capabilities", Map.of());
        return qmp;
    }

    /** Runs {@code command}; its {@code return} value, or an IOException carrying QEMU's error. */
    synchronized JsonNode execute(String command, Map<String, Object> arguments) throws IOException, InterruptedException {
        ObjectNode request = json.createObjectNode().put("execute", command);
        if (!arguments.isEmpty()) request.set("arguments", json.valueToTree(arguments));
        channel.send(json.writeValueAsString(request));
        while (true) {
            JsonNode reply = json.readTree(channel.next(answer));
            if (reply.has("event")) {
                events.add(reply);
            } else if (reply.has("return")) {
                return reply.get("return");
            } else if (reply.has("error")) {
                throw new IOException("QMP " + command + " " + arguments + ": " + reply.get("error"));
            }
        }
    }

    /** How long to wait for each answer from now on: the guest's pace applied to {@link #ANSWER}. */
    synchronized void answerWithin(Duration bound) {
        answer = bound;
    }

    /** Waits for an event named {@code name} whose data matches, including ones already received; consumes it. */
    synchronized JsonNode awaitEvent(String name, Predicate<JsonNode> data, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (JsonNode e : events) {
                if (e.get("event").asString().equals(name) && data.test(e.path("data"))) {
                    events.remove(e);
                    return e;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new IOException("no QMP event " + name + " within " + timeout + "; seen: " + events);
            JsonNode message = json.readTree(channel.next(Duration.ofNanos(left)));
            if (message.has("event")) events.add(message);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
