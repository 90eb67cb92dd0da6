package io.vfiodp.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The limits of the JDK's HTTP server ({@code jdk.httpserver}) that keep one client from holding
 * the probes' port: how long a request may take to arrive, how long an answer may take, how large
 * its headers may be, how many connections may be open. The server has no API for them, only
 * system properties, which it reads once, when the process creates its first server; so
 * {@link #apply()} sets them just before {@link MetricsServer} creates its server, the only one in
 * the agent. A property already set (a {@code -D} on the command line or in
 * {@code JDK_JAVA_OPTIONS}) is left as it is: the operator's value wins, and {@link #apply()} says
 * which values are in force. docs/monitoring.md ("The port") lists them and why.
 *
 * <p>What they do, read from the JDK 21 and 25 sources ({@code sun.net.httpserver.ServerConfig},
 * {@code ServerImpl}): the request clock starts when the first byte of a request arrives (the
 * server's dispatcher thread sees it, before a worker reads the headers) and stops once the headers
 * are read; a timer closes a connection that overran it, which ends the worker's blocked read. Both
 * times are in seconds, although the module's documentation says milliseconds. A connection that
 * sends nothing at all waits on the dispatcher, holding no worker, and is closed after the smaller
 * of the idle interval and the request time, checked every {@code sun.net.httpserver.clockTick}
 * (the shipped JVM flags make that 30 s).
 */
final class HttpServerLimits {

    /** A request's line and headers must arrive within this many seconds of its first byte. */
    static final String MAX_REQUEST_SECONDS = "sun.net.httpserver.maxReqTime";
    /** An answer must be written within this many seconds of the request's headers: the probes wait for the loops up to 2 s. */
    static final String MAX_RESPONSE_SECONDS = "sun.net.httpserver.maxRspTime";
    /** How often the timer looks for requests and answers that overran (milliseconds). */
    static final String TIMER_MILLIS = "sun.net.httpserver.timerMillis";
    /** A kept-alive connection with no request is closed after this many seconds. */
    static final String IDLE_SECONDS = "sun.net.httpserver.idleInterval";
    /** The request line and headers, in bytes (with 32 per line): a probe sends about 150, a scrape about 300. */
    static final String MAX_HEADER_BYTES = "sun.net.httpserver.maxReqHeaderSize";
    /** Connections open at once, idle ones included; past it a new connection is closed as soon as it is accepted. */
    static final String MAX_CONNECTIONS = "jdk.httpserver.maxConnections";

    /** The values serve runs with unless the command line set them. */
    static final Map<String, String> VALUES = values();

    private HttpServerLimits() {}

    private static Map<String, String> values() {
        Map<String, String> v = new LinkedHashMap<>();
        v.put(MAX_REQUEST_SECONDS, "5");
        v.put(MAX_RESPONSE_SECONDS, "15");
        v.put(TIMER_MILLIS, "2500");
        v.put(IDLE_SECONDS, "30");
        v.put(MAX_HEADER_BYTES, "8192");
        v.put(MAX_CONNECTIONS, "1024");
        return java.util.Collections.unmodifiableMap(v);
    }

    /**
     * Sets each limit that is not set yet and returns those in force, as {@code name=value}
     * words in {@link #VALUES}' order. Takes effect only before the process's first HTTP server.
     */
    static String apply() {
        StringBuilder inForce = new StringBuilder();
        for (Map.Entry<String, String> limit : VALUES.entrySet()) {
            String value = System.getProperty(limit.getKey());
            if (value == null) {
                System.setProperty(limit.getKey(), limit.getValue());
                value = limit.getValue();
            }
            if (!inForce.isEmpty()) inForce.append(' ');
            inForce.append(limit.getKey()).append('=').append(value);
        }
        return inForce.toString();
    }
}
