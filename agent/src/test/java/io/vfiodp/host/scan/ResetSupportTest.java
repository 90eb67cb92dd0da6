package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.Reading;
import io.vfiodp.host.ResetSupport;
import io.vfiodp.host.fixtures.SysfsFixtures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResetSupportTest {

    private static final PciAddress T4 = PciAddress.parse("0000:18:00.0");

    @Test
    void resetMethodsAreListedInTheKernelsOrder() {
        assertThat(ResetSupportReader.read(SysfsFixtures.sys("doctor-ready"), List.of(T4))).isEqualTo(Map.of(T4,
                new ResetSupport(new Reading.Found<>(List.of("flr", "bus")), new Reading.Found<>(true))));
    }

    @Test
    void aFunctionWithoutAnyMethodHasNeitherFile() {
        PciAddress l4 = PciAddress.parse("0000:81:00.0");

        assertThat(ResetSupportReader.read(SysfsFixtures.sys("doctor-amd-shared"), List.of(l4)).get(l4)).isEqualTo(new ResetSupport(
                new Reading.Absent<>(SysfsFixtures.sys("doctor-amd-shared").resolve("bus/pci/devices/0000:81:00.0/reset_method").toString()),
                new Reading.Found<>(false)));
    }

    @Test
    void aResetMethodThatIsADirectoryIsUnreadableNamingIt() {
        assertThat(ResetSupportReader.read(SysfsFixtures.sys("doctor-odd"), List.of(T4)).get(T4).methods()).isEqualTo(new Reading.Unreadable<>(
                SysfsFixtures.sys("doctor-odd").resolve("bus/pci/devices/0000:18:00.0/reset_method").toString(),
                "is a directory, not an attribute file"));
    }
}
