package io.vfiodp.host;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MdevInstanceTest {

    @Test
    void aLowerCaseUuidNamesAnMdev() {
        assertThat(MdevInstance.isUuid("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27")).isTrue();
    }

    @Test
    void anUpperCaseUuidIsNotHowTheKernelNamesAnMdev() {
        assertThat(MdevInstance.isUuid("0B2C1F6E-7A4D-4C39-8E52-3D9F0A6B1C27")).isFalse();
    }

    @Test
    void aPciAddressOrATruncatedUuidNamesNoMdev() {
        assertThat(MdevInstance.isUuid("0000:3b:00.0")).isFalse();
        assertThat(MdevInstance.isUuid("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c2")).isFalse();
    }
}
