package io.vfiodp.host.vfio;

import java.util.Objects;

/** What the VFIO container device answered, or why it could not be asked. */
public sealed interface VfioAvailability {

    /** One line for logs and the inventory. */
    String describe();

    /**
     * @param apiVersion {@code VFIO_GET_API_VERSION}'s answer (the kernel's {@code VFIO_API_VERSION}, 0)
     * @param type1      {@code VFIO_TYPE1_IOMMU} supported
     * @param type1v2    {@code VFIO_TYPE1v2_IOMMU} supported
     */
    record Available(int apiVersion, boolean type1, boolean type1v2) implements VfioAvailability {
        @Override
        public String describe() {
            return "VFIO available: API version " + apiVersion + ", type1 IOMMU " + (type1 ? "yes" : "no")
                    + ", type1v2 IOMMU " + (type1v2 ? "yes" : "no");
        }
    }

    record Unavailable(String reason) implements VfioAvailability {
        public Unavailable {
            Objects.requireNonNull(reason, "reason");
            if (reason.isBlank()) throw new IllegalArgumentException("an unavailable VFIO needs a reason");
        }

        @Override
        public String describe() {
            return "VFIO unavailable: " + reason;
        }
    }
}
