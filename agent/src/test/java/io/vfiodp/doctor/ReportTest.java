package io.vfiodp.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {

    private static final Finding OK = Finding.of("iommu", new Outcome.Ok("on: 5 IOMMU groups"));
    private static final Finding WARN = Finding.about("device.numa", "0000:81:00.0", new Outcome.Warn("no NUMA node", Fix.advice("update")));
    private static final Finding FAIL = Finding.of("vfio.modules", new Outcome.Fail("not loaded: vfio_pci", Fix.advice("modprobe")));

    @Test
    void allOkIsReadyWithExitZero() {
        Report r = new Report(List.of(OK));

        assertThat(r.verdict()).isEqualTo(Verdict.READY);
        assertThat(r.verdict().exitCode()).isZero();
        assertThat(r.summary(3)).isEqualTo("ready: 0 fail, 0 warn, 1 ok");
    }

    @Test
    void aWarningIsReadyWithWarningsAndExitOneNamingIt() {
        Report r = new Report(List.of(OK, WARN));

        assertThat(r.verdict().exitCode()).isEqualTo(1);
        assertThat(r.summary(3)).isEqualTo("ready, with warnings: 0 fail, 1 warn, 1 ok (device.numa 0000:81:00.0: no NUMA node)");
    }

    @Test
    void aFailureIsNotReadyWithExitTwoNamingOnlyTheFailures() {
        Report r = new Report(List.of(OK, WARN, FAIL));

        assertThat(r.verdict().exitCode()).isEqualTo(2);
        assertThat(r.summary(3)).isEqualTo("not ready: 1 fail, 1 warn, 1 ok (vfio.modules: not loaded: vfio_pci)");
    }

    @Test
    void aSummaryNamesAtMostSoManyAndCountsTheRest() {
        Report r = new Report(List.of(FAIL, FAIL, FAIL));

        assertThat(r.summary(2)).isEqualTo("not ready: 3 fail, 0 warn, 0 ok (vfio.modules: not loaded: vfio_pci; vfio.modules: not loaded:"
                + " vfio_pci; and 1 more)");
    }

    @Test
    void textShowsOneLinePerCheckWithTheFixBelowAndTheTallyLast() {
        Report r = new Report(List.of(OK, Finding.of("vfio.modules", new Outcome.Fail("not loaded: vfio_pci",
                new Fix("load it", List.of("modprobe vfio_pci"), List.of("echo vfio_pci > /etc/modules-load.d/vfio.conf"))))));

        assertThat(ReportText.format(r)).isEqualTo("""
                ok    iommu         on: 5 IOMMU groups
                fail  vfio.modules  not loaded: vfio_pci
                      fix: load it
                        now:
                          modprobe vfio_pci
                        for good:
                          echo vfio_pci > /etc/modules-load.d/vfio.conf
                not ready: 1 fail, 0 warn, 1 ok
                """);
    }

    @Test
    void jsonHasEveryKeyOnEveryCheck() {
        assertThat(ReportJson.format(new Report(List.of(OK, WARN)))).isEqualTo("""
                {
                  "schema": "vfio-device-plugin/doctor/v1",
                  "verdict": "warnings",
                  "exitCode": 1,
                  "counts": {
                    "ok": 1,
                    "warn": 1,
                    "fail": 0
                  },
                  "checks": [
                    {
                      "check": "iommu",
                      "subject": null,
                      "outcome": "ok",
                      "detail": "on: 5 IOMMU groups",
                      "fix": null
                    },
                    {
                      "check": "device.numa",
                      "subject": "0000:81:00.0",
                      "outcome": "warn",
                      "detail": "no NUMA node",
                      "fix": {
                        "advice": "update",
                        "now": [],
                        "forGood": []
                      }
                    }
                  ]
                }
                """);
    }
}
