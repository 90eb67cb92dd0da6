package io.vfiodp.doctor;

import java.util.Locale;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The report as a JSON document for tools. Stable: every key is always present ({@code subject}
 * and {@code fix} null where they do not apply), findings in the report's order; versioned by
 * {@value #SCHEMA}.
 */
public final class ReportJson {

    public static final String SCHEMA = "vfio-device-plugin/doctor/v1";

    private ReportJson() {}

    public static String format(Report report) {
        ObjectMapper mapper = new JsonMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("verdict", report.verdict().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        root.put("exitCode", report.verdict().exitCode());
        ObjectNode counts = root.putObject("counts");
        for (Severity s : Severity.values()) counts.put(s.word(), report.count(s));
        ArrayNode checks = root.putArray("checks");
        for (Finding f : report.findings()) {
            ObjectNode n = checks.addObject();
            n.put("check", f.check());
            n.put("subject", f.subject().orElse(null));
            n.put("outcome", f.severity().word());
            n.put("detail", f.outcome().detail());
            switch (f.outcome()) {
                case Outcome.Warn w -> fix(n.putObject("fix"), w.fix());
                case Outcome.Fail x -> fix(n.putObject("fix"), x.fix());
                case Outcome.Ok ok -> n.putNull("fix");
            }
        }
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter(Separators.createDefaultInstance()
                        .withObjectNameValueSpacing(Separators.Spacing.AFTER)
                        .withObjectEmptySeparator("")
                        .withArrayEmptySeparator(""))
                .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n"));
        return mapper.writer().with(printer).writeValueAsString(root) + "\n";
    }

    private static void fix(ObjectNode n, Fix fix) {
        n.put("advice", fix.advice());
        fix.now().forEach(n.putArray("now")::add);
        fix.forGood().forEach(n.putArray("forGood")::add);
    }
}
