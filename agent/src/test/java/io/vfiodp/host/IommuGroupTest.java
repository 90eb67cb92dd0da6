package io.vfiodp.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IommuGroupTest {

    static PciAddress at(String address) {
        return PciAddress.parse(address);
    }

    @Test
    void membersAreSortedAndEachOnce() {
        IommuGroup group = new IommuGroup(7, List.of(at("0000:3b:00.1"), at("0000:3b:00.0"), at("0000:03:00.0"), at("0000:3b:00.1"),
                at("0001:00:00.0"), at("0000:3b:00.0")));

        assertThat(group.members()).containsExactly(at("0000:03:00.0"), at("0000:3b:00.0"), at("0000:3b:00.1"), at("0001:00:00.0"));
    }

    @Test
    void membersAreACopyThatCannotChange() {
        List<PciAddress> read = new ArrayList<>(List.of(at("0000:3b:00.0")));
        IommuGroup group = new IommuGroup(7, read);
        read.add(at("0000:3b:00.1"));

        assertThat(group.members()).containsExactly(at("0000:3b:00.0"));
        assertThatThrownBy(() -> group.members().add(at("0000:3b:00.2"))).isInstanceOf(UnsupportedOperationException.class);
        assertThat(new IommuGroup(8, List.of()).members()).isEmpty();
    }

    @Test
    void aNegativeNumberIsRefused() {
        assertThatThrownBy(() -> new IommuGroup(-1, List.of())).hasMessage("negative IOMMU group -1");
    }
}
