package io.vfiodp.metrics;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * Parses {@code --metrics-address} and {@code --probe-address}: {@code :9402} (all interfaces),
 * {@code host:port}, {@code [::1]:9402}, or empty (off).
 */
public final class MetricsAddress {

    private MetricsAddress() {}

    public static Optional<InetSocketAddress> parse(String value) {
        return parse("metrics address", value);
    }

    /** As {@link #parse(String)}; {@code what} names the address in messages ({@code probe address}). */
    public static Optional<InetSocketAddress> parse(String what, String value) {
        if (value == null || value.isBlank()) return Optional.empty();
        String v = value.strip();
        int colon = v.lastIndexOf(':');
        if (colon < 0) throw new IllegalArgumentException(what + " '" + value + "' needs a port (e.g. :9402 or 127.0.0.1:9402)");
        String host = v.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(v.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + value + "': port '" + v.substring(colon + 1) + "' is not a number");
        }
        if (port < 0 || port > 65535) throw new IllegalArgumentException(what + " '" + value + "': port " + port + " is out of range");
        return Optional.of(host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port));
    }
}
