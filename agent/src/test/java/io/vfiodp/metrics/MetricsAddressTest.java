package io.vfiodp.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class MetricsAddressTest {

    @Test
    void portOnlyListensOnAllInterfaces() {
        assertThat(MetricsAddress.parse(":9402")).contains(new InetSocketAddress(9402));
    }

    @Test
    void emptyDisablesTheEndpoints() {
        assertThat(MetricsAddress.parse("")).isEmpty();
    }

    @Test
    void hostAndPort() {
        assertThat(MetricsAddress.parse("127.0.0.1:9402")).contains(new InetSocketAddress("127.0.0.1", 9402));
    }

    @Test
    void bracketedIpv6Host() {
        assertThat(MetricsAddress.parse("[::1]:9402")).contains(new InetSocketAddress("::1", 9402));
    }

    @Test
    void missingPortIsAnErrorNamingTheValue() {
        assertThatThrownBy(() -> MetricsAddress.parse("9402")).hasMessage("metrics address '9402' needs a port (e.g. :9402 or 127.0.0.1:9402)");
    }

    @Test
    void nonNumericPortIsAnError() {
        assertThatThrownBy(() -> MetricsAddress.parse("host:http")).hasMessage("metrics address 'host:http': port 'http' is not a number");
    }

    @Test
    void portOutOfRangeIsAnError() {
        assertThatThrownBy(() -> MetricsAddress.parse(":70000")).hasMessage("metrics address ':70000': port 70000 is out of range");
    }
}
