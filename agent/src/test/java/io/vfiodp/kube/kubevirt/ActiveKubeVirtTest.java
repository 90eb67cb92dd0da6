package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import java.util.List;
import org.junit.jupiter.api.Test;

class ActiveKubeVirtTest {

    private static KubeVirt kv(String namespace, String name, String created, String deleting) {
        KubeVirt kv = new KubeVirt();
        kv.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
                .withCreationTimestamp(created).withDeletionTimestamp(deleting).build());
        return kv;
    }

    @Test
    void noCrSelectsNothing() {
        ActiveKubeVirt.Selection s = ActiveKubeVirt.select(List.of());

        assertThat(s.active()).isEmpty();
        assertThat(s.ignored()).isEmpty();
    }

    @Test
    void firstCreatedWinsWhateverItsName() {
        KubeVirt older = kv("kubevirt", "zz", "2024-01-01T00:00:00Z", null);
        KubeVirt newer = kv("aa", "aa", "2024-06-01T00:00:00Z", null);

        ActiveKubeVirt.Selection s = ActiveKubeVirt.select(List.of(newer, older));

        assertThat(s.active()).containsSame(older);
        assertThat(s.ignored()).containsExactly(newer);
    }

    @Test
    void sameCreationTimeFallsBackToNamespaceThenName() {
        KubeVirt b = kv("kubevirt", "b", "2024-01-01T00:00:00Z", null);
        KubeVirt a = kv("kubevirt", "a", "2024-01-01T00:00:00Z", null);
        KubeVirt other = kv("aaa", "z", "2024-01-01T00:00:00Z", null);

        assertThat(ActiveKubeVirt.select(List.of(b, a, other)).active()).containsSame(other);
        assertThat(ActiveKubeVirt.select(List.of(b, a)).active()).containsSame(a);
    }

    @Test
    void crBeingDeletedIsIgnored() {
        KubeVirt deleting = kv("kubevirt", "old", "2024-01-01T00:00:00Z", "2024-07-01T00:00:00Z");
        KubeVirt live = kv("kubevirt", "new", "2024-06-01T00:00:00Z", null);

        ActiveKubeVirt.Selection s = ActiveKubeVirt.select(List.of(deleting, live));

        assertThat(s.active()).containsSame(live);
        assertThat(s.ignored()).isEmpty();
    }

    @Test
    void crWithoutCreationTimeSortsLast() {
        KubeVirt unknown = kv("a", "a", null, null);
        KubeVirt dated = kv("z", "z", "2024-06-01T00:00:00Z", null);

        assertThat(ActiveKubeVirt.select(List.of(unknown, dated)).active()).containsSame(dated);
    }
}
