package io.vfiodp.policy;

/** A device's health as the kubelet sees it, with the reason when it is not healthy. */
public sealed interface Health {

    Healthy HEALTHY = new Healthy();

    static Health unhealthy(String reason) {
        return new Unhealthy(reason);
    }

    boolean isHealthy();

    /** The kubelet's wire value: {@code Healthy} or {@code Unhealthy}. */
    String wireValue();

    record Healthy() implements Health {
        @Override public boolean isHealthy() { return true; }
        @Override public String wireValue() { return "Healthy"; }
    }

    record Unhealthy(String reason) implements Health {
        public Unhealthy {
            if (reason == null || reason.isBlank()) throw new IllegalArgumentException("an unhealthy device needs a reason");
        }
        @Override public boolean isHealthy() { return false; }
        @Override public String wireValue() { return "Unhealthy"; }
    }
}
